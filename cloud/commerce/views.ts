import { toDecimal } from '../../shared/events.ts';
import type { SYNC_TABLES } from '../../shared/sync/registry.ts';
import type { CommerceChildRow, CommerceOrderRow } from './tables.ts';

type Enum<
  T extends { enums: Record<string, readonly string[]> },
  K extends keyof T['enums'],
> = T['enums'][K][number];
type OrderStatus = Enum<typeof SYNC_TABLES.orders, 'status'>;
type OrderType = Enum<typeof SYNC_TABLES.orders, 'order_type'>;
type ItemStatus = Enum<typeof SYNC_TABLES.order_items, 'status'>;
type PaymentMethod = Enum<typeof SYNC_TABLES.payments, 'method'>;
type PaymentStatus = Enum<typeof SYNC_TABLES.payments, 'status'>;

/**
 * Orders and payments in the very shape the store's own API answers with, plus `location_id`,
 * so one client reads both; the cloud holds the store's synced columns, which are all the store
 * shapes its answers from.
 */
/** An order's line; `catalog_id` is the brand item its menu item stands for (null: the store's own). */
export function toOrderItem(row: CommerceChildRow, catalog: ReadonlyMap<string, string> = new Map()) {
  const item = JSON.parse(row.fields) as Record<string, unknown>;
  const quantity = Number(item.quantity);
  const unitPrice = Number(item.unit_price_minor);
  return {
    id: String(item.id),
    menu_item_id: String(item.menu_item_id),
    catalog_id: catalog.get(String(item.menu_item_id)) ?? null,
    name: String(item.name),
    quantity,
    unit_price: toDecimal(unitPrice),
    total: toDecimal(quantity * unitPrice),
    modifiers: JSON.parse(String(item.modifiers)) as string[],
    notes: (item.notes as string | null) ?? null,
    status: item.status as ItemStatus,
    position: Number(item.position),
  };
}

export function toOrder(
  row: CommerceOrderRow,
  items: CommerceChildRow[],
  catalog: ReadonlyMap<string, string> = new Map(),
) {
  return {
    id: row.id,
    location_id: row.location_id,
    number: row.number,
    business_day: row.business_day,
    order_type: row.order_type as OrderType,
    status: row.status as OrderStatus,
    table: row.table_label,
    server: row.server_id ? { id: row.server_id, name: row.server_name ?? '' } : null,
    items: items
      .map((item) => toOrderItem(item, catalog))
      .sort((a, b) => a.position - b.position)
      .map(({ position: _, ...item }) => item),
    subtotal: toDecimal(Number(row.subtotal_minor)),
    tax: toDecimal(Number(row.tax_minor)),
    total: toDecimal(Number(row.total_minor)),
    created_at: row.created_at,
    updated_at: row.updated_at,
    version: Number(row.version),
  };
}

export function toPayment(row: CommerceChildRow) {
  const payment = JSON.parse(row.fields) as Record<string, unknown>;
  const amount = Number(payment.amount_minor);
  const tip = Number(payment.tip_minor);
  return {
    id: String(payment.id),
    location_id: row.location_id,
    order_id: String(payment.order_id),
    method: payment.method as PaymentMethod,
    status: payment.status as PaymentStatus,
    amount: toDecimal(amount),
    tip: toDecimal(tip),
    total: toDecimal(amount + tip),
    refunded: toDecimal(Number(payment.refunded_minor)),
    card: payment.card_brand
      ? { brand: String(payment.card_brand), last4: String(payment.card_last4 ?? '') }
      : null,
    transaction_id: (payment.transaction_id as string | null) ?? null,
    failure_reason: (payment.failure_reason as string | null) ?? null,
    created_at: String(payment.created_at),
    version: Number(row.version),
  };
}

export type CloudOrder = ReturnType<typeof toOrder>;
export type CloudPayment = ReturnType<typeof toPayment>;
