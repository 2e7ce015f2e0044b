import type { Kysely } from 'kysely';

/**
 * Head office's view of the stores' punches, and each store's calendar to place them on its
 * business days. Punch ids are unique within a tenant (a push naming another store's row is
 * refused), so the tenant and id are the key. The indexes serve the list in time order: across
 * the tenant or one store, each by business day or not.
 */
export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('commerce_punches')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('staff_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('corrected_by', 'text')
    .addColumn('reason', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('business_day', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_punches_pk', ['tenant_id', 'id'])
    .execute();
  const indexes: Array<[string, string[]]> = [
    ['commerce_punches_time', ['tenant_id', 'at', 'id']],
    ['commerce_punches_store', ['tenant_id', 'location_id', 'at', 'id']],
    ['commerce_punches_day', ['tenant_id', 'business_day', 'at', 'id']],
    ['commerce_punches_store_day', ['tenant_id', 'location_id', 'business_day', 'at', 'id']],
  ];
  for (const [name, columns] of indexes)
    await db.schema.createIndex(name).on('commerce_punches').columns(columns).execute();
  await db.schema
    .createTable('commerce_calendars')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('business_day_starts_at', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_calendars_pk', ['tenant_id', 'location_id'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropTable('commerce_calendars').execute();
  await db.schema.dropTable('commerce_punches').execute();
}
