import { sql } from 'kysely';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import { member, pnlCloud, refused, seedChain } from './pnl-cloud.ts';

const PERIOD = { start_date: '2026-01-01', end_date: '2026-01-31' };

describe.each(backends)('P&L report failures (%s)', (backend) => {
  let cloud: Awaited<ReturnType<typeof pnlCloud>>;
  let chain: Awaited<ReturnType<typeof seedChain>>;
  let admin: Awaited<ReturnType<typeof member>>;

  beforeAll(async () => {
    cloud = await pnlCloud(backend);
    chain = await seedChain(cloud, 'broken', {
      brands: ['A', 'B'],
      regions: ['R'],
      stores: [{ name: 'S1', brand: 0, region: 0 }],
    });
    admin = await member(cloud, chain.tenant.id, 'admin@broken.test', ['tenant_admin']);
    // The rollups gone: every report's query fails.
    await sql`drop table pnl_days`.execute(cloud.store.db);
  });
  afterAll(() => cloud.close());

  it("answers 500 with the endpoint's words followed by the error's text", async () => {
    const cases: Array<[string, unknown, string]> = [
      ['/api/v1/pnl/consolidated', PERIOD, 'Failed to generate P&L: '],
      [`/api/v1/pnl/brand/${chain.brands[0]!.id}`, PERIOD, 'Failed to generate brand P&L: '],
      [`/api/v1/pnl/region/${chain.regions[0]!.id}`, PERIOD, 'Failed to generate regional P&L: '],
      [
        '/api/v1/pnl/compare',
        { ...PERIOD, brand_ids: chain.brands.map((b) => b.id) },
        'Failed to compare brands: ',
      ],
      ['/api/v1/pnl/custom', { ...PERIOD, sections: ['revenue'] }, 'Failed to generate custom report: '],
      ['/api/v1/pnl/trend', { ...PERIOD, metric: 'net_revenue' }, 'Failed to get trend data: '],
    ];
    for (const [url, body, prefix] of cases)
      refused(
        await admin.call('POST', url, body),
        500,
        new RegExp(`^${prefix.replace(/[&]/g, '\\$&')}.*pnl_days`),
      );
  });
});
