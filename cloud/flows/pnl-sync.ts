/**
 * P&L spans sync and tenancy: the stores' orders, items, payments, punches, recipes and menu items
 * (as pushed, edited by head office, or deleted) move the P&L rollups by what they change, in the
 * transaction that writes them (so a rollup never misses or double-counts a row), and the reports
 * read the tenant's brands, regions and locations from tenancy.
 *
 * Why in the transaction rather than a follower of the sync feed: a push's cost no longer depends
 * on the day's size (each row adds the difference from what it added before), so the follower's
 * only gain would be latency the push does not feel, at the price of a second durable cursor and
 * reports that lag the stores.
 */
import { sql } from 'kysely';
import type { Fields, SyncTableName } from '../../shared/sync/registry.ts';
import type { Db } from '../db/index.ts';
import {
  forgetCosting,
  forgetFacts,
  forgetOrders,
  forgetPunches,
  recordMenuItems,
  recordOrderItems,
  recordOrders,
  recordPayments,
  recordPunches,
  recordRecipes,
  type Structure,
} from '../pnl/index.ts';
import type { SyncService } from '../sync/index.ts';
import type { TenancyService } from '../tenancy/index.ts';

type Where = { tenantId: string; locationId: string };
type Recorder = (trx: Db, at: Where, rows: Fields[]) => Promise<void>;
type Forgetter = (trx: Db, at: Where, ids: string[]) => Promise<void>;

const PAGE = 500;

/**
 * Holds one store's rollups until the push's transaction ends: a row's difference is taken from
 * its stored fact, so two pushes of one store applied at once on PostgreSQL (a retry beside the
 * original, say) must not both read the same fact. SQLite has one writer.
 */
async function lockStoreRollups(trx: Db, at: Where) {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`pnl:${at.tenantId}:${at.locationId}`}, 0))`.execute(
    trx,
  );
}

export function linkPnl(sync: SyncService, tenancy: TenancyService, options: { locking: boolean }) {
  // Read on the push's own transaction: SQLite has one connection, which the push holds.
  const timezoneOf = async (trx: Db, at: Where) =>
    (await tenancy.findLocationIn(trx, at.tenantId, at.locationId))?.timezone ?? 'UTC';
  const observers: Array<[SyncTableName, Recorder, Forgetter]> = [
    ['orders', recordOrders, forgetOrders],
    ['order_items', recordOrderItems, (trx, at, ids) => forgetFacts(trx, at, 'pnl_lines', ids)],
    ['payments', recordPayments, (trx, at, ids) => forgetFacts(trx, at, 'pnl_payments', ids)],
    [
      'time_punches',
      async (trx, at, rows) => recordPunches(trx, at, await timezoneOf(trx, at), rows),
      async (trx, at, ids) => forgetPunches(trx, at, await timezoneOf(trx, at), ids),
    ],
    ['recipes', recordRecipes, (trx, at, ids) => forgetCosting(trx, at, 'pnl_recipes', ids)],
    ['menu_items', recordMenuItems, (trx, at, ids) => forgetCosting(trx, at, 'pnl_menu_items', ids)],
  ];
  const locked = (act: (trx: Db, at: Where) => Promise<void>) => async (trx: Db, at: Where) => {
    if (options.locking) await lockStoreRollups(trx, at);
    await act(trx, at);
  };
  for (const [table, record, forget] of observers)
    sync.observe(
      table,
      (trx, scope, rows) =>
        locked((t, at) =>
          record(
            t,
            at,
            rows.map(({ fields }) => fields),
          ),
        )(trx, scope),
      (trx, scope, ids) => locked((t, at) => forget(t, at, ids))(trx, scope),
    );
}

async function everything<T extends { id: string }>(
  list: (page: { limit: number; after?: string }) => Promise<{ items: T[] }>,
) {
  const all: T[] = [];
  for (let after: string | undefined; ; ) {
    const { items } = await list({ limit: PAGE, ...(after ? { after } : {}) });
    all.push(...items);
    if (items.length < PAGE) return all;
    after = items.at(-1)!.id;
  }
}

/** The tenant's brands, regions and locations as the reports group them. */
export function pnlStructure(tenancy: TenancyService) {
  return async (tenantId: string): Promise<Structure> => {
    const [brands, regions, locations] = await Promise.all([
      everything((page) => tenancy.listGroups('brands', tenantId, page)),
      everything((page) => tenancy.listGroups('regions', tenantId, page)),
      everything((page) => tenancy.listLocations(tenantId, page)),
    ]);
    return {
      brands: brands.map((b) => ({ id: b.id, name: b.name })),
      regions: regions.map((r) => ({ id: r.id, name: r.name })),
      locations: locations.map((l) => ({
        id: l.id,
        name: l.name,
        brand_id: l.brand_id,
        region_id: l.region_id,
      })),
    };
  };
}

export const pnlStaffExists = (tenancy: TenancyService) => async (tenantId: string, staffId: string) =>
  (await tenancy.findMember(tenantId, staffId)) !== undefined;
