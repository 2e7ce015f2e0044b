import { type Kysely, sql } from 'kysely';

async function alerts(db: Kysely<unknown>) {
  await db.schema
    .createTable('alerts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('original_severity', 'text')
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('service', 'text', (c) => c.notNull())
    .addColumn('environment', 'text')
    .addColumn('labels', 'text', (c) => c.notNull())
    .addColumn('runbook_url', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('occurrences', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('escalation_level', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('acknowledged_at', 'text')
    .addColumn('acknowledged_by', 'text')
    .addColumn('note', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('resolved_by', 'text')
    .addColumn('resolution_note', 'text')
    .addColumn('suppressed', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('maintenance_window_id', 'text')
    .addColumn('maintenance_type', 'text')
    .addColumn('policy_id', 'text')
    .addColumn('escalation', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One unresolved alert per fingerprint: a repeat is folded into it (the upsert's conflict
  // target), even when two replicas take the same alert at once.
  await db.schema
    .createIndex('alerts_open_fingerprint')
    .on('alerts')
    .columns(['tenant_id', 'fingerprint'])
    .unique()
    .where(sql.ref('resolved_at'), 'is', null)
    .execute();
  await db.schema.createIndex('alerts_list').on('alerts').columns(['tenant_id', 'id']).execute();
  await db.schema.createIndex('alerts_status').on('alerts').columns(['tenant_id', 'status', 'id']).execute();
  await db.schema.createIndex('alerts_started').on('alerts').columns(['tenant_id', 'started_at']).execute();
}

async function steps(db: Kysely<unknown>) {
  await db.schema
    .createTable('alert_escalation_steps')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('alert_id', 'text', (c) => c.notNull().references('alerts.id'))
    .addColumn('level', 'integer', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('due_at', 'text', (c) => c.notNull())
    .addColumn('done_at', 'text')
    .addColumn('outcome', 'text')
    .addColumn('fires_alert', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // A step is scheduled once, however often the step before it is replayed.
  await db.schema
    .createIndex('alert_escalation_steps_key')
    .on('alert_escalation_steps')
    .columns(['alert_id', 'level', 'position'])
    .unique()
    .execute();
  // The worker's look for due work reads only the pending steps.
  await db.schema
    .createIndex('alert_escalation_steps_due')
    .on('alert_escalation_steps')
    .columns(['due_at'])
    .where(sql.ref('done_at'), 'is', null)
    .execute();
}

async function settings(db: Kysely<unknown>) {
  await db.schema
    .createTable('alert_policies')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'integer', (c) => c.notNull())
    .addColumn('match_services', 'text', (c) => c.notNull())
    .addColumn('match_severities', 'text', (c) => c.notNull())
    .addColumn('match_labels', 'text', (c) => c.notNull())
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('skip_when_acknowledged', 'integer', (c) => c.notNull())
    .addColumn('levels', 'text', (c) => c.notNull())
    .addColumn('rotation', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('alert_policies_list')
    .on('alert_policies')
    .columns(['tenant_id', 'id'])
    .execute();
  // At most one default policy per tenant.
  await db.schema
    .createIndex('alert_policies_default')
    .on('alert_policies')
    .column('tenant_id')
    .unique()
    .where(sql.ref('is_default'), '=', 1)
    .execute();
  await db.schema
    .createTable('alert_maintenance_windows')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    .addColumn('match_services', 'text', (c) => c.notNull())
    .addColumn('match_labels', 'text', (c) => c.notNull())
    .addColumn('match_location_ids', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('alert_maintenance_windows_active')
    .on('alert_maintenance_windows')
    .columns(['tenant_id', 'ends_at'])
    .execute();
}

export async function up(db: Kysely<unknown>) {
  await alerts(db);
  await steps(db);
  await settings(db);
}

export async function down(db: Kysely<unknown>) {
  for (const table of ['alert_escalation_steps', 'alert_maintenance_windows', 'alert_policies', 'alerts']) {
    await db.schema.dropTable(table).execute();
  }
}
