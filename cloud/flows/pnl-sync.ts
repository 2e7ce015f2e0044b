/**
 * P&L spans sync and tenancy: the stores' orders, items, payments, punches, recipes and menu items
 * reach the P&L rollups in the transaction of the push that brought them (so a rollup never
 * misses or double-counts a row), and the reports read the tenant's brands, regions and locations
 * from tenancy.
 */
import { sql } from 'kysely';
import type { Fields, SyncTableName } from '../../shared/sync/registry.ts';
import type { Db } from '../db/index.ts';
import {
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

const PAGE = 500;

/**
 * Holds one store's rollups until the push's transaction ends. A day is rebuilt by deleting its
 * rows and inserting them again, so two pushes of one store applied at once on PostgreSQL (a retry
 * beside the original, say) would both insert the day and one would fail. SQLite has one writer.
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
  const observers: Array<[SyncTableName, Recorder]> = [
    ['orders', recordOrders],
    ['order_items', recordOrderItems],
    ['payments', recordPayments],
    ['time_punches', async (trx, at, rows) => recordPunches(trx, at, await timezoneOf(trx, at), rows)],
    ['recipes', recordRecipes],
    ['menu_items', recordMenuItems],
  ];
  for (const [table, record] of observers)
    sync.observe(table, async (trx, scope, rows) => {
      if (options.locking) await lockStoreRollups(trx, scope);
      await record(
        trx,
        scope,
        rows.map(({ fields }) => fields),
      );
    });
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
