import type { Kysely } from 'kysely';

const REAL = 'double precision';

export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('aiops_metric_hours')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('sum', REAL, (c) => c.notNull())
    .addColumn('sum_sq', REAL, (c) => c.notNull())
    .addColumn('min', REAL, (c) => c.notNull())
    .addColumn('max', REAL, (c) => c.notNull())
    .addPrimaryKeyConstraint('aiops_metric_hours_pk', ['tenant_id', 'metric', 'subject', 'hour'])
    .execute();
  // Pruning walks hours across every series.
  await db.schema.createIndex('aiops_metric_hours_hour').on('aiops_metric_hours').column('hour').execute();

  await db.schema
    .createTable('aiops_metric_points')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('value', REAL, (c) => c.notNull())
    .addPrimaryKeyConstraint('aiops_metric_points_pk', ['tenant_id', 'metric', 'subject', 'at'])
    .execute();
  await db.schema.createIndex('aiops_metric_points_at').on('aiops_metric_points').column('at').execute();

  await db.schema
    .createTable('aiops_insights')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('metric', 'text')
    .addColumn('subject', 'text')
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('current_value', REAL)
    .addColumn('baseline', REAL)
    .addColumn('recommended_action', 'text')
    .addColumn('predicted_value', REAL)
    .addColumn('prediction_time', 'text')
    .addColumn('alert_count', 'integer')
    .addColumn('probable_cause', 'text')
    .addColumn('correlation_id', 'text')
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('occurrences', 'integer', (c) => c.notNull())
    .addColumn('observed_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // One insight per key: the upsert's conflict target, so two replicas judging at once still make one.
  await db.schema
    .createIndex('aiops_insights_dedupe')
    .on('aiops_insights')
    .columns(['tenant_id', 'dedupe_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('aiops_insights_list')
    .on('aiops_insights')
    .columns(['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('aiops_insights_type')
    .on('aiops_insights')
    .columns(['tenant_id', 'type', 'id'])
    .execute();
  await db.schema
    .createIndex('aiops_insights_observed')
    .on('aiops_insights')
    .columns(['tenant_id', 'type', 'observed_at'])
    .execute();

  await db.schema
    .createTable('aiops_dependencies')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('service', 'text', (c) => c.notNull())
    .addColumn('depends_on', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('aiops_dependencies_pk', ['tenant_id', 'service'])
    .execute();

  await db.schema
    .createTable('aiops_correlation_groups')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('root_cause_alert', 'text', (c) => c.notNull())
    .addColumn('probable_cause', 'text', (c) => c.notNull())
    .addColumn('confidence', REAL, (c) => c.notNull())
    .addColumn('suggested_action', 'text', (c) => c.notNull())
    .addColumn('runbook_url', 'text')
    .addColumn('dependency_chain', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('aiops_correlation_groups_list')
    .on('aiops_correlation_groups')
    .columns(['tenant_id', 'id'])
    .execute();

  await db.schema
    .createTable('aiops_correlation_members')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('alert_id', 'text', (c) => c.notNull())
    .addColumn('group_id', 'text', (c) => c.notNull().references('aiops_correlation_groups.id'))
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('correlation_score', REAL, (c) => c.notNull())
    .addColumn('relationship', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('aiops_correlation_members_pk', ['tenant_id', 'alert_id'])
    .execute();
  await db.schema
    .createIndex('aiops_correlation_members_group')
    .on('aiops_correlation_members')
    .columns(['tenant_id', 'group_id'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  for (const table of [
    'aiops_correlation_members',
    'aiops_correlation_groups',
    'aiops_dependencies',
    'aiops_insights',
    'aiops_metric_points',
    'aiops_metric_hours',
  ])
    await db.schema.dropTable(table).execute();
}
