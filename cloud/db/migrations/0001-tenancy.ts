import type { Kysely } from 'kysely';

// Timestamps are ISO 8601 UTC text and booleans integers in both dialects, so one code path (and
// one test suite) serves SQLite and PostgreSQL alike; ISO text of fixed width sorts correctly.
export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('tenants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  for (const table of ['brands', 'regions'] as const) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint(`${table}_tenant_name`, ['tenant_id', 'name'])
      // Lets locations reference (tenant_id, id), so a location can never point across tenants.
      .addUniqueConstraint(`${table}_tenant_id`, ['tenant_id', 'id'])
      .execute();
  }

  await db.schema
    .createTable('locations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('region_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addForeignKeyConstraint('locations_brand', ['tenant_id', 'brand_id'], 'brands', ['tenant_id', 'id'])
    .addForeignKeyConstraint('locations_region', ['tenant_id', 'region_id'], 'regions', ['tenant_id', 'id'])
    .addUniqueConstraint('locations_tenant_name', ['tenant_id', 'name'])
    .execute();

  // A person is one user across tenants (one email, one password); what they may do is per tenant.
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('username', 'text', (c) => c.unique())
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('display_name', 'text', (c) => c.notNull())
    .addColumn('password_hash', 'text')
    .addColumn('pin_hash', 'text')
    .addColumn('email_verified', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('memberships')
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('roles', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['tenant_id', 'user_id'])
    .execute();
  await db.schema.createIndex('memberships_user').on('memberships').column('user_id').execute();
}

export async function down(db: Kysely<unknown>) {
  for (const table of ['memberships', 'users', 'locations', 'regions', 'brands', 'tenants']) {
    await db.schema.dropTable(table).execute();
  }
}
