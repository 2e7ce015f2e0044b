import type { ApplianceDatabase } from '../db/index.ts';

export type OrderType = 'dine_in' | 'takeout' | 'drive_thru' | 'delivery';
export type OrderStatus = 'open' | 'sent' | 'ready' | 'completed' | 'cancelled';
export type ItemStatus = 'pending' | 'sent' | 'complete';

export interface OrderRow {
  id: string;
  number: string;
  business_day: string;
  order_type: OrderType;
  status: OrderStatus;
  table_label: string | null;
  server_id: string | null;
  server_name: string | null;
  subtotal_minor: number;
  tax_minor: number;
  total_minor: number;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface OrderItemRow {
  id: string;
  order_id: string;
  menu_item_id: string;
  name: string;
  quantity: number;
  unit_price_minor: number;
  /** JSON array of modifier names. */
  modifiers: string;
  notes: string | null;
  status: ItemStatus;
  position: number;
  version: number;
  updated_at: string;
}

export interface OrderPageQuery {
  statuses: OrderStatus[] | undefined;
  businessDay: string | undefined;
  /** The last order of the previous page: this page starts after it, newest first. */
  after: { createdAt: string; id: string } | undefined;
  limit: number;
}

const PAGE_WHERE = `(@statuses is null or status in (select value from json_each(@statuses)))
  and (@after_created_at is null or (created_at, id) < (@after_created_at, @after_id))`;

/** Prepared once; every function runs inside the caller's transaction. */
export function createOrderStore(db: ApplianceDatabase) {
  const nextNumber = db.prepare(
    `insert into order_numbers (business_day, last_number) values (?, 1)
     on conflict (business_day) do update set last_number = last_number + 1
     returning last_number`,
  );
  const insertOrder = db.prepare(
    `insert into orders (id, number, business_day, order_type, status, table_label, server_id, server_name,
       subtotal_minor, tax_minor, total_minor, created_at, updated_at, version)
     values (@id, @number, @business_day, @order_type, @status, @table_label, @server_id, @server_name,
       @subtotal_minor, @tax_minor, @total_minor, @created_at, @updated_at, @version)`,
  );
  const orderById = db.prepare('select * from orders where id = ?');
  const updateOrder = db.prepare(
    `update orders set status = @status, subtotal_minor = @subtotal_minor, tax_minor = @tax_minor,
       total_minor = @total_minor, updated_at = @updated_at, version = version + 1
     where id = @id returning version`,
  );
  const insertItem = db.prepare(
    `insert into order_items (id, order_id, menu_item_id, name, quantity, unit_price_minor, modifiers, notes,
       status, position, version, updated_at)
     values (@id, @order_id, @menu_item_id, @name, @quantity, @unit_price_minor, @modifiers, @notes,
       @status, @position, @version, @updated_at)`,
  );
  const itemsOf = db.prepare('select * from order_items where order_id = ? order by position');
  const updateItem = db.prepare(
    `update order_items set quantity = @quantity, modifiers = @modifiers, notes = @notes, status = @status,
       updated_at = @updated_at, version = version + 1
     where id = @id returning version`,
  );
  const deleteItem = db.prepare('delete from order_items where id = ?');
  // Two statements, so a day's page is read through the (business_day, number) index.
  const page = db.prepare(
    `select * from orders where ${PAGE_WHERE} order by created_at desc, id desc limit @limit`,
  );
  const dayPage = db.prepare(
    `select * from orders where business_day = @business_day and ${PAGE_WHERE}
     order by created_at desc, id desc limit @limit`,
  );
  const itemsOfMany = db.prepare(
    'select * from order_items where order_id in (select value from json_each(?)) order by order_id, position',
  );
  const ofDay = db.prepare('select id, status, created_at from orders where business_day = ?');

  return {
    nextNumber: (businessDay: string) => (nextNumber.get(businessDay) as { last_number: number }).last_number,
    insertOrder: (row: OrderRow) => insertOrder.run(row),
    order: (id: string) => orderById.get(id) as OrderRow | undefined,
    updateOrder: (
      row: Pick<OrderRow, 'id' | 'status' | 'subtotal_minor' | 'tax_minor' | 'total_minor' | 'updated_at'>,
    ) => (updateOrder.get(row) as { version: number }).version,
    insertItem: (row: OrderItemRow) => insertItem.run(row),
    items: (orderId: string) => itemsOf.all(orderId) as OrderItemRow[],
    updateItem: (
      row: Pick<OrderItemRow, 'id' | 'quantity' | 'modifiers' | 'notes' | 'status' | 'updated_at'>,
    ) => (updateItem.get(row) as { version: number }).version,
    deleteItem: (id: string) => deleteItem.run(id),
    page(query: OrderPageQuery) {
      const params = {
        statuses: query.statuses ? JSON.stringify(query.statuses) : null,
        after_created_at: query.after?.createdAt ?? null,
        after_id: query.after?.id ?? null,
        limit: query.limit,
      };
      const rows = query.businessDay
        ? dayPage.all({ ...params, business_day: query.businessDay })
        : page.all(params);
      return rows as OrderRow[];
    },
    /** The items of several orders at once, each order's in position order. */
    itemsOf(orderIds: string[]) {
      const byOrder = new Map<string, OrderItemRow[]>();
      for (const item of itemsOfMany.all(JSON.stringify(orderIds)) as OrderItemRow[]) {
        const items = byOrder.get(item.order_id) ?? [];
        items.push(item);
        byOrder.set(item.order_id, items);
      }
      return byOrder;
    },
    ofDay: (businessDay: string) =>
      ofDay.all(businessDay) as Array<Pick<OrderRow, 'id' | 'status' | 'created_at'>>,
  };
}

export type OrderStore = ReturnType<typeof createOrderStore>;
