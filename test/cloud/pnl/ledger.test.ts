import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import { member, ok, pnlCloud, refused, seedChain } from './pnl-cloud.ts';

const CSV = { 'content-type': 'text/csv' };

describe.each(backends)('P&L ledger (%s)', (backend) => {
  let cloud: Awaited<ReturnType<typeof pnlCloud>>;
  let chain: Awaited<ReturnType<typeof seedChain>>;
  let rival: Awaited<ReturnType<typeof seedChain>>;
  let admin: Awaited<ReturnType<typeof member>>;
  let rivalAdmin: Awaited<ReturnType<typeof member>>;

  beforeAll(async () => {
    cloud = await pnlCloud(backend);
    chain = await seedChain(cloud, 'ledger', {
      brands: ['A', 'B'],
      regions: ['R'],
      stores: [
        { name: 'S1', brand: 0, region: 0 },
        { name: 'S2', brand: 1, region: 0 },
      ],
    });
    rival = await seedChain(cloud, 'rival', {
      brands: ['X'],
      regions: ['Y'],
      stores: [{ name: 'Z', brand: 0, region: 0 }],
    });
    admin = await member(cloud, chain.tenant.id, 'admin@ledger.test', ['tenant_admin']);
    rivalAdmin = await member(cloud, rival.tenant.id, 'admin@rival.test', ['tenant_admin']);
  });
  afterAll(() => cloud.close());

  it('records, lists by page, reads and deletes expenses', async () => {
    const store = chain.stores[0]!.id;
    const created = ok(
      await admin.call('POST', '/api/v1/pnl/ledger/expenses', {
        location_id: store,
        expense_date: '2026-04-01',
        category: 'occupancy',
        amount: 1234.56,
        description: 'April rent',
      }),
      201,
    );
    expect(created).toMatchObject({
      location_id: store,
      brand_id: null,
      amount: 1234.56,
      category: 'occupancy',
    });
    for (let i = 0; i < 4; i += 1)
      ok(
        await admin.call('POST', '/api/v1/pnl/ledger/expenses', {
          brand_id: chain.brands[1]!.id,
          expense_date: `2026-04-0${2 + i}`,
          category: 'marketing',
          amount: i,
        }),
        201,
      );
    const first = ok(await admin.call('GET', '/api/v1/pnl/ledger/expenses?limit=3'));
    expect(first.items).toHaveLength(3);
    const second = ok(
      await admin.call('GET', `/api/v1/pnl/ledger/expenses?limit=3&cursor=${first.next_cursor}`),
    );
    expect(second.items).toHaveLength(2);
    expect(second.next_cursor).toBeNull();
    const marketing = ok(
      await admin.call('GET', '/api/v1/pnl/ledger/expenses?category=marketing&start_date=2026-04-03'),
    );
    expect(marketing.items).toHaveLength(3);
    expect(ok(await admin.call('GET', `/api/v1/pnl/ledger/expenses/${created.id}`))).toEqual(created);
    expect((await admin.call('DELETE', `/api/v1/pnl/ledger/expenses/${created.id}`)).statusCode).toBe(204);
    refused(await admin.call('GET', `/api/v1/pnl/ledger/expenses/${created.id}`), 404, 'Expense not found');
    refused(
      await admin.call('DELETE', `/api/v1/pnl/ledger/expenses/${created.id}`),
      404,
      'Expense not found',
    );
  });

  it('validates an expense', async () => {
    const url = '/api/v1/pnl/ledger/expenses';
    const store = chain.stores[0]!.id;
    const base = { location_id: store, expense_date: '2026-04-01', category: 'utilities', amount: 10 };
    refused(
      await admin.call('POST', url, { ...base, brand_id: chain.brands[0]!.id }),
      400,
      'exactly one of location_id and brand_id is required',
    );
    refused(
      await admin.call('POST', url, { ...base, location_id: undefined }),
      400,
      'exactly one of location_id and brand_id is required',
    );
    refused(await admin.call('POST', url, { ...base, category: 'rent' }), 400, /^body.category: /);
    refused(await admin.call('POST', url, { ...base, amount: -1 }), 400, /^body.amount: /);
    refused(
      await admin.call('POST', url, { ...base, amount: 1.234 }),
      400,
      /amount: must be a number of at least 0 with at most 2 decimals/,
    );
    refused(
      await admin.call('POST', url, { ...base, expense_date: '2026-13-01' }),
      400,
      /expense_date: expected a calendar date/,
    );
    refused(
      await admin.call('POST', url, { ...base, location_id: rival.stores[0]!.id }),
      404,
      `Location not found: ${rival.stores[0]!.id}`,
    );
    refused(
      await admin.call('POST', url, {
        brand_id: rival.brands[0]!.id,
        expense_date: '2026-04-01',
        category: 'other',
        amount: 1,
      }),
      404,
    );
  });

  it('imports a CSV whole, or refuses it naming every bad line', async () => {
    const store = chain.stores[1]!.id;
    const good = [
      'expense_date,category,amount,location_id,brand_id,description',
      `2026-05-01,utilities,10.5,${store},,"Water, sewage"`,
      `2026-05-02,marketing,99,,${chain.brands[0]!.id},"Flyers ""A5"""`,
    ].join('\r\n');
    expect(ok(await admin.call('POST', '/api/v1/pnl/ledger/expenses/import', good, CSV), 201)).toEqual({
      imported: 2,
    });
    const listed = ok(
      await admin.call('GET', '/api/v1/pnl/ledger/expenses?start_date=2026-05-01&end_date=2026-05-31'),
    );
    expect(listed.items.map((e: { description: string }) => e.description).sort()).toEqual([
      'Flyers "A5"',
      'Water, sewage',
    ]);
    const bad = [
      'expense_date,category,amount,location_id',
      `2026-05-03,utilities,1,${store}`,
      `2026-05-32,utilities,1,${store}`,
      `2026-05-04,rent,x,${store}`,
      '2026-05-05,utilities,1,nowhere',
    ].join('\n');
    const detail = refused(await admin.call('POST', '/api/v1/pnl/ledger/expenses/import', bad, CSV), 400);
    expect(detail).toBe(
      'The CSV was not imported: 3 invalid line(s): line 3: expense_date: expected a calendar date in YYYY-MM-DD form; ' +
        'line 4: category: must be one of occupancy, utilities, marketing, other, other_income, other_expenses, amount: must be a number of at least 0 with at most 2 decimals; ' +
        'line 5: location_id: unknown location nowhere',
    );
    const after = ok(
      await admin.call('GET', '/api/v1/pnl/ledger/expenses?start_date=2026-05-03&end_date=2026-05-31'),
    );
    expect(after.items).toEqual([]);
    refused(
      await admin.call('POST', '/api/v1/pnl/ledger/expenses/import', 'date,amount\n2026-01-01,1', CSV),
      400,
      /^line 1: header has unknown column date/,
    );
    refused(await admin.call('POST', '/api/v1/pnl/ledger/expenses/import', '', CSV), 400);
    refused(
      await admin.call(
        'POST',
        '/api/v1/pnl/ledger/expenses/import',
        'expense_date,category,amount,location_id\n',
        CSV,
      ),
      400,
      'The CSV has no expense lines',
    );
  });

  it('records wage rates per staff member, effective-dated', async () => {
    const url = '/api/v1/pnl/ledger/wage-rates';
    const first = ok(
      await admin.call('POST', url, { staff_id: admin.id, hourly_rate: 15, effective_from: '2026-01-01' }),
      201,
    );
    ok(
      await admin.call('POST', url, { staff_id: admin.id, hourly_rate: 16, effective_from: '2026-03-01' }),
      201,
    );
    const replaced = ok(
      await admin.call('POST', url, { staff_id: admin.id, hourly_rate: 15.5, effective_from: '2026-01-01' }),
      201,
    );
    expect(replaced).toMatchObject({ id: first.id, hourly_rate: 15.5, effective_to: '2026-02-28' });
    const list = ok(await admin.call('GET', `${url}?staff_id=${admin.id}&limit=1`));
    expect(list.items).toHaveLength(1);
    expect(list.next_cursor).not.toBeNull();
    refused(
      await admin.call('POST', url, {
        staff_id: rivalAdmin.id,
        hourly_rate: 15,
        effective_from: '2026-01-01',
      }),
      404,
      `Staff member not found: ${rivalAdmin.id}`,
    );
    refused(
      await admin.call('POST', url, { staff_id: admin.id, hourly_rate: 15, effective_from: 'soon' }),
      400,
      /^Invalid effective_from/,
    );
    refused(
      await admin.call('POST', url, { staff_id: admin.id, hourly_rate: -1, effective_from: '2026-01-01' }),
      400,
      /^body.hourly_rate/,
    );
    refused(await rivalAdmin.call('DELETE', `${url}/${first.id}`), 404, 'Wage rate not found');
    expect((await admin.call('DELETE', `${url}/${first.id}`)).statusCode).toBe(204);
    expect(ok(await rivalAdmin.call('GET', url)).items).toEqual([]);
  });

  it('records stock item costs and beverage classes', async () => {
    const cost = ok(await admin.call('PUT', '/api/v1/pnl/ledger/item-costs/inv-1', { unit_cost: 0.012345 }));
    expect(cost).toMatchObject({ inventory_item_id: 'inv-1', unit_cost: 0.012345 });
    refused(
      await admin.call('PUT', '/api/v1/pnl/ledger/item-costs/inv-1', { unit_cost: 0.0000001 }),
      400,
      /^unit_cost/,
    );
    refused(
      await admin.call('PUT', '/api/v1/pnl/ledger/item-costs/inv-1', { cost: 1 }),
      400,
      /body.unit_cost: is required/,
    );
    expect(ok(await admin.call('GET', '/api/v1/pnl/ledger/item-costs')).items).toHaveLength(1);
    expect(ok(await rivalAdmin.call('GET', '/api/v1/pnl/ledger/item-costs')).items).toEqual([]);
    refused(
      await rivalAdmin.call('DELETE', '/api/v1/pnl/ledger/item-costs/inv-1'),
      404,
      'Item cost not found',
    );
    expect((await admin.call('DELETE', '/api/v1/pnl/ledger/item-costs/inv-1')).statusCode).toBe(204);

    const klass = ok(
      await admin.call('PUT', '/api/v1/pnl/ledger/classifications/menu_item/m-1', { cost_class: 'beverage' }),
    );
    expect(klass).toMatchObject({ kind: 'menu_item', ref_id: 'm-1', cost_class: 'beverage' });
    refused(
      await admin.call('PUT', '/api/v1/pnl/ledger/classifications/dish/m-1', { cost_class: 'beverage' }),
      400,
      /^params.kind/,
    );
    refused(
      await admin.call('PUT', '/api/v1/pnl/ledger/classifications/category/c-1', { cost_class: 'wine' }),
      400,
      /^body.cost_class/,
    );
    expect(ok(await admin.call('GET', '/api/v1/pnl/ledger/classifications')).items).toHaveLength(1);
    refused(
      await rivalAdmin.call('DELETE', '/api/v1/pnl/ledger/classifications/menu_item/m-1'),
      404,
      'Classification not found',
    );
    expect((await admin.call('DELETE', '/api/v1/pnl/ledger/classifications/menu_item/m-1')).statusCode).toBe(
      204,
    );
  });

  it('records budgets per brand or location and month', async () => {
    const url = '/api/v1/pnl/ledger/budgets';
    const brandId = chain.brands[0]!.id;
    const created = ok(
      await admin.call('PUT', url, { brand_id: brandId, month: '2026-06', amounts: { net_revenue: 50000 } }),
      201,
    );
    expect(created).toMatchObject({
      brand_id: brandId,
      location_id: null,
      month: '2026-06',
      amounts: { net_revenue: 50000 },
    });
    const replaced = ok(
      await admin.call('PUT', url, { brand_id: brandId, month: '2026-06', amounts: { labor_cost: 9000.5 } }),
    );
    expect(replaced).toMatchObject({ id: created.id, amounts: { labor_cost: 9000.5 } });
    ok(
      await admin.call('PUT', url, { location_id: chain.stores[0]!.id, month: '2026-06', amounts: {} }),
      201,
    );
    expect(ok(await admin.call('GET', `${url}?month=2026-06`)).items).toHaveLength(2);
    refused(
      await admin.call('PUT', url, { month: '2026-06', amounts: {} }),
      400,
      'Exactly one of brand_id and location_id is required',
    );
    refused(
      await admin.call('PUT', url, { brand_id: brandId, month: '2026-13', amounts: {} }),
      400,
      "Invalid month: expected YYYY-MM, got '2026-13'",
    );
    refused(
      await admin.call('PUT', url, { brand_id: brandId, month: '2026-06', amounts: { vibes: 1 } }),
      400,
      /^amounts.vibes: not a budgetable metric/,
    );
    refused(
      await admin.call('PUT', url, { brand_id: rival.brands[0]!.id, month: '2026-06', amounts: {} }),
      404,
    );
    refused(await rivalAdmin.call('DELETE', `${url}/${created.id}`), 404, 'Budget not found');
    expect((await admin.call('DELETE', `${url}/${created.id}`)).statusCode).toBe(204);
  });

  it('documents every P&L route in OpenAPI', async () => {
    const doc = (await cloud.app.inject({ url: '/openapi.json' })).json();
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/api/v1/pnl'));
    expect(paths).toEqual(
      expect.arrayContaining([
        '/api/v1/pnl/consolidated',
        '/api/v1/pnl/brand/{brand_id}',
        '/api/v1/pnl/region/{region_id}',
        '/api/v1/pnl/compare',
        '/api/v1/pnl/custom',
        '/api/v1/pnl/trend',
        '/api/v1/pnl/metrics',
        '/api/v1/pnl/sections',
        '/api/v1/pnl/ledger/expenses',
        '/api/v1/pnl/ledger/expenses/import',
        '/api/v1/pnl/ledger/budgets',
      ]),
    );
  });
});
