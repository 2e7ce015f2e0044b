import { type Kysely, sql } from 'kysely';

const INCIDENT_COLUMNS = [
  'alert_id',
  'channel_id',
  'runbook_id',
  'responders',
  'started_at',
  'last_activity_at',
] as const;

export async function up(db: Kysely<unknown>) {
  for (const column of INCIDENT_COLUMNS)
    await db.schema.alterTable('incidents').addColumn(column, 'text').execute();
  // The quiet-incident sweeper: unresolved incidents with a channel, by their last activity.
  await db.schema
    .createIndex('incidents_quiet')
    .on('incidents')
    .columns(['status', 'last_activity_at'])
    .where(sql.ref('channel_id'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('incidents_service')
    .on('incidents')
    .columns(['tenant_id', 'service', 'id'])
    .execute();
  await db.schema
    .createIndex('incidents_severity')
    .on('incidents')
    .columns(['tenant_id', 'severity', 'id'])
    .execute();

  await db.schema
    .createTable('incident_timeline')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('incident_id', 'text', (c) => c.notNull().references('incidents.id'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('actor', 'text')
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('data', 'text')
    .addColumn('dedupe_key', 'text')
    .execute();
  await db.schema
    .createIndex('incident_timeline_list')
    .on('incident_timeline')
    .columns(['tenant_id', 'incident_id', 'id'])
    .execute();
  // A flow step replayed after a crash or a second delivery records its entry once.
  await db.schema
    .createIndex('incident_timeline_dedupe')
    .on('incident_timeline')
    .columns(['tenant_id', 'incident_id', 'dedupe_key'])
    .unique()
    .where(sql.ref('dedupe_key'), 'is not', null)
    .execute();

  await db.schema
    .createTable('incident_alerts')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('alert_id', 'text', (c) => c.notNull())
    .addColumn('incident_id', 'text', (c) => c.notNull().references('incidents.id'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('incident_alerts_pk', ['tenant_id', 'alert_id'])
    .execute();
  await db.schema
    .createIndex('incident_alerts_incident')
    .on('incident_alerts')
    .columns(['tenant_id', 'incident_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('incident_runbooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('match_service', 'text')
    .addColumn('match_type', 'text')
    .addColumn('match_labels', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('incident_runbooks_list')
    .on('incident_runbooks')
    .columns(['tenant_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropTable('incident_runbooks').execute();
  await db.schema.dropTable('incident_alerts').execute();
  await db.schema.dropTable('incident_timeline').execute();
  await db.schema.dropIndex('incidents_severity').execute();
  await db.schema.dropIndex('incidents_service').execute();
  await db.schema.dropIndex('incidents_quiet').execute();
  for (const column of INCIDENT_COLUMNS) await db.schema.alterTable('incidents').dropColumn(column).execute();
}
