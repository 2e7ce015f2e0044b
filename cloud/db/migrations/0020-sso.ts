import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('sso_providers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('settings', 'text', (c) => c.notNull())
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('allowed_domains', 'text', (c) => c.notNull())
    .addColumn('jit_enabled', 'integer', (c) => c.notNull())
    .addColumn('default_role', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sso_providers_tenant_name')
    .on('sso_providers')
    .columns(['tenant_id', 'name'])
    .unique()
    .execute();

  await db.schema
    .createTable('sso_identities')
    .addColumn('provider_key', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_login_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('sso_identities_pk', ['provider_key', 'subject'])
    .execute();

  await db.schema
    .createTable('sso_logins')
    .addColumn('state', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text')
    .addColumn('tenant_slug', 'text')
    .addColumn('provider_key', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('shell', 'text')
    .addColumn('code_verifier', 'text')
    .addColumn('nonce', 'text')
    .addColumn('saml_request_id', 'text')
    .addColumn('saml_identity', 'text')
    .addColumn('saml_code_hash', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('consumed_at', 'text')
    .execute();
  await db.schema.createIndex('sso_logins_expiry').on('sso_logins').column('expires_at').execute();

  await db.schema
    .createTable('sso_policies')
    .addColumn('tenant_id', 'text', (c) => c.primaryKey().references('tenants.id'))
    .addColumn('require_sso', 'integer', (c) => c.notNull())
    .addColumn('bypass_roles', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}
