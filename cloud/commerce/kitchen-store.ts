import { sql } from 'kysely';
import type { Db } from '../db/index.ts';
import type { RouteRow, StationRow } from './tables.ts';

/** The brand's route of an item, as opposed to one store's own. */
export const BRAND_ROUTE = '';

/** The brand stations' and routing's queries. */
export function createKitchenStore(db: Db) {
  return {
    insertStation: (row: StationRow) => db.insertInto('commerce_stations').values(row).execute(),
    updateStation: (tenantId: string, id: string, patch: Partial<StationRow>) =>
      db
        .updateTable('commerce_stations')
        .set(patch)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .execute(),
    station: (tenantId: string, id: string) =>
      db
        .selectFrom('commerce_stations')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    stations: (tenantId: string, brandId: string, after: string | undefined, limit: number) =>
      db
        .selectFrom('commerce_stations')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('brand_id', '=', brandId)
        .$if(after !== undefined, (q) => q.where('id', '>', after!))
        .orderBy('id')
        .limit(limit)
        .execute(),
    stationsByIds: (tenantId: string, ids: readonly string[]) =>
      ids.length === 0
        ? Promise.resolve([] as StationRow[])
        : db
            .selectFrom('commerce_stations')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('id', 'in', ids)
            .execute(),
    stationIds: async (tenantId: string, brandId: string) =>
      (
        await db
          .selectFrom('commerce_stations')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('brand_id', '=', brandId)
          .execute()
      ).map((row) => row.id),
    /** Another station of the brand by this name, whatever its case. */
    nameTaken: async (tenantId: string, brandId: string, name: string, exceptId?: string) =>
      (await db
        .selectFrom('commerce_stations')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('brand_id', '=', brandId)
        .where(sql<string>`lower(name)`, '=', name.toLowerCase())
        .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId!))
        .executeTakeFirst()) !== undefined,

    /** The items' routes: the brand's, and one store's own when a store is named (every store's when not). */
    routes: (tenantId: string, itemIds: readonly string[], locationId?: string) =>
      itemIds.length === 0
        ? Promise.resolve([] as RouteRow[])
        : db
            .selectFrom('commerce_routes')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('item_id', 'in', itemIds)
            .$if(locationId !== undefined, (q) => q.where('location_id', 'in', [BRAND_ROUTE, locationId!]))
            .execute(),
    async setRoutes(
      tenantId: string,
      itemId: string,
      locationIds: readonly string[],
      stationId: string,
      at: string,
    ) {
      await db
        .insertInto('commerce_routes')
        .values(
          locationIds.map((locationId) => ({
            tenant_id: tenantId,
            item_id: itemId,
            location_id: locationId,
            station_id: stationId,
            updated_at: at,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'item_id', 'location_id'])
            .doUpdateSet({ station_id: stationId, updated_at: at }),
        )
        .execute();
    },
    /** Drops the stores' own routes of an item: the brand's applies to every store again. */
    clearStoreRoutes: (tenantId: string, itemId: string) =>
      db
        .deleteFrom('commerce_routes')
        .where('tenant_id', '=', tenantId)
        .where('item_id', '=', itemId)
        .where('location_id', '!=', BRAND_ROUTE)
        .execute(),
  };
}
