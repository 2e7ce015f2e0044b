/**
 * The Store screen's open orders, kept current from the feed: an order event carries the order
 * (appliance/orders/service.ts eventData, without item statuses) and a kds event the whole ticket.
 * Pure: each function returns a new collection.
 */

export type OrderStatus = 'open' | 'sent' | 'ready' | 'completed' | 'cancelled';
export type ItemStatus = 'pending' | 'sent' | 'complete';

export interface OrderItem {
  id: string;
  name: string;
  quantity: number;
  status?: ItemStatus;
  modifiers?: string[];
  notes?: string | null;
}

export interface Order {
  id: string;
  number: string;
  order_type: string;
  status: OrderStatus;
  table?: string | null;
  server?: { id: string; name: string } | null;
  items: OrderItem[];
  total: number;
  created_at: string;
  version?: number;
}

export interface Ticket {
  id: string;
  order_id: string;
  station_id: string;
  priority: 'normal' | 'rush';
  status: 'open' | 'done';
  created_at: string;
  version: number;
  items: Array<{ order_item_id: string; name: string; quantity: number; status: 'pending' | 'done' }>;
}

export type Orders = Readonly<Record<string, Order>>;
export type Tickets = Readonly<Record<string, Ticket>>;

const CLOSED: readonly string[] = ['completed', 'cancelled'];
export const isOpenOrder = (order: Pick<Order, 'status'>) => !CLOSED.includes(order.status);

/** An order event's data merged into the open orders: closed orders leave, item statuses are kept. */
export function applyOrderEvent(orders: Orders, data: unknown): Orders {
  if (typeof data !== 'object' || data === null) return orders;
  const incoming = data as Order;
  if (typeof incoming.id !== 'string' || typeof incoming.status !== 'string') return orders;
  if (!isOpenOrder(incoming)) {
    if (!(incoming.id in orders)) return orders;
    const { [incoming.id]: _gone, ...rest } = orders;
    return rest;
  }
  const previous = orders[incoming.id];
  const before = new Map((previous?.items ?? []).map((item) => [item.id, item]));
  const items = (incoming.items ?? []).map((item) => ({ ...before.get(item.id), ...item }));
  return { ...orders, [incoming.id]: { ...previous, ...incoming, items } };
}

/** A ticket from the feed or a board, unless an older version of it arrives after a newer one. */
export function applyTicket(tickets: Tickets, ticket: Ticket): Tickets {
  const known = tickets[ticket.id];
  if (known && known.version > ticket.version) return tickets;
  return { ...tickets, [ticket.id]: ticket };
}

/** Tickets of orders no longer open are dropped, so the map does not grow all day. */
export function pruneTickets(tickets: Tickets, orders: Orders): Tickets {
  return Object.fromEntries(Object.entries(tickets).filter(([, t]) => t.order_id in orders));
}

export type KitchenItemState = 'new' | 'cooking' | 'done';

export interface OrderCardView {
  order: Order;
  items: Array<{ id: string; name: string; quantity: number; state: KitchenItemState }>;
  /** When the clock on the card started: the oldest open ticket, else the order. */
  since: string;
  rush: boolean;
}

const fromOrderItem = (status: ItemStatus | undefined): KitchenItemState =>
  status === 'complete' ? 'done' : status === 'sent' ? 'cooking' : 'new';

/** An order with its kitchen state: a ticket's word on an item beats the order's. */
export function orderCard(order: Order, tickets: readonly Ticket[]): OrderCardView {
  const mine = tickets.filter((t) => t.order_id === order.id);
  const byItem = new Map<string, KitchenItemState>();
  for (const ticket of mine)
    for (const item of ticket.items)
      byItem.set(item.order_item_id, item.status === 'done' ? 'done' : 'cooking');
  const open = mine.filter((t) => t.status === 'open').map((t) => t.created_at);
  const since = open.sort()[0] ?? order.created_at;
  return {
    order,
    items: order.items.map((item) => ({
      id: item.id,
      name: item.name,
      quantity: item.quantity,
      state: byItem.get(item.id) ?? fromOrderItem(item.status),
    })),
    since,
    rush: mine.some((t) => t.status === 'open' && t.priority === 'rush'),
  };
}

/** The cards for the open orders, oldest first (the longest wait is the first to look at). */
export function orderCards(orders: Orders, tickets: Tickets): OrderCardView[] {
  const all = Object.values(tickets);
  return Object.values(orders)
    .map((order) => orderCard(order, all))
    .sort((a, b) => a.since.localeCompare(b.since));
}
