import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>) {
  // Cloud-wide, not per tenant: every appliance trusts the same update key chain.
  await db.schema
    .createTable('update_keys')
    .addColumn('key_id', 'text', (c) => c.primaryKey())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('endorsement', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .execute();
  // Exactly one key signs: two replicas making the first key at once, or two rotations racing,
  // meet here and one of them loses.
  await db.schema
    .createIndex('update_keys_one_active')
    .on('update_keys')
    .column('state')
    .unique()
    .where(sql.ref('state'), '=', 'active')
    .execute();

  await db.schema
    .createTable('releases')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('notes', 'text')
    .addColumn('release_meta', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('retired_at', 'text')
    .execute();
  // A version names one set of bytes for good: a retired release keeps its version.
  await db.schema
    .createIndex('releases_version')
    .on('releases')
    .columns(['tenant_id', 'version'])
    .unique()
    .execute();
  await db.schema.createIndex('releases_list').on('releases').columns(['tenant_id', 'id']).execute();

  await db.schema
    .createTable('release_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'))
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('sha256', 'text')
    .addColumn('notes', 'text')
    .addColumn('received', 'bigint', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('release_id', 'text')
    .addColumn('error', 'text')
    .addColumn('writer', 'text')
    .addColumn('writer_until', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  // The sweep reads only open uploads whose time ran out.
  await db.schema
    .createIndex('release_uploads_open')
    .on('release_uploads')
    .column('expires_at')
    .where(sql.ref('state'), '=', 'open')
    .execute();
}

export async function down(db: Kysely<unknown>) {
  for (const table of ['release_uploads', 'releases', 'update_keys'])
    await db.schema.dropTable(table).execute();
}
