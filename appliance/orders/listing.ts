import type { OrderRow, OrderStatus, OrderStore } from './store.ts';

export interface OrderListQuery {
  status?: OrderStatus[] | undefined;
  business_day?: string | undefined;
  limit: number;
  /** The previous page's `next_cursor`; its form is checked by the route's schema. */
  cursor?: string | undefined;
}

/** A page's last order as `<created_at>_<id>`: the key the next page starts after. */
const cursorOf = (order: OrderRow) => `${order.created_at}_${order.id}`;

function afterCursor(cursor: string | undefined) {
  if (cursor === undefined) return undefined;
  const split = cursor.lastIndexOf('_');
  return { createdAt: cursor.slice(0, split), id: cursor.slice(split + 1) };
}

/** One page of the store's orders, newest first, each with its items; keyset-paged. */
export function orderPage(store: OrderStore, query: OrderListQuery) {
  const rows = store.page({
    statuses: query.status,
    businessDay: query.business_day,
    after: afterCursor(query.cursor),
    limit: query.limit + 1,
  });
  const page = rows.slice(0, query.limit);
  const items = store.itemsOf(page.map((order) => order.id));
  const last = page.at(-1);
  return {
    orders: page.map((row) => ({ row, items: items.get(row.id) ?? [] })),
    next_cursor: rows.length > query.limit && last ? cursorOf(last) : null,
  };
}
