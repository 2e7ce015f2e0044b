import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { ApplianceDatabase, ChangeLog } from '../db/index.ts';
import * as errors from './errors.ts';
import {
  createKitchenStore,
  type Station,
  type TicketItemRow,
  type TicketPriority,
  type TicketRow,
} from './store.ts';

/** The order as the kitchen sees it when it is sent; the orders module's `Order` fits it. */
export interface SentOrder {
  id: string;
  number: string;
  items: Array<{
    id: string;
    menu_item_id: string;
    name: string;
    quantity: number;
    modifiers: string[];
    notes: string | null;
    status: string;
  }>;
}

/** What the kitchen needs from orders: to mark an item prepared. */
export interface KitchenOrders {
  completeItem(orderId: string, itemId: string): unknown;
}

export interface KitchenDeps {
  db: ApplianceDatabase;
  changes: ChangeLog;
  orders: KitchenOrders;
  clock: Clock;
  newId: IdGenerator;
}

export function toTicket(ticket: TicketRow, items: TicketItemRow[]) {
  return {
    ...ticket,
    items: items.map(({ ticket_id: _, modifiers, ...item }) => ({
      ...item,
      modifiers: JSON.parse(modifiers) as string[],
    })),
  };
}

export type Ticket = ReturnType<typeof toTicket>;
export type BoardTicket = Ticket & { elapsed_seconds: number };

/** Stations, routing and tickets; each command is one transaction with its outbox rows. */
export function createKitchenService(deps: KitchenDeps) {
  const { db, changes, clock } = deps;
  const store = createKitchenStore(db);
  const now = () => clock.now().toISOString();

  function requireTicket(id: string) {
    const ticket = store.getTicket(id);
    if (!ticket) throw errors.ticketNotFound();
    return ticket;
  }

  function saveTicket(ticket: TicketRow, patch: Partial<Pick<TicketRow, 'priority' | 'status' | 'done_at'>>) {
    // Tickets are the kitchen's working state and stay on the appliance: no outbox row.
    store.updateTicket({ ...ticket, ...patch });
    const saved = toTicket(requireTicket(ticket.id), store.items(ticket.id));
    changes.emit('kds.ticket_updated', saved);
    return saved;
  }

  /** Groups the order's sent, not yet ticketed items by the station that prepares them. */
  function itemsByStation(order: SentOrder, fallback: string) {
    const ticketed = store.ticketedOrderItems(order.id);
    const items = order.items.filter((item) => item.status === 'sent' && !ticketed.has(item.id));
    const routes = store.routes(items.map((item) => item.menu_item_id));
    const groups = new Map<string, SentOrder['items']>();
    for (const item of items) {
      const station = routes.get(item.menu_item_id) ?? fallback;
      groups.set(station, [...(groups.get(station) ?? []), item]);
    }
    return groups;
  }

  function insertTicket(order: SentOrder, stationId: string, items: SentOrder['items'], at: string) {
    const row: TicketRow = {
      id: deps.newId(),
      order_id: order.id,
      order_number: order.number,
      station_id: stationId,
      priority: 'normal',
      status: 'open',
      created_at: at,
      done_at: null,
      version: 1,
    };
    store.insertTicket(row);
    for (const item of items) {
      store.insertItem({
        ticket_id: row.id,
        order_item_id: item.id,
        name: item.name,
        quantity: item.quantity,
        modifiers: JSON.stringify(item.modifiers),
        notes: item.notes,
        status: 'pending',
        bumped_at: null,
      });
    }
    const ticket = toTicket(row, store.items(row.id));
    changes.emit('kds.ticket_opened', ticket);
    return ticket;
  }

  return {
    createStation(input: { name: string }) {
      return db.transaction(() => {
        if (store.findStationByName(input.name)) throw errors.stationNameTaken(input.name);
        const station: Station = {
          id: deps.newId(),
          name: input.name,
          position: store.nextStationPosition(),
          version: 1,
          updated_at: now(),
        };
        store.insertStation(station);
        changes.recordChange({ table: 'stations', rowId: station.id, operation: 'insert', version: 1 });
        return station;
      })();
    },

    listStations: () => store.listStations(),

    routeItem(menuItemId: string, stationId: string) {
      return db.transaction(() => {
        if (!store.getStation(stationId)) throw errors.unknownStation();
        const version = store.route(menuItemId, stationId);
        const operation = version === 1 ? 'insert' : 'update';
        changes.recordChange({ table: 'station_items', rowId: menuItemId, operation, version });
        return { menu_item_id: menuItemId, station_id: stationId };
      })();
    },

    /**
     * One ticket per station for the order's newly sent items. Call it in the send's transaction.
     * A store with no stations has no kitchen display, so nothing is ticketed.
     */
    openTickets(order: SentOrder) {
      return db.transaction(() => {
        const first = store.listStations()[0];
        if (!first) return [];
        const at = now();
        return [...itemsByStation(order, first.id)].map(([stationId, items]) =>
          insertTicket(order, stationId, items, at),
        );
      })();
    },

    /**
     * Marks a ticket's item done and the order's item prepared, together. Only an item's first
     * bump reaches the order: after a recall the order item is already complete.
     */
    bump(ticketId: string, orderItemId: string) {
      return db.transaction(() => {
        const ticket = requireTicket(ticketId);
        const items = store.items(ticketId);
        const item = items.find((i) => i.order_item_id === orderItemId);
        if (!item) throw errors.ticketItemNotFound();
        if (item.status === 'done') return toTicket(ticket, items);
        const at = now();
        store.updateItem({ ...item, status: 'done', bumped_at: at });
        if (item.bumped_at === null) deps.orders.completeItem(ticket.order_id, orderItemId);
        const allDone = store.items(ticketId).every((i) => i.status === 'done');
        return saveTicket(ticket, allDone ? { status: 'done', done_at: at } : {});
      })();
    },

    /**
     * Brings a finished ticket back to the board with its items pending again. The order stays as
     * it is (its items complete, perhaps ready or served): a recall is the kitchen looking again,
     * not the order going backwards.
     */
    recall(ticketId: string) {
      return db.transaction(() => {
        const ticket = requireTicket(ticketId);
        if (ticket.status !== 'done') throw errors.ticketNotDone();
        store.reopenItems(ticketId);
        return saveTicket(ticket, { status: 'open', done_at: null });
      })();
    },

    /**
     * Takes a voided order's open tickets off the screens. Done is the only end a ticket has; its
     * items stay as they were, since nobody prepared them.
     */
    closeTickets(orderId: string) {
      return db.transaction(() => {
        const at = now();
        return store
          .openTicketsOfOrder(orderId)
          .map((ticket) => saveTicket(ticket, { status: 'done', done_at: at }));
      })();
    },

    setPriority(ticketId: string, priority: TicketPriority) {
      return db.transaction(() => saveTicket(requireTicket(ticketId), { priority }))();
    },

    /** A station's open tickets, rush first then oldest first, with how long each has waited. */
    board(stationId: string): BoardTicket[] {
      if (!store.getStation(stationId)) throw errors.stationNotFound();
      const at = clock.now().getTime();
      return store.openTickets(stationId).map((ticket) => ({
        ...toTicket(ticket, store.items(ticket.id)),
        elapsed_seconds: Math.max(0, Math.floor((at - Date.parse(ticket.created_at)) / 1000)),
      }));
    },
  };
}

export type KitchenService = ReturnType<typeof createKitchenService>;
