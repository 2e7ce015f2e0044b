import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import { item, member, menuItem, ok, order, pnlCloud, seedChain } from './pnl-cloud.ts';

const DAY = '2026-04-07';

/**
 * A store's pushes applied at once: each rebuilds the same day's rollup, one after the other (on
 * PostgreSQL under a per-store transaction lock), and the day holds every order once. The race it
 * guards against was found by the sync chaos test on PostgreSQL (a push delivered twice at once;
 * fast-check seed -73375554, path 5): both rebuilt the day and one failed with a 500.
 */
describe.each(backends)('P&L rollups under concurrent pushes of one store (%s)', (backend) => {
  let cloud: Awaited<ReturnType<typeof pnlCloud>>;
  let chain: Awaited<ReturnType<typeof seedChain>>;

  beforeAll(async () => {
    cloud = await pnlCloud(backend);
    chain = await seedChain(cloud, 'racing', {
      brands: ['Burgers', 'Tacos'],
      regions: ['North'],
      stores: [{ name: 'R1', brand: 0, region: 0 }],
    });
    await chain.stores[0]!.push([menuItem('m-burger', 'c-food')]);
  });

  afterAll(async () => {
    await cloud?.close();
  });

  it('applies every push, and the day counts each order once', async () => {
    const store = chain.stores[0]!;
    const push = (n: number) => {
      const placed = order(DAY, { subtotal: 100 * n });
      return store.push([placed, item(placed[1].id, 'm-burger', 1, 100 * n)]);
    };
    // Six at a time: the gateway admits eight pushes at once and answers more with 429.
    for (let n = 1; n <= 12; n += 6) await Promise.all([0, 1, 2, 3, 4, 5].map((k) => push(n + k)));

    const admin = await member(cloud, chain.tenant.id, 'admin@racing.test', ['tenant_admin']);
    const report = ok(
      await admin.call('POST', `/api/v1/pnl/brand/${chain.brands[0]!.id}`, {
        start_date: DAY,
        end_date: DAY,
      }),
    );
    // 1.00 + 2.00 + ... + 12.00
    expect(report.revenue.gross_revenue).toBe(78);
  });
});
