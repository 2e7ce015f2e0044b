/**
 * The stores' orders and payments as head office reads them: a projection of the synced rows,
 * written in the transaction that brings them (a push, or head office's own edit), with the
 * columns the cross-store lists filter and sort by. The synced rows stay the truth; these tables
 * can be rebuilt from them.
 */
export interface CommerceOrderRow {
  tenant_id: string;
  location_id: string;
  id: string;
  number: string;
  business_day: string;
  order_type: string;
  status: string;
  table_label: string | null;
  server_id: string | null;
  server_name: string | null;
  subtotal_minor: number;
  tax_minor: number;
  total_minor: number;
  created_at: string;
  updated_at: string;
  /** The synced row's version: the store's own version of it. */
  version: number;
}

/** An order's line or payment: the synced fields as JSON, found by its order. */
export interface CommerceChildRow {
  tenant_id: string;
  location_id: string;
  id: string;
  order_id: string;
  fields: string;
  version: number;
}

export interface CommerceTables {
  commerce_orders: CommerceOrderRow;
  commerce_order_items: CommerceChildRow;
  commerce_payments: CommerceChildRow;
}
