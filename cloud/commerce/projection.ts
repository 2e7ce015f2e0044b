import { type Kysely, sql } from 'kysely';
import type { Fields } from '../../shared/sync/registry.ts';
import type { Database, Db } from '../db/index.ts';
import type { CommerceChildRow, CommerceOrderRow } from './tables.ts';

/** Where synced rows came from: one store of one tenant. */
export interface Where {
  tenantId: string;
  locationId: string;
}

/** A synced row as written, with its version. */
export interface Written {
  version: number;
  fields: Fields;
}

// Sixteen columns a row: far below either database's limit on parameters in one statement.
const CHUNK = 500;

/** Writes projected rows keyed by tenant and id, replacing the ones already there. */
export async function upsert<T extends keyof Database & string>(
  db: Db,
  table: T,
  rows: ReadonlyArray<Database[T]>,
) {
  const columns = Object.keys(rows[0] ?? {}).filter((c) => c !== 'tenant_id' && c !== 'id');
  const replaced = Object.fromEntries(columns.map((c) => [c, sql.ref(`excluded.${c}`)]));
  const loose = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  for (let start = 0; start < rows.length; start += CHUNK)
    await loose
      .insertInto(table)
      .values(rows.slice(start, start + CHUNK) as unknown as Array<Record<string, unknown>>)
      .onConflict((oc) => oc.columns(['tenant_id', 'id']).doUpdateSet(replaced as never))
      .execute();
}

const nullableText = (value: unknown) => (value === null || value === undefined ? null : String(value));

/** The orders as they now stand at the store (a push's or head office's rows). */
export function recordOrders(db: Db, at: Where, rows: Written[]) {
  return upsert(
    db,
    'commerce_orders',
    rows.map(
      ({ fields: row, version }): CommerceOrderRow => ({
        tenant_id: at.tenantId,
        location_id: at.locationId,
        id: String(row.id),
        number: String(row.number),
        business_day: String(row.business_day),
        order_type: String(row.order_type),
        status: String(row.status),
        table_label: nullableText(row.table_label),
        server_id: nullableText(row.server_id),
        server_name: nullableText(row.server_name),
        subtotal_minor: Number(row.subtotal_minor),
        tax_minor: Number(row.tax_minor),
        total_minor: Number(row.total_minor),
        created_at: String(row.created_at),
        updated_at: String(row.updated_at),
        version,
      }),
    ),
  );
}

const child = (table: 'commerce_order_items' | 'commerce_payments') => (db: Db, at: Where, rows: Written[]) =>
  upsert(
    db,
    table,
    rows.map(
      ({ fields: row, version }): CommerceChildRow => ({
        tenant_id: at.tenantId,
        location_id: at.locationId,
        id: String(row.id),
        order_id: String(row.order_id),
        fields: JSON.stringify(row),
        version,
      }),
    ),
  );

export const recordOrderItems = child('commerce_order_items');
export const recordPayments = child('commerce_payments');
