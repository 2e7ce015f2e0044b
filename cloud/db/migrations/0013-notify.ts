import { type Kysely, sql } from 'kysely';

/** Notifications: the outbox of alert messages, every attempt's outcome, per-tenant settings. */
export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('alert_id', 'text')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('dedupe_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('last_error', 'text')
    .addColumn('provider_ref', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  // A replayed escalation step enqueues the same keys again: the index makes that a no-op.
  await db.schema
    .createIndex('notifications_dedupe')
    .on('notifications')
    .columns(['tenant_id', 'dedupe_key'])
    .unique()
    .execute();
  // The worker's poll reads only pending rows, whatever the history holds.
  await db.schema
    .createIndex('notifications_due')
    .on('notifications')
    .column('next_attempt_at')
    .where(sql.ref('status'), '=', 'pending')
    .execute();
  await db.schema
    .createIndex('notifications_alert')
    .on('notifications')
    .columns(['tenant_id', 'alert_id', 'id'])
    .execute();
  await db.schema
    .createIndex('notifications_tenant')
    .on('notifications')
    .columns(['tenant_id', 'id'])
    .execute();

  await db.schema
    .createTable('notification_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('notification_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('provider_status', 'integer')
    .addColumn('provider_answer', 'text')
    .addColumn('error', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('duration_ms', 'integer')
    .execute();
  await db.schema
    .createIndex('notification_attempts_of')
    .on('notification_attempts')
    .columns(['tenant_id', 'notification_id', 'attempt'])
    .execute();

  await db.schema
    .createTable('notification_settings')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey())
    .addColumn('team_chat_webhook_url', 'text')
    .addColumn('email_from', 'text')
    .addColumn('enabled_channels', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropTable('notification_settings').ifExists().execute();
  await db.schema.dropTable('notification_attempts').ifExists().execute();
  await db.schema.dropTable('notifications').ifExists().execute();
}
