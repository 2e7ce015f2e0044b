/** Usage records: multi-row idempotent inserts and range aggregates. Tenant first, as everywhere. */
import { CompiledQuery } from 'kysely';
import type { Db, Store } from '../db/index.ts';
import type { UsageRecordRow } from './tables.ts';

/** The rows it inserted (by id); rows whose key the tenant already has are left alone. */
export async function insertNew(db: Db, rows: UsageRecordRow[]) {
  if (rows.length === 0) return new Set<string>();
  const inserted = await db
    .insertInto('billing_usage_records')
    .values(rows)
    .onConflict((c) => c.columns(['tenant_id', 'idempotency_key']).doNothing())
    .returning('id')
    .execute();
  return new Set(inserted.map((row) => row.id));
}

const COLUMNS = [
  'id',
  'tenant_id',
  'subscription_id',
  'metric_name',
  'quantity',
  'recorded_at',
  'idempotency_key',
  'created_at',
] as const;

// One text for any number of rows (an array per column), so PostgreSQL parses and plans it once per
// connection instead of a statement of 8 × rows parameters each time: about a third less work per
// row for the database and the driver alike.
const UNNEST_INSERT = CompiledQuery.raw(
  `insert into billing_usage_records (${COLUMNS.join(', ')})
   select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int4[], $6::text[], $7::text[], $8::text[])
   on conflict (tenant_id, idempotency_key) do nothing returning id`,
);

/** `insertNew` outside a transaction, as a prepared statement where the database has one. */
export function usageWriter(store: Store): (rows: UsageRecordRow[]) => Promise<Set<string>> {
  if (store.dialect !== 'pg') return (rows) => insertNew(store.db, rows);
  const insert = store.prepareWrite<{ id: string }>(UNNEST_INSERT);
  return async (rows) => {
    if (rows.length === 0) return new Set<string>();
    const inserted = await insert(COLUMNS.map((column) => rows.map((row) => row[column])));
    return new Set(inserted.map((row) => row.id));
  };
}

export const recordsByKeys = (db: Db, tenantId: string, keys: string[]) =>
  db
    .selectFrom('billing_usage_records')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('idempotency_key', 'in', keys)
    .execute();

/** Which of `ids` are subscriptions of the tenant. */
export async function existingSubscriptions(db: Db, tenantId: string, ids: string[]) {
  const rows = await db
    .selectFrom('billing_subscriptions')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', ids)
    .execute();
  return rows.map((row) => row.id);
}

/** start ≤ recorded_at < end, on the summary index alone. */
export async function usageSummary(
  db: Db,
  tenantId: string,
  range: { subscriptionId: string; metricName: string; start: string; end: string },
) {
  const row = await db
    .selectFrom('billing_usage_records')
    .select((eb) => [
      eb.fn.sum<number | string | null>('quantity').as('total'),
      eb.fn.countAll<number | string>().as('count'),
      eb.fn.min<number | null>('quantity').as('min'),
      eb.fn.max<number | null>('quantity').as('max'),
      eb.fn.min<string | null>('recorded_at').as('first'),
      eb.fn.max<string | null>('recorded_at').as('last'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('subscription_id', '=', range.subscriptionId)
    .where('metric_name', '=', range.metricName)
    .where('recorded_at', '>=', range.start)
    .where('recorded_at', '<', range.end)
    .executeTakeFirstOrThrow();
  return row;
}
