import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  at,
  item,
  member,
  menuItem,
  ok,
  order,
  payment,
  pnlCloud,
  punch,
  recipe,
  seedChain,
} from './pnl-cloud.ts';

const DAY = '2026-03-02';
const MARCH = { start_date: '2026-03-01', end_date: '2026-03-31' };

/**
 * One brand with two stores and one with one store; a few orders at store A1 whose figures are
 * worked out by hand: 2 burgers (1.50 each from the recipe) and 2 colas (0.20, beverage by their
 * category), a cancelled order that counts for nothing, a refunded cola, 8 hours at 15.00,
 * occupancy 300.00 at A1 and marketing 100.01 for brand A shared by its two stores.
 */
describe.each(backends)('P&L figures checked by hand (%s)', (backend) => {
  let cloud: Awaited<ReturnType<typeof pnlCloud>>;
  let chain: Awaited<ReturnType<typeof seedChain>>;
  let admin: Awaited<ReturnType<typeof member>>;
  let cook: Awaited<ReturnType<typeof member>>;
  const o1 = '0190f000-0000-7000-8000-000000000001';

  beforeAll(async () => {
    cloud = await pnlCloud(backend);
    chain = await seedChain(cloud, 'hand', {
      brands: ['Burgers', 'Tacos'],
      regions: ['North', 'South'],
      stores: [
        { name: 'A1', brand: 0, region: 0 },
        { name: 'A2', brand: 0, region: 1 },
        { name: 'B1', brand: 1, region: 0 },
      ],
    });
    admin = await member(cloud, chain.tenant.id, 'admin@hand.test', ['tenant_admin']);
    cook = await member(cloud, chain.tenant.id, 'cook@hand.test', ['staff']);
    const a1 = chain.stores[0]!;
    await a1.push([
      menuItem('m-burger', 'c-food'),
      menuItem('m-cola', 'c-drinks'),
      recipe('m-burger', [
        ['inv-bun', 1000],
        ['inv-patty', 1000],
      ]),
      recipe('m-cola', [['inv-syrup', 4000]]),
    ]);
    const o2 = '0190f000-0000-7000-8000-000000000002';
    const o3 = '0190f000-0000-7000-8000-000000000003';
    // Items before their order: they count once the order arrives.
    await a1.push([item(o1, 'm-burger', 2, 800, 'i-1'), item(o1, 'm-cola', 1, 250, 'i-2')]);
    await a1.push([
      order(DAY, { id: o1, subtotal: 1850 }),
      payment(o1, 1850),
      order(DAY, { id: o2, subtotal: 800, status: 'cancelled' }),
      item(o2, 'm-burger', 1, 800),
      order(DAY, { id: o3, subtotal: 250 }),
      item(o3, 'm-cola', 1, 250),
      payment(o3, 250, 250),
      punch(cook.id, 'clock_in', at(DAY, '09:00')),
      punch(cook.id, 'break_start', at(DAY, '12:00')),
      punch(cook.id, 'break_end', at(DAY, '12:30')),
      punch(cook.id, 'clock_out', at(DAY, '17:30')),
    ]);
    const call = admin.call;
    ok(await call('PUT', '/api/v1/pnl/ledger/item-costs/inv-bun', { unit_cost: 0.3 }));
    ok(await call('PUT', '/api/v1/pnl/ledger/item-costs/inv-patty', { unit_cost: 1.2 }));
    ok(await call('PUT', '/api/v1/pnl/ledger/item-costs/inv-syrup', { unit_cost: 0.05 }));
    ok(await call('PUT', '/api/v1/pnl/ledger/classifications/category/c-drinks', { cost_class: 'beverage' }));
    ok(
      await call('POST', '/api/v1/pnl/ledger/wage-rates', {
        staff_id: cook.id,
        hourly_rate: 15,
        effective_from: '2026-01-01',
      }),
      201,
    );
    ok(
      await call('POST', '/api/v1/pnl/ledger/expenses', {
        location_id: a1.id,
        expense_date: DAY,
        category: 'occupancy',
        amount: 300,
      }),
      201,
    );
    ok(
      await call('POST', '/api/v1/pnl/ledger/expenses', {
        brand_id: chain.brands[0]!.id,
        expense_date: DAY,
        category: 'marketing',
        amount: 100.01,
      }),
      201,
    );
  });
  afterAll(() => cloud.close());

  it('states brand A as worked out by hand', async () => {
    const data = ok(await admin.call('POST', `/api/v1/pnl/brand/${chain.brands[0]!.id}`, MARCH));
    expect(data).toMatchObject({
      brand_id: chain.brands[0]!.id,
      brand_name: 'Burgers',
      period: MARCH,
      locations_count: 2,
    });
    expect(data.revenue).toEqual({ gross_revenue: 21, discounts: 0, refunds: -2.5, net_revenue: 18.5 });
    expect(data.cost_of_goods_sold).toEqual({ food_cost: 3, beverage_cost: 0.4, total_cogs: 3.4 });
    expect(data.operating_expenses).toEqual({
      labor_cost: 120,
      occupancy_cost: 300,
      utilities: 0,
      marketing: 100.01,
      other: 0,
      total_operating_expenses: 520.01,
    });
    expect(data.summary).toEqual({
      net_revenue: 18.5,
      gross_profit: 15.1,
      gross_margin: 81.62,
      labor_cost: 120,
      labor_percentage: 648.65,
      food_cost: 3,
      food_cost_percentage: 16.22,
      operating_income: -504.91,
      operating_margin: -2729.24,
      net_income: -504.91,
      net_margin: -2729.24,
    });
  });

  it('shares the brand expense between its stores, the odd cent to the first', async () => {
    const data = ok(
      await admin.call('POST', '/api/v1/pnl/custom', {
        ...MARCH,
        sections: ['operating_expenses'],
        group_by: 'location',
        filters: { brand_id: chain.brands[0]!.id },
      }),
    );
    const marketing = Object.fromEntries(
      data.groups.map((g: { group_name: string; operating_expenses: { marketing: number } }) => [
        g.group_name,
        g.operating_expenses.marketing,
      ]),
    );
    const [first, second] = [...chain.stores.slice(0, 2)].sort((a, b) => a.id.localeCompare(b.id));
    expect(marketing).toEqual({ [first!.name]: 50.01, [second!.name]: 50 });
  });

  it('replaces a row arriving again instead of adding it, and applies a cost changed later', async () => {
    const a1 = chain.stores[0]!;
    await a1.push([order(DAY, { id: o1, subtotal: 2650 }), item(o1, 'm-burger', 3, 800, 'i-1')]);
    await a1.push([order(DAY, { id: o1, subtotal: 2650 }), item(o1, 'm-burger', 3, 800, 'i-1')]);
    ok(await admin.call('PUT', '/api/v1/pnl/ledger/item-costs/inv-bun', { unit_cost: 0.5 }));
    const data = ok(await admin.call('POST', `/api/v1/pnl/brand/${chain.brands[0]!.id}`, MARCH));
    expect(data.revenue.gross_revenue).toBe(29);
    expect(data.cost_of_goods_sold.food_cost).toBe(5.1);
  });

  it('prices labor at the rate in force on each day', async () => {
    ok(
      await admin.call('POST', '/api/v1/pnl/ledger/wage-rates', {
        staff_id: cook.id,
        hourly_rate: 20,
        effective_from: DAY,
      }),
      201,
    );
    const data = ok(await admin.call('POST', `/api/v1/pnl/brand/${chain.brands[0]!.id}`, MARCH));
    expect(data.operating_expenses.labor_cost).toBe(160);
    const list = ok(await admin.call('GET', `/api/v1/pnl/ledger/wage-rates?staff_id=${cook.id}`));
    expect(list.items.map((r: { effective_to: string | null }) => r.effective_to)).toEqual([
      '2026-03-01',
      null,
    ]);
  });
});
