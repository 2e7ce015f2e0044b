import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('incidents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('type', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('service', 'text')
    .addColumn('description', 'text')
    .addColumn('runbook_url', 'text')
    .addColumn('device_id', 'text')
    .addColumn('location_id', 'text')
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('source_event_id', 'text')
    .addColumn('occurrences', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('last_occurred_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('acknowledged_at', 'text')
    .addColumn('acknowledged_by', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('resolved_by', 'text')
    .execute();
  // A store re-sending its events never opens a second incident for one event.
  await db.schema
    .createIndex('incidents_source_event')
    .on('incidents')
    .columns(['tenant_id', 'source_event_id'])
    .unique()
    .where(sql.ref('source_event_id'), 'is not', null)
    .execute();
  // One unresolved incident per device and type: a repeat alert is folded into it (the upsert's
  // conflict target), even when two replicas take the device's alerts at once.
  await db.schema
    .createIndex('incidents_active_device')
    .on('incidents')
    .columns(['tenant_id', 'device_id', 'type'])
    .unique()
    .where(sql.ref('resolved_at'), 'is', null)
    .execute();
  // The list, newest first, alone or by its common filters.
  await db.schema.createIndex('incidents_list').on('incidents').columns(['tenant_id', 'id']).execute();
  await db.schema
    .createIndex('incidents_status')
    .on('incidents')
    .columns(['tenant_id', 'status', 'id'])
    .execute();
  await db.schema
    .createIndex('incidents_location')
    .on('incidents')
    .columns(['tenant_id', 'location_id', 'id'])
    .execute();
  await db.schema
    .createIndex('incidents_device')
    .on('incidents')
    .columns(['tenant_id', 'device_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropTable('incidents').execute();
}
