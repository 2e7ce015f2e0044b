import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('webhook_subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('interface', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('signing_key', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_valid_until', 'text')
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('timeout_seconds', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('backoff', 'text', (c) => c.notNull())
    .addColumn('batch_events', 'integer', (c) => c.notNull())
    .addColumn('max_per_second', 'real')
    .addColumn('max_in_flight', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('disabled_reason', 'text')
    .addColumn('disabled_at', 'text')
    .addColumn('failing_since', 'text')
    .addColumn('last_delivery_at', 'text')
    .addColumn('last_success_at', 'text')
    .addColumn('last_failure_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  // One live subscription per URL and interface in a tenant; a deleted one frees its URL.
  await db.schema
    .createIndex('webhook_subscriptions_url')
    .on('webhook_subscriptions')
    .columns(['tenant_id', 'interface', 'url'])
    .unique()
    .where(sql.ref('deleted_at'), 'is', null)
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhook_subscriptions.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('in_flight_since', 'text')
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('payload_size_bytes', 'integer', (c) => c.notNull())
    .addColumn('original_delivery_id', 'text')
    .addColumn('is_test', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .addColumn('last_response_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('last_error_class', 'text')
    .addColumn('last_latency_ms', 'real')
    .execute();
  // The work queue: only rows with something still to send are in these two, so they stay small.
  // A lane's due time and its lanes (skip-scanned by webhook_id), and its rows in event order.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'next_attempt_at'])
    .where(sql.ref('next_attempt_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_lane')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'id'])
    .where(sql.ref('next_attempt_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_list')
    .on('webhook_deliveries')
    .columns(['tenant_id', 'webhook_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text', (c) => c.notNull())
    .addColumn('latency_ms', 'real')
    .addColumn('response_code', 'integer')
    .addColumn('error_class', 'text')
    .addColumn('error', 'text')
    .addColumn('request_headers', 'text', (c) => c.notNull())
    .addColumn('response_headers', 'text')
    .addColumn('response_body', 'text')
    .addColumn('retry_at', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_attempts_webhook')
    .on('webhook_attempts')
    .columns(['tenant_id', 'webhook_id', 'started_at'])
    .execute();
  // One line per attempt: a worker that lost its lane and the one that took it over can both
  // report attempt n, and the one that saw the answer wins over the one that guessed.
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .columns(['delivery_id', 'attempt'])
    .unique()
    .execute();

  await db.schema
    .createTable('webhook_lanes')
    .addColumn('webhook_id', 'text', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('lease_until', 'text', (c) => c.notNull())
    .addColumn('last_sent_at', 'text')
    .execute();

  await db.schema
    .createTable('webhook_logs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('delivery_id', 'text')
    .addColumn('event', 'text')
    .addColumn('details', 'text')
    .execute();
  await db.schema
    .createIndex('webhook_logs_webhook')
    .on('webhook_logs')
    .columns(['tenant_id', 'webhook_id', 'at'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  for (const table of [
    'webhook_logs',
    'webhook_lanes',
    'webhook_attempts',
    'webhook_deliveries',
    'webhook_subscriptions',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
