import type { Kysely } from 'kysely';

type Builder = ReturnType<Kysely<unknown>['schema']['createTable']>;

const table = (db: Kysely<unknown>, name: string, columns: (t: Builder) => Builder, key: string[]) =>
  columns(db.schema.createTable(name))
    .addPrimaryKeyConstraint(`${name}_pk`, key as never)
    .execute();

const scoped = (t: Builder) =>
  t.addColumn('tenant_id', 'text', (c) => c.notNull()).addColumn('location_id', 'text', (c) => c.notNull());

/** Profit and loss: facts of synced rows, daily rollups, and the finance ledger. */
export async function up(db: Kysely<unknown>) {
  await table(
    db,
    'pnl_orders',
    (t) =>
      scoped(t)
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('business_day', 'text', (c) => c.notNull())
        .addColumn('counted', 'integer', (c) => c.notNull())
        .addColumn('subtotal_minor', 'bigint', (c) => c.notNull()),
    ['tenant_id', 'location_id', 'id'],
  );
  await db.schema
    .createIndex('pnl_orders_day')
    .on('pnl_orders')
    .columns(['tenant_id', 'location_id', 'business_day'])
    .execute();
  await table(
    db,
    'pnl_lines',
    (t) =>
      scoped(t)
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('order_id', 'text', (c) => c.notNull())
        .addColumn('menu_item_id', 'text', (c) => c.notNull())
        .addColumn('quantity', 'integer', (c) => c.notNull())
        .addColumn('business_day', 'text', (c) => c.notNull())
        .addColumn('counted', 'integer', (c) => c.notNull()),
    ['tenant_id', 'location_id', 'id'],
  );
  // A line carries its order's day and standing, so a day is summed from one table by one index
  // (no join for a planner without statistics to get wrong).
  await db.schema
    .createIndex('pnl_lines_day')
    .on('pnl_lines')
    .columns(['tenant_id', 'location_id', 'business_day'])
    .execute();
  await db.schema
    .createIndex('pnl_lines_order')
    .on('pnl_lines')
    .columns(['tenant_id', 'location_id', 'order_id'])
    .execute();
  await table(
    db,
    'pnl_payments',
    (t) =>
      scoped(t)
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('order_id', 'text', (c) => c.notNull())
        .addColumn('refunded_minor', 'bigint', (c) => c.notNull())
        .addColumn('business_day', 'text', (c) => c.notNull())
        .addColumn('counted', 'integer', (c) => c.notNull()),
    ['tenant_id', 'location_id', 'id'],
  );
  await db.schema
    .createIndex('pnl_payments_day')
    .on('pnl_payments')
    .columns(['tenant_id', 'location_id', 'business_day'])
    .execute();
  await db.schema
    .createIndex('pnl_payments_order')
    .on('pnl_payments')
    .columns(['tenant_id', 'location_id', 'order_id'])
    .execute();
  await table(
    db,
    'pnl_punches',
    (t) =>
      scoped(t)
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('staff_id', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull()),
    ['tenant_id', 'location_id', 'id'],
  );
  await db.schema
    .createIndex('pnl_punches_staff')
    .on('pnl_punches')
    .columns(['tenant_id', 'location_id', 'staff_id', 'at'])
    .execute();
  await table(
    db,
    'pnl_recipes',
    (t) =>
      scoped(t)
        .addColumn('menu_item_id', 'text', (c) => c.notNull())
        .addColumn('components', 'text', (c) => c.notNull()),
    ['tenant_id', 'location_id', 'menu_item_id'],
  );
  await table(
    db,
    'pnl_menu_items',
    (t) =>
      scoped(t)
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('category_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull()),
    ['tenant_id', 'location_id', 'id'],
  );
  await table(
    db,
    'pnl_menu_costs',
    (t) =>
      scoped(t)
        .addColumn('menu_item_id', 'text', (c) => c.notNull())
        .addColumn('unit_cost_micros', 'bigint', (c) => c.notNull())
        .addColumn('is_beverage', 'integer', (c) => c.notNull()),
    ['tenant_id', 'location_id', 'menu_item_id'],
  );
  await table(
    db,
    'pnl_day_items',
    (t) =>
      scoped(t)
        .addColumn('business_day', 'text', (c) => c.notNull())
        .addColumn('menu_item_id', 'text', (c) => c.notNull())
        .addColumn('quantity', 'bigint', (c) => c.notNull()),
    ['tenant_id', 'location_id', 'business_day', 'menu_item_id'],
  );
  await table(
    db,
    'pnl_day_hours',
    (t) =>
      scoped(t)
        .addColumn('business_day', 'text', (c) => c.notNull())
        .addColumn('staff_id', 'text', (c) => c.notNull())
        .addColumn('seconds', 'bigint', (c) => c.notNull()),
    ['tenant_id', 'location_id', 'business_day', 'staff_id'],
  );
  await db.schema
    .createIndex('pnl_day_hours_staff')
    .on('pnl_day_hours')
    .columns(['tenant_id', 'staff_id'])
    .execute();
  await table(
    db,
    'pnl_days',
    (t) =>
      scoped(t)
        .addColumn('business_day', 'text', (c) => c.notNull())
        .addColumn('gross_minor', 'bigint', (c) => c.notNull())
        .addColumn('discount_minor', 'bigint', (c) => c.notNull())
        .addColumn('refund_minor', 'bigint', (c) => c.notNull())
        .addColumn('food_cost_minor', 'bigint', (c) => c.notNull())
        .addColumn('beverage_cost_minor', 'bigint', (c) => c.notNull())
        .addColumn('labor_cost_minor', 'bigint', (c) => c.notNull()),
    ['tenant_id', 'location_id', 'business_day'],
  );
  await db.schema
    .createIndex('pnl_days_by_day')
    .on('pnl_days')
    .columns(['tenant_id', 'business_day'])
    .execute();
  await createLedger(db);
}

async function createLedger(db: Kysely<unknown>) {
  await db.schema
    .createTable('pnl_expenses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'text')
    .addColumn('brand_id', 'text')
    .addColumn('expense_date', 'text', (c) => c.notNull())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'bigint', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('pnl_expenses_date')
    .on('pnl_expenses')
    .columns(['tenant_id', 'expense_date'])
    .execute();
  await db.schema
    .createTable('pnl_wage_rates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('staff_id', 'text', (c) => c.notNull())
    .addColumn('hourly_rate_minor', 'bigint', (c) => c.notNull())
    .addColumn('effective_from', 'text', (c) => c.notNull())
    .addColumn('effective_to', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('pnl_wage_rates_from', ['tenant_id', 'staff_id', 'effective_from'])
    .execute();
  await db.schema
    .createTable('pnl_item_costs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('inventory_item_id', 'text', (c) => c.notNull())
    .addColumn('unit_cost_micros', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('pnl_item_costs_item', ['tenant_id', 'inventory_item_id'])
    .execute();
  await db.schema
    .createTable('pnl_classifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('ref_id', 'text', (c) => c.notNull())
    .addColumn('cost_class', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('pnl_classifications_ref', ['tenant_id', 'kind', 'ref_id'])
    .execute();
  await db.schema
    .createTable('pnl_budgets')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull())
    .addColumn('brand_id', 'text')
    .addColumn('location_id', 'text')
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('amounts', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('pnl_budgets_scope')
    .on('pnl_budgets')
    .columns(['tenant_id', 'month', 'brand_id', 'location_id'])
    .execute();
}

export async function down(db: Kysely<unknown>) {
  for (const name of [
    'pnl_budgets',
    'pnl_classifications',
    'pnl_item_costs',
    'pnl_wage_rates',
    'pnl_expenses',
    'pnl_days',
    'pnl_day_hours',
    'pnl_day_items',
    'pnl_menu_costs',
    'pnl_menu_items',
    'pnl_recipes',
    'pnl_punches',
    'pnl_payments',
    'pnl_lines',
    'pnl_orders',
  ])
    await db.schema.dropTable(name).execute();
}
