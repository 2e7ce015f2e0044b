import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('cockpit_approvals')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('summary', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('original_payload', 'text', (c) => c.notNull())
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('decided_at', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decision', 'text')
    .addColumn('note', 'text')
    .addColumn('reason', 'text')
    .addColumn('escalated_at', 'text')
    .addColumn('escalated_by', 'text')
    .addColumn('escalated_to', 'text')
    .execute();
  // The queue by status, oldest first; and the metrics' scan by creation time.
  await db.schema
    .createIndex('cockpit_approvals_queue')
    .on('cockpit_approvals')
    .columns(['tenant_id', 'status', 'id'])
    .execute();
  await db.schema
    .createIndex('cockpit_approvals_created')
    .on('cockpit_approvals')
    .columns(['tenant_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('cockpit_approvals_decided')
    .on('cockpit_approvals')
    .columns(['tenant_id', 'decided_at'])
    .execute();

  await db.schema
    .createTable('cockpit_approval_decisions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('approval_id', 'text', (c) => c.notNull().references('cockpit_approvals.id'))
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('operator_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('reason', 'text')
    .addColumn('payload', 'text')
    .addColumn('escalated_to', 'text')
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('cockpit_approval_decisions_item')
    .on('cockpit_approval_decisions')
    .columns(['tenant_id', 'approval_id', 'id'])
    .execute();

  await db.schema
    .createTable('cockpit_agent_settings')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id'))
    .addColumn('max_model_tier', 'text', (c) => c.notNull())
    .addColumn('safety_level', 'integer', (c) => c.notNull())
    .addColumn('rate_limit_per_minute', 'integer', (c) => c.notNull())
    .addColumn('context_window_tokens', 'integer', (c) => c.notNull())
    .addColumn('timeout_seconds', 'integer', (c) => c.notNull())
    .addColumn('kill_switch', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('remediations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('alert_id', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('risk', 'text', (c) => c.notNull())
    .addColumn('parameters', 'text', (c) => c.notNull())
    .addColumn('environment', 'text')
    .addColumn('target', 'text')
    .addColumn('rate_group', 'text')
    .addColumn('runbook', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('dry_run', 'integer', (c) => c.notNull())
    .addColumn('auto_approved', 'integer', (c) => c.notNull())
    .addColumn('safety_checks', 'text', (c) => c.notNull())
    .addColumn('result', 'text')
    .addColumn('execution_ms', 'integer')
    .addColumn('refused_by', 'text')
    .addColumn('approval_id', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('requested_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .execute();
  await db.schema.createIndex('remediations_list').on('remediations').columns(['tenant_id', 'id']).execute();
  // The hourly limits count a target's recent executions of one group.
  await db.schema
    .createIndex('remediations_rate')
    .on('remediations')
    .columns(['tenant_id', 'rate_group', 'target', 'started_at'])
    .execute();
  await db.schema
    .createIndex('remediations_idempotency')
    .on('remediations')
    .columns(['tenant_id', 'idempotency_key'])
    .unique()
    .execute();
  await db.schema
    .createIndex('remediations_created')
    .on('remediations')
    .columns(['tenant_id', 'created_at'])
    .execute();
  await db.schema
    .createIndex('remediations_finished')
    .on('remediations')
    .columns(['tenant_id', 'finished_at'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropTable('remediations').ifExists().execute();
  await db.schema.dropTable('cockpit_agent_settings').ifExists().execute();
  await db.schema.dropTable('cockpit_approval_decisions').ifExists().execute();
  await db.schema.dropTable('cockpit_approvals').ifExists().execute();
}
