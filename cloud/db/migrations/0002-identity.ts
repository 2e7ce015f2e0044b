import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('auth_method', 'text', (c) => c.notNull())
    .addColumn('mfa_verified', 'integer', (c) => c.notNull())
    .addColumn('location_id', 'text')
    .addColumn('device_id', 'text')
    .addColumn('device_name', 'text')
    .addColumn('device_fingerprint', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('parent_session_id', 'text')
    // Only the newest refresh token of a session is honoured; an older one coming back is theft.
    .addColumn('refresh_jti', 'text', (c) => c.notNull())
    .addColumn('refresh_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('refreshed_at', 'text')
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .addColumn('end_reason', 'text')
    .execute();
  await db.schema
    .createIndex('sessions_tenant_user')
    .on('sessions')
    .columns(['tenant_id', 'user_id'])
    .execute();

  await db.schema
    .createTable('mfa_factors')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('factor_type', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    // The last accepted TOTP time step: a code is never accepted twice, nor an older one.
    .addColumn('last_used_step', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('enabled_at', 'text')
    .execute();
  await db.schema.createIndex('mfa_factors_user').on('mfa_factors').column('user_id').execute();

  await db.schema
    .createTable('mfa_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('challenge_code', 'text', (c) => c.notNull())
    .addColumn('context', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('consumed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('signing_keys')
    .addColumn('kid', 'text', (c) => c.primaryKey())
    .addColumn('alg', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('public_jwk', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .addColumn('publish_until', 'text')
    .execute();

  await db.schema
    .createTable('login_throttle')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('last_failure_at', 'text', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text')
    .addColumn('locked_until', 'text')
    .execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('ip_address', 'text')
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('audit_events_tenant_time')
    .on('audit_events')
    .columns(['tenant_id', 'created_at'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  for (const table of [
    'audit_events',
    'login_throttle',
    'signing_keys',
    'mfa_challenges',
    'mfa_factors',
    'sessions',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
