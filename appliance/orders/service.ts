import type { Clock } from '../../shared/clock.ts';
import { toDecimal } from '../../shared/events.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { ApplianceDatabase, ChangeLog, GroupCommit } from '../db/index.ts';
import * as errors from './errors.ts';
import { type OrderListQuery, orderPage } from './listing.ts';
import {
  createOrderStore,
  type OrderItemRow,
  type OrderRow,
  type OrderStatus,
  type OrderType,
} from './store.ts';

export interface MenuItemForOrder {
  id: string;
  name: string;
  price_minor: number;
  available: boolean;
}

/** What orders need from the menu: today's names, prices and availability. */
export interface MenuLookup {
  itemsForOrder(ids: string[]): MenuItemForOrder[] | Promise<MenuItemForOrder[]>;
}

/** What orders need from the location: its business day and its tax. */
export interface LocationRules {
  businessDay(at: Date): string;
  taxFor(subtotalMinor: number): number;
}

export interface NewItem {
  menu_item_id: string;
  quantity: number;
  modifiers?: string[] | undefined;
  notes?: string | undefined;
}

export interface NewOrder {
  order_type: OrderType;
  table?: string | undefined;
  server?: { id: string; name: string } | undefined;
  items: NewItem[];
}

export interface OrderDeps {
  db: ApplianceDatabase;
  /** Commits new orders in groups (one fsync for many); each alone in a transaction without it. */
  commit?: GroupCommit | undefined;
  changes: ChangeLog;
  menu: MenuLookup;
  location: LocationRules;
  clock: Clock;
  newId: IdGenerator;
}

/** Ends a dry run's transaction: better-sqlite3 rolls back on any throw. */
class DryRunRollback extends Error {}

const lineTotal = (item: Pick<OrderItemRow, 'quantity' | 'unit_price_minor'>) =>
  item.quantity * item.unit_price_minor;

/** The order as the API shows it: the documented order data shape, plus what screens need. */
export function toOrder(order: OrderRow, items: OrderItemRow[]) {
  return {
    id: order.id,
    number: order.number,
    business_day: order.business_day,
    order_type: order.order_type,
    status: order.status,
    table: order.table_label,
    server: order.server_id ? { id: order.server_id, name: order.server_name ?? '' } : null,
    items: items.map((item) => ({
      id: item.id,
      menu_item_id: item.menu_item_id,
      name: item.name,
      quantity: item.quantity,
      unit_price: toDecimal(item.unit_price_minor),
      total: toDecimal(lineTotal(item)),
      modifiers: JSON.parse(item.modifiers) as string[],
      notes: item.notes,
      status: item.status,
    })),
    subtotal: toDecimal(order.subtotal_minor),
    tax: toDecimal(order.tax_minor),
    total: toDecimal(order.total_minor),
    created_at: order.created_at,
    updated_at: order.updated_at,
    version: order.version,
  };
}

export type Order = ReturnType<typeof toOrder>;

/** Exactly the documented "Order data" for order events. */
export function eventData(order: Order, withOrigin = false) {
  const data: Record<string, unknown> = {
    id: order.id,
    number: order.number,
    order_type: order.order_type,
    status: order.status,
    items: order.items.map(({ id, menu_item_id, name, quantity, unit_price, total }) => ({
      id,
      menu_item_id,
      name,
      quantity,
      unit_price,
      total,
    })),
    subtotal: order.subtotal,
    tax: order.tax,
    total: order.total,
    created_at: order.created_at,
  };
  if (withOrigin && order.table !== null) data.table = order.table;
  if (withOrigin && order.server) data.server = order.server;
  return data;
}

/** Orders from creation to completion; each command is one transaction with its outbox rows and events. */
export function createOrderService(deps: OrderDeps) {
  const { db, changes, clock } = deps;
  const store = createOrderStore(db);
  const now = () => clock.now().toISOString();
  const commit: GroupCommit = deps.commit ?? (async (work) => db.transaction(work)());

  function requireOrder(id: string) {
    const order = store.order(id);
    if (!order) throw errors.orderNotFound();
    return order;
  }

  /** Checks every requested menu item up front, naming each bad one by its place in the body. */
  async function priced(items: NewItem[], field: (index: number) => string) {
    const found = new Map(
      (await deps.menu.itemsForOrder([...new Set(items.map((i) => i.menu_item_id))])).map((m) => [m.id, m]),
    );
    const unknown = items.flatMap((item, i) => (found.has(item.menu_item_id) ? [] : [field(i)]));
    if (unknown.length > 0) throw errors.unknownMenuItems(unknown);
    const unavailable = items.flatMap((item, i) =>
      found.get(item.menu_item_id)?.available ? [] : [field(i)],
    );
    if (unavailable.length > 0) throw errors.unavailableMenuItems(unavailable);
    return items.map((item) => ({ item, menu: found.get(item.menu_item_id)! }));
  }

  function insertItems(orderId: string, lines: Awaited<ReturnType<typeof priced>>, at: string) {
    let position = store.items(orderId).reduce((max, item) => Math.max(max, item.position), 0);
    for (const { item, menu } of lines) {
      const row: OrderItemRow = {
        id: deps.newId(),
        order_id: orderId,
        menu_item_id: menu.id,
        name: menu.name,
        quantity: item.quantity,
        unit_price_minor: menu.price_minor,
        modifiers: JSON.stringify(item.modifiers ?? []),
        notes: item.notes ?? null,
        status: 'pending',
        position: ++position,
        version: 1,
        updated_at: at,
      };
      store.insertItem(row);
      changes.recordChange({ table: 'order_items', rowId: row.id, operation: 'insert', version: 1 });
    }
  }

  /** Recomputes the money from the items, saves the order and returns it as the API shows it. */
  function save(order: OrderRow, status: OrderStatus, at: string, operation: 'insert' | 'update' = 'update') {
    const items = store.items(order.id);
    const subtotal = items.reduce((sum, item) => sum + lineTotal(item), 0);
    const tax = deps.location.taxFor(subtotal);
    const version = store.updateOrder({
      id: order.id,
      status,
      subtotal_minor: subtotal,
      tax_minor: tax,
      total_minor: subtotal + tax,
      updated_at: at,
    });
    changes.recordChange({ table: 'orders', rowId: order.id, operation, version });
    return toOrder(requireOrder(order.id), items);
  }

  function requireOpen(orderId: string) {
    const order = requireOrder(orderId);
    if (order.status !== 'open') throw errors.notEditable(order.status);
    return order;
  }

  function requireItem(orderId: string, itemId: string) {
    const item = store.items(orderId).find((i) => i.id === itemId);
    if (!item) throw errors.itemNotFound();
    return item;
  }

  /** Runs `work` in a transaction and undoes it; answers what it returned. */
  function rolledBack<T>(work: () => T): T {
    let result: T | undefined;
    try {
      db.transaction(() => {
        result = work();
        throw new DryRunRollback('dry run');
      })();
    } catch (error) {
      if (!(error instanceof DryRunRollback)) throw error;
    }
    return result as T;
  }

  return {
    get: (id: string) => toOrder(requireOrder(id), store.items(id)),

    list(query: OrderListQuery) {
      const { orders, next_cursor } = orderPage(store, query);
      return { items: orders.map(({ row, items }) => toOrder(row, items)), next_cursor };
    },

    /** What sales figures need of a business day's orders: their state and when they were opened. */
    dayOrders: (businessDay: string) => store.ofDay(businessDay),

    /** What payments need: the order's state and what it costs, in minor units. */
    billing(id: string) {
      const { status, total_minor } = requireOrder(id);
      return { status, total_minor };
    },

    /**
     * Opens an order. A dry run takes the very same path, outbox rows and events included, in a
     * transaction of its own that it then rolls back: it answers the order that would have been
     * created and leaves nothing behind (not even the order number), which is how an update's
     * health check proves the new version can sell without selling anything.
     */
    async create(input: NewOrder, options: { dryRun?: boolean } = {}) {
      const lines = await priced(input.items, (i) => `body.items.${i}.menu_item_id`);
      const open = () => {
        const at = clock.now();
        const businessDay = deps.location.businessDay(at);
        const row: OrderRow = {
          id: deps.newId(),
          number: String(store.nextNumber(businessDay)),
          business_day: businessDay,
          order_type: input.order_type,
          status: 'open',
          table_label: input.table ?? null,
          server_id: input.server?.id ?? null,
          server_name: input.server?.name ?? null,
          subtotal_minor: 0,
          tax_minor: 0,
          total_minor: 0,
          created_at: at.toISOString(),
          updated_at: at.toISOString(),
          version: 0,
        };
        store.insertOrder(row);
        insertItems(row.id, lines, row.created_at);
        const order = save(row, 'open', row.created_at, 'insert');
        changes.emit('order.created', eventData(order, true));
        return order;
      };
      return options.dryRun ? rolledBack(open) : commit(open);
    },

    async addItems(orderId: string, items: NewItem[]) {
      const lines = await priced(items, (i) => `body.items.${i}.menu_item_id`);
      return db.transaction(() => {
        const order = requireOpen(orderId);
        const at = now();
        insertItems(orderId, lines, at);
        const saved = save(order, 'open', at);
        changes.emit('order.updated', eventData(saved));
        return saved;
      })();
    },

    changeItem(
      orderId: string,
      itemId: string,
      patch: { quantity?: number; modifiers?: string[]; notes?: string | null },
    ) {
      return db.transaction(() => {
        const order = requireOpen(orderId);
        const item = requireItem(orderId, itemId);
        const at = now();
        const version = store.updateItem({
          id: item.id,
          quantity: patch.quantity ?? item.quantity,
          modifiers: patch.modifiers ? JSON.stringify(patch.modifiers) : item.modifiers,
          notes: patch.notes === undefined ? item.notes : patch.notes,
          status: item.status,
          updated_at: at,
        });
        changes.recordChange({ table: 'order_items', rowId: item.id, operation: 'update', version });
        const saved = save(order, 'open', at);
        changes.emit('order.updated', eventData(saved));
        return saved;
      })();
    },

    removeItem(orderId: string, itemId: string) {
      return db.transaction(() => {
        const order = requireOpen(orderId);
        const item = requireItem(orderId, itemId);
        store.deleteItem(item.id);
        changes.recordChange({
          table: 'order_items',
          rowId: item.id,
          operation: 'delete',
          version: item.version + 1,
        });
        const saved = save(order, 'open', now());
        changes.emit('order.updated', eventData(saved));
        return saved;
      })();
    },

    /** Sends the order's new items to the kitchen. */
    send(orderId: string) {
      return db.transaction(() => {
        const order = requireOrder(orderId);
        if (order.status !== 'open') throw errors.invalidTransition(order.status, 'sent to the kitchen');
        const pending = store.items(orderId).filter((item) => item.status === 'pending');
        if (pending.length === 0) throw errors.emptyOrder();
        const at = now();
        for (const item of pending) {
          const version = store.updateItem({ ...item, status: 'sent', updated_at: at });
          changes.recordChange({ table: 'order_items', rowId: item.id, operation: 'update', version });
        }
        const saved = save(order, 'sent', at);
        changes.emit('order.sent', eventData(saved));
        return saved;
      })();
    },

    /** The kitchen finished an item; when every item is done the order is ready. */
    completeItem(orderId: string, itemId: string) {
      return db.transaction(() => {
        const order = requireOrder(orderId);
        if (order.status !== 'sent') throw errors.invalidTransition(order.status, 'prepared');
        const item = requireItem(orderId, itemId);
        const at = now();
        if (item.status !== 'complete') {
          const version = store.updateItem({ ...item, status: 'complete', updated_at: at });
          changes.recordChange({ table: 'order_items', rowId: item.id, operation: 'update', version });
        }
        const allDone = store.items(orderId).every((i) => i.status === 'complete');
        const saved = save(order, allDone ? 'ready' : 'sent', at);
        changes.emit(allDone ? 'order.ready' : 'order.updated', eventData(saved));
        return saved;
      })();
    },

    complete(orderId: string) {
      return db.transaction(() => {
        const order = requireOrder(orderId);
        if (order.status !== 'ready') throw errors.invalidTransition(order.status, 'completed');
        const saved = save(order, 'completed', now());
        changes.emit('order.completed', eventData(saved));
        return saved;
      })();
    },

    /** Cancels (voids) an order that has not been completed. */
    cancel(orderId: string) {
      return db.transaction(() => {
        const order = requireOrder(orderId);
        if (order.status === 'completed' || order.status === 'cancelled') {
          throw errors.invalidTransition(order.status, 'cancelled');
        }
        const saved = save(order, 'cancelled', now());
        changes.emit('order.cancelled', eventData(saved));
        return saved;
      })();
    },
  };
}

export type OrderService = ReturnType<typeof createOrderService>;
