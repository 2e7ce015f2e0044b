import type { Kysely } from 'kysely';

/**
 * Head office's view of the stores' orders. Row ids are unique within a tenant (a push naming
 * another store's row is refused), so the tenant and id are the key. The indexes serve the
 * order list newest first: across the tenant, for one store, and for one store's business day.
 */
export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('commerce_orders')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('business_day', 'text', (c) => c.notNull())
    .addColumn('order_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('table_label', 'text')
    .addColumn('server_id', 'text')
    .addColumn('server_name', 'text')
    .addColumn('subtotal_minor', 'bigint', (c) => c.notNull())
    .addColumn('tax_minor', 'bigint', (c) => c.notNull())
    .addColumn('total_minor', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_orders_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('commerce_orders_newest')
    .on('commerce_orders')
    .columns(['tenant_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('commerce_orders_store')
    .on('commerce_orders')
    .columns(['tenant_id', 'location_id', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('commerce_orders_store_day')
    .on('commerce_orders')
    .columns(['tenant_id', 'location_id', 'business_day', 'created_at', 'id'])
    .execute();
  await db.schema
    .createIndex('commerce_orders_day')
    .on('commerce_orders')
    .columns(['tenant_id', 'business_day', 'created_at', 'id'])
    .execute();
  for (const table of ['commerce_order_items', 'commerce_payments']) {
    await db.schema
      .createTable(table)
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('location_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('order_id', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('version', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ['tenant_id', 'id'])
      .execute();
    await db.schema.createIndex(`${table}_order`).on(table).columns(['tenant_id', 'order_id']).execute();
  }
  await menu(db);
}

async function menu(db: Kysely<unknown>) {
  await db.schema
    .createTable('commerce_menu_categories')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_menu_categories_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('commerce_menu_categories_brand')
    .on('commerce_menu_categories')
    .columns(['tenant_id', 'brand_id', 'id'])
    .execute();
  await db.schema
    .createTable('commerce_menu_items')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('category_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('price_minor', 'bigint', (c) => c.notNull())
    .addColumn('available', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_menu_items_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('commerce_menu_items_brand')
    .on('commerce_menu_items')
    .columns(['tenant_id', 'brand_id', 'id'])
    .execute();
  await db.schema
    .createTable('commerce_menu_overrides')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('price_minor', 'bigint')
    .addColumn('available', 'integer')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_menu_overrides_pk', ['tenant_id', 'item_id', 'location_id'])
    .execute();
  await db.schema
    .createTable('commerce_publications')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('change', 'text', (c) => c.notNull())
    .addColumn('catalog_ids', 'text', (c) => c.notNull())
    .addColumn('location_ids', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .addPrimaryKeyConstraint('commerce_publications_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('commerce_publications_state')
    .on('commerce_publications')
    .columns(['state', 'created_at'])
    .execute();
  await db.schema
    .createTable('commerce_publication_stores')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('publication_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('feed_seq', 'bigint')
    .addColumn('written_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_publication_stores_pk', ['tenant_id', 'publication_id', 'location_id'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  for (const table of [
    'commerce_publication_stores',
    'commerce_publications',
    'commerce_menu_overrides',
    'commerce_menu_items',
    'commerce_menu_categories',
    'commerce_payments',
    'commerce_order_items',
    'commerce_orders',
  ])
    await db.schema.dropTable(table).execute();
}
