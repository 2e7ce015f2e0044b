/**
 * Commerce spans sync: the stores' orders, lines and payments reach head office's views in the
 * transaction that brings them (a push, or head office's own edit), and head office's actions
 * are edits of the synced rows, queued for the store by sync.
 */
import type { SyncTableName } from '../../shared/sync/registry.ts';
import {
  type MenuService,
  recordCalendars,
  recordOrderItems,
  recordOrders,
  recordPayments,
  recordPunches,
  recordStockItems,
  recordStockMovements,
  type StoreDirectory,
  type StoreEdit,
  type Where,
  type Written,
} from '../commerce/index.ts';
import type { Db } from '../db/index.ts';
import type { SyncService } from '../sync/index.ts';
import type { TenancyService } from '../tenancy/index.ts';

export function linkCommerce(sync: SyncService, tenancy: TenancyService) {
  const views: Array<[SyncTableName, (db: Db, at: Where, rows: Written[]) => Promise<unknown>]> = [
    ['orders', recordOrders],
    ['order_items', recordOrderItems],
    ['payments', recordPayments],
    ['inventory_items', recordStockItems],
    ['inventory_movements', recordStockMovements],
    ['location_settings', recordCalendars],
    [
      'time_punches',
      // Read on the push's own transaction: SQLite has one connection, which the push holds.
      async (trx, at, rows) =>
        recordPunches(
          trx,
          at,
          rows,
          (await tenancy.findLocationIn(trx, at.tenantId, at.locationId))?.timezone,
        ),
    ],
  ];
  for (const [table, record] of views)
    sync.observe(table, (trx, scope, rows) => record(trx, scope, rows).then(() => {}));
}

/** The tenant's stores as head office's time clock and sales figures see them, from tenancy. */
export function commerceStores(tenancy: TenancyService): StoreDirectory {
  const info = (location: { id: string; name: string; timezone: string }) => ({
    id: location.id,
    name: location.name,
    timezone: location.timezone,
  });
  return {
    store: async (tenantId, locationId) => {
      const location = await tenancy.findLocation(tenantId, locationId);
      return location === undefined ? undefined : info(location);
    },
    async stores(tenantId, filter) {
      const stores = [];
      for (let after: string | undefined; ; ) {
        const { items } = await tenancy.listLocations(
          tenantId,
          { limit: PAGE, ...(after ? { after } : {}) },
          filter,
        );
        stores.push(...items.map(info));
        if (items.length < PAGE) return stores;
        after = items.at(-1)!.id;
      }
    },
  };
}

/** Head office's edits of a store's rows, written by sync. */
export const storeEdits = (sync: SyncService) => (tenantId: string, locationId: string, edits: StoreEdit[]) =>
  sync.editFromCloud(tenantId, locationId, edits);

const PAGE = 500;

/** What the brand menus ask of tenancy (brands and their stores) and of sync (how far stores pulled). */
export function menuLookups(tenancy: TenancyService, sync: SyncService) {
  return {
    async brandExists(tenantId: string, brandId: string) {
      try {
        await tenancy.getGroup('brands', tenantId, brandId);
        return true;
      } catch (error) {
        if ((error as { status?: number }).status === 404) return false;
        throw error;
      }
    },
    async locationsOfBrand(tenantId: string, brandId: string) {
      const ids: string[] = [];
      for (let after: string | undefined; ; ) {
        const { items } = await tenancy.listLocations(
          tenantId,
          { limit: PAGE, ...(after ? { after } : {}) },
          { brandId },
        );
        ids.push(...items.map((location) => location.id));
        if (items.length < PAGE) return ids;
        after = items.at(-1)!.id;
      }
    },
    brandOfLocation: async (tenantId: string, locationId: string) => {
      const location = await tenancy.findLocation(tenantId, locationId);
      return location === undefined ? undefined : location.brand_id;
    },
    pulledCursors: (tenantId: string, locationIds: readonly string[]) =>
      sync.pulledCursors(tenantId, locationIds),
  };
}

/** A store starting over from a snapshot (a new store's first sync) gets its brand's menu first. */
export function linkStoreMenus(sync: SyncService, menu: MenuService) {
  sync.beforeSnapshot((scope) => menu.fillStore(scope.tenantId, scope.locationId));
}
