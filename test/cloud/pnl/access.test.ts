import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import { callerOf, member, ok, pnlCloud, refused, seedChain } from './pnl-cloud.ts';

const PERIOD = { start_date: '2026-01-01', end_date: '2026-01-31' };
/** Two brands in one region, a store each. */
const CHAIN = {
  brands: ['A', 'B'],
  regions: ['R'],
  stores: [
    { name: 'S1', brand: 0, region: 0 },
    { name: 'S2', brand: 1, region: 0 },
  ],
};
let chainSeq = 0;

describe.each(backends)('P&L access and validation (%s)', (backend) => {
  let cloud: Awaited<ReturnType<typeof pnlCloud>>;
  let chain: Awaited<ReturnType<typeof seedChain>>;
  const callers: Record<string, Awaited<ReturnType<typeof member>>> = {};

  beforeAll(async () => {
    cloud = await pnlCloud(backend);
    chain = await seedChain(cloud, 'access', CHAIN);
    for (const role of [
      'manager',
      'restaurant_manager',
      'tenant_admin',
      'platform_admin',
      'super_admin',
      'staff',
      'finance',
    ])
      callers[role] = await member(cloud, chain.tenant.id, `${role}@access.test`, [role]);
  });
  afterAll(() => cloud.close());

  const admin = () => callers.tenant_admin!.call;
  const reports = () =>
    [
      ['POST', '/api/v1/pnl/consolidated', PERIOD],
      ['POST', `/api/v1/pnl/brand/${chain.brands[0]!.id}`, PERIOD],
      ['POST', `/api/v1/pnl/region/${chain.regions[0]!.id}`, PERIOD],
      ['POST', '/api/v1/pnl/compare', { ...PERIOD, brand_ids: chain.brands.map((b) => b.id) }],
      ['POST', '/api/v1/pnl/custom', { ...PERIOD, sections: ['revenue'] }],
      ['POST', '/api/v1/pnl/trend', { ...PERIOD, metric: 'net_revenue' }],
      ['GET', '/api/v1/pnl/metrics', undefined],
      ['GET', '/api/v1/pnl/sections', undefined],
      ['GET', '/api/v1/pnl/ledger/expenses', undefined],
    ] as const;

  it('lets the reporting roles read every report and catalog', async () => {
    for (const role of ['manager', 'restaurant_manager', 'tenant_admin', 'platform_admin', 'super_admin'])
      for (const [method, url, body] of reports()) ok(await callers[role]!.call(method, url, body));
  });

  it('refuses other roles (403), no token (401), a bad token (401) and a token without tenant (400)', async () => {
    const noTenant = await cloud.services.identity.tokens.issueAccess({
      sub: callers.tenant_admin!.id,
      email: 'tenant_admin@access.test',
      roles: ['tenant_admin'],
      session_id: 'none',
    } as never);
    for (const [method, url, body] of reports()) {
      for (const role of ['staff', 'finance'])
        refused(await callers[role]!.call(method, url, body), 403, 'Insufficient permissions');
      refused(await callerOf(cloud)(method, url, body), 401, 'Not authenticated');
      refused(await callerOf(cloud, 'not.a.token')(method, url, body), 401, 'Not authenticated');
      refused(await callerOf(cloud, noTenant)(method, url, body), 400, 'Tenant ID required');
    }
  });

  it('keeps ledger writes to the reporting roles less store managers', async () => {
    const body = {
      location_id: chain.stores[0]!.id,
      expense_date: '2026-01-05',
      category: 'utilities',
      amount: 10,
    };
    refused(
      await callers.manager!.call('POST', '/api/v1/pnl/ledger/expenses', body),
      403,
      'Insufficient permissions',
    );
    refused(
      await callers.staff!.call('POST', '/api/v1/pnl/ledger/expenses', body),
      403,
      'Insufficient permissions',
    );
    for (const role of ['restaurant_manager', 'tenant_admin', 'platform_admin', 'super_admin'])
      ok(await callers[role]!.call('POST', '/api/v1/pnl/ledger/expenses', body), 201);
  });

  it('answers the catalogs of spec 2', async () => {
    const metrics = ok(await admin()('GET', '/api/v1/pnl/metrics'));
    expect(Object.keys(metrics)).toEqual([
      'revenue',
      'cost_of_goods_sold',
      'profitability',
      'operating_expenses',
    ]);
    expect(metrics.revenue.map((m: { name: string }) => m.name)).toEqual([
      'gross_revenue',
      'discounts',
      'refunds',
      'net_revenue',
    ]);
    expect(metrics.profitability[1]).toEqual({
      name: 'gross_margin',
      label: 'Gross margin %',
      type: 'percentage',
    });
    const sections = ok(await admin()('GET', '/api/v1/pnl/sections'));
    expect(sections.map((s: { type: string }) => s.type)).toEqual([
      'revenue',
      'cogs',
      'operating_expenses',
      'other_income',
      'other_expenses',
    ]);
  });

  it('refuses bad dates and periods with a clear detail', async () => {
    const url = '/api/v1/pnl/consolidated';
    refused(
      await admin()('POST', url, { ...PERIOD, start_date: '2026-02-30' }),
      400,
      /^Invalid start_date: expected a calendar date in YYYY-MM-DD form/,
    );
    refused(await admin()('POST', url, { ...PERIOD, end_date: '31/01/2026' }), 400, /^Invalid end_date/);
    refused(
      await admin()('POST', url, { start_date: '2026-02-01', end_date: '2026-01-01' }),
      400,
      'start_date must not be after end_date',
    );
    refused(await admin()('POST', url, { start_date: '2026-02-01' }), 400, 'body.end_date: is required');
    // A number where a date belongs is a type error, reported as such rather than read as text.
    refused(await admin()('POST', url, { ...PERIOD, start_date: 5 }), 400, 'body.start_date: must be string');
    refused(
      await admin()('POST', url, { ...PERIOD, surprise: 1 }),
      400,
      'body.surprise: is not an accepted field',
    );
    refused(await admin()('POST', url, { ...PERIOD, include_budget: 'maybe' }), 400, /^body.include_budget/);
    refused(
      await admin()('POST', '/api/v1/pnl/trend', {
        ...PERIOD,
        metric: 'net_revenue',
        end_date: '2025-12-01',
      }),
      400,
    );
  });

  it('refuses unknown brands, regions and the other rules of each report', async () => {
    const unknown = '0190f000-0000-7000-8000-00000000dead';
    refused(
      await admin()('POST', `/api/v1/pnl/brand/${unknown}`, PERIOD),
      404,
      `Brand not found: ${unknown}`,
    );
    refused(
      await admin()('POST', `/api/v1/pnl/region/${unknown}`, PERIOD),
      404,
      `Region not found: ${unknown}`,
    );
    refused(
      await admin()('POST', '/api/v1/pnl/consolidated', { ...PERIOD, brand_ids: [unknown] }),
      404,
      `Brand not found: ${unknown}`,
    );
    const a = chain.brands[0]!.id;
    refused(
      await admin()('POST', '/api/v1/pnl/compare', { ...PERIOD, brand_ids: [a] }),
      400,
      'At least 2 brands required for comparison',
    );
    refused(
      await admin()('POST', '/api/v1/pnl/compare', { ...PERIOD, brand_ids: [a, a] }),
      400,
      'At least 2 brands required for comparison',
    );
    refused(await admin()('POST', '/api/v1/pnl/compare', PERIOD), 400, 'body.brand_ids: is required');
    refused(await admin()('POST', '/api/v1/pnl/compare', { ...PERIOD, brand_ids: [a, unknown] }), 404);
    refused(
      await admin()('POST', '/api/v1/pnl/compare', {
        ...PERIOD,
        brand_ids: chain.brands.map((b) => b.id),
        metrics: ['profit'],
      }),
      400,
      /^Unknown metric 'profit'/,
    );
    const picked = ok(
      await admin()('POST', '/api/v1/pnl/compare', {
        ...PERIOD,
        brand_ids: chain.brands.map((b) => b.id),
        metrics: ['net_margin'],
      }),
    );
    expect(Object.keys(picked.brands[0].metrics)).toEqual(['net_margin']);
    expect(Object.keys(picked.rankings)).toEqual(['net_margin']);
  });

  it('checks granularity and metric of a trend', async () => {
    const url = '/api/v1/pnl/trend';
    refused(
      await admin()('POST', url, { ...PERIOD, metric: 'net_revenue', granularity: 'hour' }),
      400,
      'Invalid granularity; must be one of day, week, month',
    );
    refused(await admin()('POST', url, { ...PERIOD, metric: 'fun' }), 400, /^Unknown metric 'fun'/);
    refused(await admin()('POST', url, PERIOD), 400, 'body.metric: is required');
    const weeks = ok(await admin()('POST', url, { ...PERIOD, metric: 'gross_margin', granularity: 'week' }));
    expect(weeks.data_points.map((p: { date: string }) => p.date)).toEqual([
      '2026-01-01',
      '2026-01-05',
      '2026-01-12',
      '2026-01-19',
      '2026-01-26',
    ]);
    expect(weeks.summary).toEqual({ min: 0, max: 0, avg: 0, trend_direction: 'flat', change_pct: 0 });
    const days = ok(await admin()('POST', url, { ...PERIOD, metric: 'net_revenue', granularity: 'day' }));
    expect(days.data_points).toHaveLength(31);
  });

  it('checks sections, group_by and filters of a custom report', async () => {
    // A chain of its own, whose expenses are only the four this test records: the writers' test
    // records its own in the shared chain.
    const slug = `access-custom-${++chainSeq}`;
    const own = await seedChain(cloud, slug, CHAIN);
    const call = (await member(cloud, own.tenant.id, `tenant_admin@${slug}.test`, ['tenant_admin'])).call;
    const expense = { location_id: own.stores[0]!.id, expense_date: '2026-01-05', category: 'utilities' };
    for (let i = 0; i < 4; i++)
      ok(await call('POST', '/api/v1/pnl/ledger/expenses', { ...expense, amount: 10 }), 201);
    const url = '/api/v1/pnl/custom';
    refused(await call('POST', url, PERIOD), 400, 'body.sections: is required');
    refused(
      await call('POST', url, { ...PERIOD, sections: [] }),
      400,
      'sections must name at least one section',
    );
    refused(
      await call('POST', url, { ...PERIOD, sections: ['revenue', 'taxes'] }),
      400,
      /^body.sections.1: /,
    );
    refused(
      await call('POST', url, { ...PERIOD, sections: ['revenue'], group_by: 'city' }),
      400,
      /^body.group_by: /,
    );
    refused(
      await call('POST', url, { ...PERIOD, sections: ['revenue'], filters: { city: 'Paris' } }),
      400,
      "Unknown filter 'city'; accepted filters are region_id, brand_id, location_id, min_revenue",
    );
    refused(
      await call('POST', url, { ...PERIOD, sections: ['revenue'], filters: { min_revenue: 'lots' } }),
      400,
      /^filters.min_revenue/,
    );
    refused(
      await call('POST', url, { ...PERIOD, sections: ['revenue'], filters: { brand_id: 7 } }),
      400,
      /^filters.brand_id/,
    );
    refused(
      await call('POST', url, { ...PERIOD, sections: ['revenue'], filters: { region_id: 'nope' } }),
      404,
      'Region not found: nope',
    );
    refused(
      await call('POST', url, { ...PERIOD, sections: ['revenue'], filters: { location_id: 'nope' } }),
      404,
      'Location not found: nope',
    );
    const data = ok(
      await call('POST', url, {
        ...PERIOD,
        sections: ['revenue', 'operating_expenses'],
        group_by: 'region',
        filters: { region_id: own.regions[0]!.id, min_revenue: 0 },
      }),
    );
    expect(data).toMatchObject({ group_by: 'region', sections_included: ['revenue', 'operating_expenses'] });
    expect(data.groups).toEqual([
      {
        group_key: own.regions[0]!.id,
        group_name: 'R',
        revenue: { gross_revenue: 0, discounts: 0, refunds: 0, net_revenue: 0 },
        // The four expenses of 10.00 recorded above.
        operating_expenses: {
          labor_cost: 0,
          occupancy_cost: 0,
          utilities: 40,
          marketing: 0,
          total_operating_expenses: 40,
        },
      },
    ]);
    const none = ok(
      await call('POST', url, { ...PERIOD, sections: ['cogs'], filters: { min_revenue: 0.01 } }),
    );
    expect(none.groups).toEqual([]);
    expect(none.totals).toEqual({ cogs: { food_cost: 0, beverage_cost: 0, total_cogs: 0 } });
  });
});
