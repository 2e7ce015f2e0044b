import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>) {
  // An appliance's credential: the secret is random and long, so a SHA-256 digest is enough to
  // keep it (a slow hash would only slow every push down).
  await db.schema
    .createTable('sync_appliances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('location_id', 'text', (c) => c.notNull().references('locations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('secret_digest', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .execute();
  await db.schema
    .createIndex('sync_appliances_location')
    .on('sync_appliances')
    .columns(['tenant_id', 'location_id'])
    .execute();

  // One row per store that syncs: its feed counter (taken under this row's lock, so feed entries
  // become visible in seq order) and what the appliance last told us.
  await db.schema
    .createTable('sync_locations')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('last_seq', 'bigint', (c) => c.notNull())
    .addColumn('feed_floor', 'bigint', (c) => c.notNull())
    .addColumn('last_push_at', 'text')
    .addColumn('last_pull_at', 'text')
    .addColumn('last_seen_at', 'text')
    .addColumn('pulled_cursor', 'bigint', (c) => c.notNull())
    .addColumn('queue_depth', 'integer', (c) => c.notNull())
    .addColumn('oldest_pending_at', 'text')
    .addColumn('trigger_requested_at', 'text')
    .addColumn('trigger_priority', 'text')
    .addPrimaryKeyConstraint('sync_locations_pk', ['tenant_id', 'location_id'])
    .execute();

  // The cloud's copy of every store's synced rows. Fields are the row as JSON; merge rows also
  // keep their Yjs state (base64). A deleted row stays as a tombstone so a late edit conflicts.
  await db.schema
    .createTable('sync_rows')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('row_key', 'text', (c) => c.notNull())
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('row_id', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('deleted', 'integer', (c) => c.notNull())
    .addColumn('hlc', 'text', (c) => c.notNull())
    .addColumn('fields', 'text')
    .addColumn('doc', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sync_rows_pk', ['tenant_id', 'location_id', 'row_key'])
    .execute();
  // Finds a row id used in another store, which a push must not touch.
  await db.schema.createIndex('sync_rows_key').on('sync_rows').column('row_key').execute();
  await db.schema
    .createIndex('sync_rows_table')
    .on('sync_rows')
    .columns(['tenant_id', 'location_id', 'table_name'])
    .execute();

  // What each store pulls: changes made in the cloud, in seq order.
  await db.schema
    .createTable('sync_feed')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('row_id', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('deleted', 'integer', (c) => c.notNull())
    .addColumn('hlc', 'text', (c) => c.notNull())
    .addColumn('fields', 'text')
    .addColumn('doc', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sync_feed_pk', ['tenant_id', 'location_id', 'seq'])
    .execute();

  // Every change id a store has pushed, with a digest of its content and its outcome: a repeat
  // gets the same answer, a repeat with other content is refused.
  await db.schema
    .createTable('sync_changes')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('change_id', 'text', (c) => c.notNull())
    .addColumn('row_key', 'text', (c) => c.notNull())
    .addColumn('digest', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sync_changes_pk', ['tenant_id', 'location_id', 'change_id'])
    .execute();
  await db.schema
    .createIndex('sync_changes_received')
    .on('sync_changes')
    .columns(['tenant_id', 'location_id', 'received_at'])
    .execute();

  await db.schema
    .createTable('sync_conflicts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('table_name', 'text', (c) => c.notNull())
    .addColumn('row_id', 'text', (c) => c.notNull())
    .addColumn('change_id', 'text', (c) => c.notNull())
    .addColumn('client_base_version', 'bigint', (c) => c.notNull())
    .addColumn('client_version', 'bigint', (c) => c.notNull())
    .addColumn('server_version', 'bigint', (c) => c.notNull())
    .addColumn('client_fields', 'text')
    .addColumn('server_fields', 'text')
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sync_conflicts_location')
    .on('sync_conflicts')
    .columns(['tenant_id', 'location_id', 'occurred_at'])
    .execute();

  // Domain events of every store, as they arrive: what webhooks, alerting and chat consume.
  await db.schema
    .createTable('domain_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('domain_events_tenant')
    .on('domain_events')
    .columns(['tenant_id', 'received_at'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  for (const table of [
    'domain_events',
    'sync_conflicts',
    'sync_changes',
    'sync_feed',
    'sync_rows',
    'sync_locations',
    'sync_appliances',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
