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
  type Row,
  recipe,
  refused,
  seedChain,
} from './pnl-cloud.ts';

const PERIOD = { start_date: '2026-01-01', end_date: '2026-02-28' };
const MENU: Array<[string, string, number]> = [
  ['m-burger', 'c-food', 900],
  ['m-fries', 'c-food', 350],
  ['m-cola', 'c-drinks', 250],
  ['m-shake', 'c-drinks', 450],
];
const ADDITIVE = [
  'gross_revenue',
  'refunds',
  'net_revenue',
  'food_cost',
  'beverage_cost',
  'labor_cost',
  'marketing',
  'net_income',
];

/** A deterministic pseudo-random sequence, so the data set is the same on every run. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function storeDays(rand: () => number, staff: string[], prefix: string): Row[] {
  const rows: Row[] = [];
  for (let d = 0; d < 8; d += 1) {
    const day = `2026-0${1 + Math.floor(rand() * 2)}-${String(1 + Math.floor(rand() * 28)).padStart(2, '0')}`;
    for (let o = 0; o < 3; o += 1) {
      const lines = MENU.filter(() => rand() < 0.6).map(
        ([id, , price]) => [`${prefix}-${id}`, 1 + Math.floor(rand() * 3), price] as const,
      );
      const subtotal = lines.reduce((sum, [, q, p]) => sum + q * p, 0);
      const cancelled = rand() < 0.1;
      const [, orderFields] = order(day, { subtotal, status: cancelled ? 'cancelled' : 'completed' });
      const orderId = String(orderFields.id);
      for (const [id, q, p] of lines) rows.push(item(orderId, id, q, p));
      rows.push(['orders', orderFields]);
      rows.push(payment(orderId, subtotal, rand() < 0.2 ? Math.floor(subtotal / 2) : 0));
    }
    const who = staff[Math.floor(rand() * staff.length)]!;
    const start = 8 + Math.floor(rand() * 4);
    rows.push(punch(who, 'clock_in', at(day, `${String(start).padStart(2, '0')}:00`)));
    rows.push(punch(who, 'clock_out', at(day, `${String(start + 6).padStart(2, '0')}:15`)));
  }
  return rows;
}

type Figures = Record<string, number>;
const sum = (list: Figures[], field: string) => list.reduce((total, f) => total + (f[field] ?? 0), 0);
const flat = (blocks: Record<string, unknown>) =>
  Object.assign({}, ...Object.values(blocks).filter((v) => typeof v === 'object')) as Figures;

describe.each(backends)('P&L identities on a generated chain (%s)', (backend) => {
  let cloud: Awaited<ReturnType<typeof pnlCloud>>;
  let chain: Awaited<ReturnType<typeof seedChain>>;
  let other: Awaited<ReturnType<typeof seedChain>>;
  let admin: Awaited<ReturnType<typeof member>>;
  let otherAdmin: Awaited<ReturnType<typeof member>>;

  async function fill(target: typeof chain, owner: Awaited<ReturnType<typeof member>>, seed: number) {
    const rand = random(seed);
    const staff = [owner.id];
    for (const store of target.stores) {
      await store.push([
        ...MENU.map(([id, category]) => menuItem(`${store.name}-${id}`, category)),
        recipe(`${store.name}-m-burger`, [
          ['inv-beef', 150],
          ['inv-bun', 1000],
        ]),
        recipe(`${store.name}-m-fries`, [['inv-potato', 200]]),
        recipe(`${store.name}-m-cola`, [['inv-syrup', 3000]]),
        recipe(`${store.name}-m-shake`, [['inv-milk', 300]]),
      ]);
      await store.push(storeDays(rand, staff, store.name));
    }
    const call = owner.call;
    for (const [id, cost] of [
      ['inv-beef', 12.5],
      ['inv-bun', 0.31],
      ['inv-potato', 1.7],
      ['inv-syrup', 0.045],
      ['inv-milk', 1.1],
    ] as const)
      ok(await call('PUT', `/api/v1/pnl/ledger/item-costs/${id}`, { unit_cost: cost }));
    ok(await call('PUT', '/api/v1/pnl/ledger/classifications/category/c-drinks', { cost_class: 'beverage' }));
    ok(
      await call('POST', '/api/v1/pnl/ledger/wage-rates', {
        staff_id: owner.id,
        hourly_rate: 16.25,
        effective_from: '2025-12-01',
      }),
      201,
    );
    ok(
      await call('POST', '/api/v1/pnl/ledger/wage-rates', {
        staff_id: owner.id,
        hourly_rate: 17.1,
        effective_from: '2026-02-01',
      }),
      201,
    );
    const csv = [
      'expense_date,category,amount,location_id,brand_id,description',
      ...target.stores.map(
        (s, i) => `2026-01-${String(10 + i).padStart(2, '0')},occupancy,${1200 + i * 10.5},${s.id},,Rent`,
      ),
      ...target.brands.map((b, i) => `2026-02-0${1 + i},marketing,${333.33 + i},,${b.id},"Campaign, winter"`),
      `2026-02-14,utilities,87.19,${target.stores[0]!.id},,`,
      `2026-02-20,other_income,50,${target.stores[1]!.id},,`,
    ].join('\n');
    ok(await call('POST', '/api/v1/pnl/ledger/expenses/import', csv, { 'content-type': 'text/csv' }), 201);
  }

  beforeAll(async () => {
    cloud = await pnlCloud(backend);
    chain = await seedChain(cloud, 'chain', {
      brands: ['Burgers', 'Tacos', 'Noodles'],
      regions: ['North', 'South', 'West'],
      stores: [
        { name: 'S1', brand: 0, region: 0 },
        { name: 'S2', brand: 0, region: 1 },
        { name: 'S3', brand: 1, region: 0 },
        { name: 'S4', brand: 1, region: 2 },
        { name: 'S5', brand: 2, region: 1 },
        { name: 'S6', brand: 2, region: 2 },
      ],
    });
    other = await seedChain(cloud, 'other', {
      brands: ['Other brand', 'Second'],
      regions: ['Other region'],
      stores: [
        { name: 'O1', brand: 0, region: 0 },
        { name: 'O2', brand: 1, region: 0 },
      ],
    });
    admin = await member(cloud, chain.tenant.id, 'admin@chain.test', ['tenant_admin']);
    otherAdmin = await member(cloud, other.tenant.id, 'admin@other.test', ['tenant_admin']);
    await fill(chain, admin, 7);
    await fill(other, otherAdmin, 99);
  });
  afterAll(() => cloud.close());

  const brandReport = async (brandId: string, period = PERIOD) =>
    ok(await admin.call('POST', `/api/v1/pnl/brand/${brandId}`, period));
  const byLocation = async (filters: Record<string, unknown>) =>
    ok(
      await admin.call('POST', '/api/v1/pnl/custom', {
        ...PERIOD,
        sections: ['revenue', 'cogs', 'operating_expenses', 'other_income', 'other_expenses'],
        group_by: 'location',
        filters,
      }),
    );

  it('has figures to compare: revenue, both costs, labor and every ledger category', async () => {
    const consolidated = ok(await admin.call('POST', '/api/v1/pnl/consolidated', PERIOD));
    expect(consolidated.brands_included).toBe(3);
    for (const field of ['net_revenue', 'food_cost', 'labor_cost'])
      expect(consolidated.summary[field]).toBeGreaterThan(0);
    const brand = await brandReport(chain.brands[0]!.id);
    expect(brand.cost_of_goods_sold.beverage_cost).toBeGreaterThan(0);
    expect(brand.revenue.refunds).toBeLessThan(0);
    expect(brand.operating_expenses.marketing).toBeCloseTo(333.33, 2);
  });

  it('consolidated equals the sum of its brands', async () => {
    const consolidated = ok(await admin.call('POST', '/api/v1/pnl/consolidated', PERIOD));
    const brands = await Promise.all(chain.brands.map((b) => brandReport(b.id)));
    for (const field of [
      'net_revenue',
      'gross_profit',
      'labor_cost',
      'food_cost',
      'operating_income',
      'net_income',
    ])
      expect(consolidated.summary[field]).toBeCloseTo(
        sum(
          brands.map((b) => b.summary),
          field,
        ),
        2,
      );
    const two = ok(
      await admin.call('POST', '/api/v1/pnl/consolidated', {
        ...PERIOD,
        brand_ids: [chain.brands[0]!.id, chain.brands[2]!.id],
      }),
    );
    expect(two.brands_included).toBe(2);
    expect(two.summary.net_revenue).toBeCloseTo(
      brands[0]!.summary.net_revenue + brands[2]!.summary.net_revenue,
      2,
    );
  });

  it('a brand equals the sum of its locations, and a custom report its groups', async () => {
    for (const brand of chain.brands) {
      const report = await brandReport(brand.id);
      const custom = await byLocation({ brand_id: brand.id });
      expect(custom.groups).toHaveLength(2);
      const groups = custom.groups.map(flat);
      const own = { ...report.revenue, ...report.cost_of_goods_sold, ...report.operating_expenses };
      for (const field of [
        'gross_revenue',
        'refunds',
        'net_revenue',
        'food_cost',
        'beverage_cost',
        'total_cogs',
        'labor_cost',
        'occupancy_cost',
        'utilities',
        'marketing',
      ])
        expect(own[field]).toBeCloseTo(sum(groups, field), 2);
      const totals = flat(custom.totals);
      for (const field of Object.keys(totals)) expect(totals[field]).toBeCloseTo(sum(groups, field), 2);
    }
  });

  it('a region equals the sum of its locations', async () => {
    for (const region of chain.regions) {
      const report = ok(await admin.call('POST', `/api/v1/pnl/region/${region.id}`, PERIOD));
      const custom = await byLocation({ region_id: region.id });
      expect(report).toMatchObject({ region_name: region.name, locations_in_region: 2, brands_in_region: 2 });
      expect(report.summary.net_revenue).toBeCloseTo(flat(custom.totals).net_revenue!, 2);
      expect(report.summary.labor_cost).toBeCloseTo(flat(custom.totals).labor_cost!, 2);
    }
  });

  it('trend points add up to the period total for additive metrics, at every granularity', async () => {
    const brandId = chain.brands[1]!.id;
    const report = await brandReport(brandId);
    const all = {
      ...report.revenue,
      ...report.cost_of_goods_sold,
      ...report.operating_expenses,
      ...report.summary,
    };
    for (const granularity of ['day', 'week', 'month'])
      for (const metric of ADDITIVE) {
        const data = ok(
          await admin.call('POST', '/api/v1/pnl/trend', {
            ...PERIOD,
            metric,
            granularity,
            brand_id: brandId,
          }),
        );
        expect(data.data_points.reduce((t: number, p: { value: number }) => t + p.value, 0)).toBeCloseTo(
          all[metric],
          2,
        );
      }
    const consolidated = ok(await admin.call('POST', '/api/v1/pnl/consolidated', PERIOD));
    const months = ok(await admin.call('POST', '/api/v1/pnl/trend', { ...PERIOD, metric: 'net_revenue' }));
    expect(months.granularity).toBe('month');
    expect(months.brand_id).toBeNull();
    expect(months.data_points.map((p: { date: string }) => p.date)).toEqual(['2026-01-01', '2026-02-01']);
    expect(months.data_points[0].value + months.data_points[1].value).toBeCloseTo(
      consolidated.summary.net_revenue,
      2,
    );
  });

  it('compares brands with the same figures as their reports, ranked best first', async () => {
    const ids = chain.brands.map((b) => b.id);
    const data = ok(await admin.call('POST', '/api/v1/pnl/compare', { ...PERIOD, brand_ids: ids }));
    for (const row of data.brands) {
      const report = await brandReport(row.brand_id);
      expect(row.metrics.net_revenue).toBe(report.summary.net_revenue);
      expect(row.metrics.food_cost).toBe(report.cost_of_goods_sold.food_cost);
      expect(row.metrics.labor_percentage).toBe(report.summary.labor_percentage);
    }
    const value = (id: string, metric: string) =>
      data.brands.find((b: { brand_id: string }) => b.brand_id === id).metrics[metric];
    const revenue = data.rankings.net_revenue as string[];
    expect(value(revenue[0]!, 'net_revenue')).toBeGreaterThanOrEqual(value(revenue[2]!, 'net_revenue'));
    const labor = data.rankings.labor_cost as string[];
    expect(value(labor[0]!, 'labor_cost')).toBeLessThanOrEqual(value(labor[2]!, 'labor_cost'));
    expect(Object.keys(data.rankings).sort()).toEqual(Object.keys(data.brands[0].metrics).sort());
  });

  it('compares the prior period and the budget', async () => {
    const march = { start_date: '2026-02-01', end_date: '2026-02-28' };
    const jan = { start_date: '2026-01-04', end_date: '2026-01-31' };
    const brandId = chain.brands[0]!.id;
    ok(
      await admin.call('PUT', '/api/v1/pnl/ledger/budgets', {
        brand_id: brandId,
        month: '2026-02',
        amounts: { net_revenue: 1000, labor_cost: 280 },
      }),
      201,
    );
    const data = ok(
      await admin.call('POST', '/api/v1/pnl/consolidated', {
        ...march,
        brand_ids: [brandId],
        include_budget: true,
        include_prior_period: true,
      }),
    );
    const prior = await brandReport(brandId, jan);
    const current = await brandReport(brandId, march);
    expect(data.prior_period.net_revenue).toMatchObject({
      current: current.summary.net_revenue,
      prior: prior.summary.net_revenue,
    });
    expect(data.prior_period.net_revenue.change).toBeCloseTo(
      current.summary.net_revenue - prior.summary.net_revenue,
      2,
    );
    expect(data.budget_comparison).toEqual({
      net_revenue: {
        actual: current.summary.net_revenue,
        budget: 1000,
        variance: expect.closeTo(current.summary.net_revenue - 1000, 2),
        variance_pct: expect.closeTo(((current.summary.net_revenue - 1000) / 1000) * 100, 1),
      },
      labor_cost: {
        actual: current.summary.labor_cost,
        budget: 280,
        variance: expect.closeTo(current.summary.labor_cost - 280, 2),
        variance_pct: expect.closeTo(((current.summary.labor_cost - 280) / 280) * 100, 1),
      },
    });
    const plain = ok(await admin.call('POST', '/api/v1/pnl/consolidated', march));
    expect(plain).toMatchObject({ budget_comparison: {}, prior_period: {} });
  });

  it('keeps tenants apart: another tenant sees only its own figures and none of these ids', async () => {
    const mine = ok(await admin.call('POST', '/api/v1/pnl/consolidated', PERIOD));
    const theirs = ok(await otherAdmin.call('POST', '/api/v1/pnl/consolidated', PERIOD));
    expect(theirs.brands_included).toBe(2);
    const theirBrands = await Promise.all(
      other.brands.map(async (b) => ok(await otherAdmin.call('POST', `/api/v1/pnl/brand/${b.id}`, PERIOD))),
    );
    expect(theirs.summary.net_revenue).toBeCloseTo(
      sum(
        theirBrands.map((b) => b.summary),
        'net_revenue',
      ),
      2,
    );
    expect(theirs.summary.net_revenue).not.toBeCloseTo(mine.summary.net_revenue, 2);
    const brandId = chain.brands[0]!.id;
    refused(
      await otherAdmin.call('POST', `/api/v1/pnl/brand/${brandId}`, PERIOD),
      404,
      `Brand not found: ${brandId}`,
    );
    refused(await otherAdmin.call('POST', `/api/v1/pnl/region/${chain.regions[0]!.id}`, PERIOD), 404);
    refused(
      await otherAdmin.call('POST', '/api/v1/pnl/consolidated', { ...PERIOD, brand_ids: [brandId] }),
      404,
    );
    refused(
      await otherAdmin.call('POST', '/api/v1/pnl/compare', {
        ...PERIOD,
        brand_ids: [brandId, other.brands[0]!.id],
      }),
      404,
    );
    refused(
      await otherAdmin.call('POST', '/api/v1/pnl/trend', {
        ...PERIOD,
        metric: 'net_revenue',
        brand_id: brandId,
      }),
      404,
    );
    refused(
      await otherAdmin.call('POST', '/api/v1/pnl/custom', {
        ...PERIOD,
        sections: ['revenue'],
        filters: { location_id: chain.stores[0]!.id },
      }),
      404,
    );
  });
});
