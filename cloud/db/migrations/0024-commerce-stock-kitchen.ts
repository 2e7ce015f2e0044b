import type { Kysely } from 'kysely';

/**
 * Head office's stock and kitchen per brand (stock items, recipes, stations, routing), published
 * to the stores like the menu, and each store's stock levels as the sum of the movements it pushed.
 */
export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('commerce_stock_items')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('unit', 'text', (c) => c.notNull())
    .addColumn('reorder_level_milli', 'bigint', (c) => c.notNull())
    .addColumn('reorder_quantity_milli', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_stock_items_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('commerce_stock_items_brand')
    .on('commerce_stock_items')
    .columns(['tenant_id', 'brand_id', 'id'])
    .execute();
  await db.schema
    .createTable('commerce_recipes')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('components', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_recipes_pk', ['tenant_id', 'item_id'])
    .execute();
  await db.schema
    .createTable('commerce_stations')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('brand_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_stations_pk', ['tenant_id', 'id'])
    .execute();
  await db.schema
    .createIndex('commerce_stations_brand')
    .on('commerce_stations')
    .columns(['tenant_id', 'brand_id', 'id'])
    .execute();
  // location_id '' is the brand's route; a store's own route names the store.
  await db.schema
    .createTable('commerce_routes')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('item_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('station_id', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_routes_pk', ['tenant_id', 'item_id', 'location_id'])
    .execute();
  await levels(db);
}

async function levels(db: Kysely<unknown>) {
  await db.schema
    .createTable('commerce_stock_levels')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('inventory_item_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('unit', 'text')
    .addColumn('reorder_level_milli', 'bigint')
    .addColumn('reorder_quantity_milli', 'bigint')
    .addColumn('quantity_milli', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_stock_levels_pk', ['tenant_id', 'location_id', 'inventory_item_id'])
    .execute();
  await db.schema
    .createTable('commerce_stock_movements')
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text', (c) => c.notNull())
    .addColumn('inventory_item_id', 'text', (c) => c.notNull())
    .addColumn('delta_milli', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('commerce_stock_movements_pk', ['tenant_id', 'id'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  for (const table of [
    'commerce_stock_movements',
    'commerce_stock_levels',
    'commerce_routes',
    'commerce_stations',
    'commerce_recipes',
    'commerce_stock_items',
  ])
    await db.schema.dropTable(table).execute();
}
