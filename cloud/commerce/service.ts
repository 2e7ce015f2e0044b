import type { Clock } from '../../shared/clock.ts';
import type { Fields, SyncTableName } from '../../shared/sync/registry.ts';
import type { Db } from '../db/index.ts';
import * as errors from './errors.ts';
import { createCommerceStore, type OrderFilter, type OrderKey } from './store.ts';
import { toOrder, toPayment } from './views.ts';

/**
 * One row head office writes at a store: its fields decided from the row as it stands (undefined
 * leaves it as it is), and the domain events the change makes at that store.
 */
export interface StoreEdit {
  table: SyncTableName;
  rowId: string;
  fields: (current: Fields | undefined) => Fields | null | undefined;
  events?: (
    before: Fields | undefined,
    after: Fields | null,
    version: number,
  ) => Array<{ type: string; data: object }>;
}

/** Writes head office's edits of one store's rows and queues them for its appliance, in one transaction. */
export type EditStore = (
  tenantId: string,
  locationId: string,
  edits: StoreEdit[],
) => Promise<{ last_seq: number | null }>;

export interface CommerceDeps {
  db: Db;
  clock: Clock;
  editStore: EditStore;
  /** The brand items a store's menu rows stand for, by the store's row id. */
  catalogOf(tenantId: string, locationId: string): Promise<ReadonlyMap<string, string>>;
}

/** Who is asking: their tenant, and the one store their session is for, if it is for one. */
export interface Viewer {
  tenantId: string;
  locationId?: string | undefined;
}

export interface OrderListQuery {
  location_id?: string | undefined;
  business_day?: string | undefined;
  business_day_from?: string | undefined;
  business_day_to?: string | undefined;
  status?: string[] | undefined;
  order_type?: string[] | undefined;
  number?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** A session for one store sees that store only; anything else of the tenant is not found. */
export const sees = (viewer: Viewer, locationId: string) =>
  viewer.locationId === undefined || viewer.locationId === locationId;

/** A page's last order as `<created_at>_<id>`, as the store's own list writes it. */
const cursorOf = (key: { created_at: string; id: string }) => `${key.created_at}_${key.id}`;

function afterCursor(cursor: string | undefined): OrderKey | undefined {
  if (cursor === undefined) return undefined;
  const split = cursor.lastIndexOf('_');
  return { createdAt: cursor.slice(0, split), id: cursor.slice(split + 1) };
}

/**
 * Head office's commerce: every store's orders and payments, and the actions head office takes
 * on them. Reads come from the commerce projection; actions are edits of the synced rows, which
 * the store applies on its next pull (server_wins: head office's word stands).
 */
export function createCommerceService(deps: CommerceDeps) {
  const store = createCommerceStore(deps.db);
  const now = () => deps.clock.now().toISOString();

  async function requireOrder(viewer: Viewer, id: string) {
    const row = await store.order(viewer.tenantId, id);
    if (!row || !sees(viewer, row.location_id)) throw errors.orderNotFound();
    return row;
  }

  async function orderView(viewer: Viewer, id: string) {
    const row = await requireOrder(viewer, id);
    const [items, payments] = await Promise.all([
      store.childrenOf('commerce_order_items', viewer.tenantId, [id]),
      store.childrenOf('commerce_payments', viewer.tenantId, [id]),
    ]);
    return {
      ...toOrder(row, items, await deps.catalogOf(viewer.tenantId, row.location_id)),
      payments: payments.map(toPayment).sort((a, b) => a.created_at.localeCompare(b.created_at)),
    };
  }

  return {
    /** The tenant's orders, newest first, each with its items; keyset-paged. */
    async listOrders(viewer: Viewer, query: OrderListQuery) {
      if (query.location_id !== undefined && !sees(viewer, query.location_id))
        return { items: [], next_cursor: null };
      const locationId = query.location_id ?? viewer.locationId;
      const filter: OrderFilter = {
        locationIds: locationId === undefined ? undefined : [locationId],
        businessDayFrom: query.business_day ?? query.business_day_from,
        businessDayTo: query.business_day ?? query.business_day_to,
        statuses: query.status,
        orderTypes: query.order_type,
        number: query.number,
      };
      const rows = await store.orders(viewer.tenantId, filter, afterCursor(query.cursor), query.limit + 1);
      const page = rows.slice(0, query.limit);
      const items = await store.childrenOf(
        'commerce_order_items',
        viewer.tenantId,
        page.map((row) => row.id),
      );
      const byOrder = new Map<string, typeof items>();
      for (const item of items) byOrder.set(item.order_id, [...(byOrder.get(item.order_id) ?? []), item]);
      const catalogs = new Map<string, ReadonlyMap<string, string>>();
      for (const locationId of new Set(page.map((row) => row.location_id)))
        catalogs.set(locationId, await deps.catalogOf(viewer.tenantId, locationId));
      const last = page.at(-1);
      return {
        items: page.map((row) => toOrder(row, byOrder.get(row.id) ?? [], catalogs.get(row.location_id))),
        next_cursor: rows.length > query.limit && last ? cursorOf(last) : null,
      };
    },

    getOrder: orderView,

    /**
     * Voids an order from head office by the store's own rule (an order completed or already
     * cancelled cannot be), judged on the cloud's row under its lock. The store applies it on
     * its next pull, even over a completion it has not pushed yet: head office's word stands.
     */
    async cancelOrder(viewer: Viewer, id: string) {
      const row = await requireOrder(viewer, id);
      await deps.editStore(viewer.tenantId, row.location_id, [
        {
          table: 'orders',
          rowId: id,
          fields: (current) => {
            if (!current) throw errors.orderNotFound();
            if (current.status === 'completed' || current.status === 'cancelled')
              throw errors.invalidTransition(String(current.status), 'cancelled');
            return { ...current, status: 'cancelled', updated_at: now() };
          },
        },
      ]);
      return orderView(viewer, id);
    },

    /**
     * Gives back part or all of a captured payment (all that is left when no amount is given);
     * never more than was paid less what was refunded before, at the store or here.
     */
    async refundPayment(viewer: Viewer, id: string, amountMinor: number | undefined) {
      const payment = await store.payment(viewer.tenantId, id);
      if (!payment || !sees(viewer, payment.location_id)) throw errors.paymentNotFound();
      await deps.editStore(viewer.tenantId, payment.location_id, [
        {
          table: 'payments',
          rowId: id,
          fields: (current) => {
            if (!current) throw errors.paymentNotFound();
            if (current.status !== 'captured') throw errors.notCaptured(String(current.status));
            const refunded = Number(current.refunded_minor);
            const refundable = Number(current.amount_minor) - refunded;
            const amount = amountMinor ?? refundable;
            if (amount > refundable || refundable === 0) throw errors.notRefundable(refundable);
            return { ...current, refunded_minor: refunded + amount, updated_at: now() };
          },
        },
      ]);
      const updated = await store.payment(viewer.tenantId, id);
      return toPayment(updated!);
    },
  };
}

export type CommerceService = ReturnType<typeof createCommerceService>;
