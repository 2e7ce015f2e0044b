/**
 * Commerce spans sync: the stores' orders, lines and payments reach head office's views in the
 * transaction that brings them (a push, or head office's own edit), and head office's actions
 * are edits of the synced rows, queued for the store by sync.
 */
import type { SyncTableName } from '../../shared/sync/registry.ts';
import {
  recordOrderItems,
  recordOrders,
  recordPayments,
  type StoreEdit,
  type Where,
  type Written,
} from '../commerce/index.ts';
import type { Db } from '../db/index.ts';
import type { SyncService } from '../sync/index.ts';

export function linkCommerce(sync: SyncService) {
  const views: Array<[SyncTableName, (db: Db, at: Where, rows: Written[]) => Promise<unknown>]> = [
    ['orders', recordOrders],
    ['order_items', recordOrderItems],
    ['payments', recordPayments],
  ];
  for (const [table, record] of views)
    sync.observe(table, (trx, scope, rows) => record(trx, scope, rows).then(() => {}));
}

/** Head office's edits of a store's rows, written by sync. */
export const storeEdits = (sync: SyncService) => (tenantId: string, locationId: string, edits: StoreEdit[]) =>
  sync.editFromCloud(tenantId, locationId, edits);
