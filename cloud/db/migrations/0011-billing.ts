import type { CreateTableBuilder, Kysely } from 'kysely';

const base = (table: CreateTableBuilder<string, never>) =>
  table
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('tenant_id', 'text', (c) => c.notNull().references('tenants.id'));

const stamps = (table: CreateTableBuilder<string, never>) =>
  table
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull());

async function records(db: Kysely<unknown>) {
  await stamps(
    base(db.schema.createTable('billing_subscriptions'))
      .addColumn('plan_id', 'text', (c) => c.notNull())
      .addColumn('processor_subscription_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('current_period_end', 'text', (c) => c.notNull())
      .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull())
      .addColumn('discount_id', 'text')
      .addColumn('discount_applied_at', 'text'),
  ).execute();
  await stamps(
    base(db.schema.createTable('billing_addons'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('addon_type', 'text', (c) => c.notNull())
      .addColumn('price_cents', 'integer', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('processor_price_id', 'text')
      .addColumn('metadata_json', 'text')
      .addColumn('is_active', 'integer', (c) => c.notNull()),
  ).execute();
  await stamps(
    base(db.schema.createTable('billing_subscription_addons'))
      .addColumn('subscription_id', 'text', (c) => c.notNull())
      .addColumn('addon_id', 'text', (c) => c.notNull())
      .addColumn('quantity', 'integer', (c) => c.notNull()),
  ).execute();
  await stamps(
    base(db.schema.createTable('billing_discounts'))
      .addColumn('code', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('discount_type', 'text', (c) => c.notNull())
      .addColumn('discount_value', 'integer', (c) => c.notNull())
      .addColumn('duration', 'text', (c) => c.notNull())
      .addColumn('duration_months', 'integer')
      .addColumn('max_redemptions', 'integer')
      .addColumn('times_redeemed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('valid_from', 'text', (c) => c.notNull())
      .addColumn('valid_to', 'text')
      .addColumn('applies_to_plan_ids', 'text')
      .addColumn('processor_coupon_id', 'text')
      .addColumn('is_active', 'integer', (c) => c.notNull()),
  ).execute();
}

async function money(db: Kysely<unknown>) {
  await stamps(
    base(db.schema.createTable('billing_invoices'))
      .addColumn('processor_invoice_id', 'text', (c) => c.notNull())
      .addColumn('subscription_id', 'text')
      .addColumn('amount_due', 'bigint', (c) => c.notNull())
      .addColumn('amount_paid', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('invoice_pdf', 'text')
      .addColumn('hosted_invoice_url', 'text'),
  ).execute();
  await stamps(
    base(db.schema.createTable('billing_refunds'))
      .addColumn('processor_refund_id', 'text', (c) => c.notNull())
      .addColumn('processor_charge_id', 'text', (c) => c.notNull())
      .addColumn('invoice_id', 'text')
      .addColumn('amount', 'bigint', (c) => c.notNull())
      .addColumn('currency', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('description', 'text'),
  ).execute();
  await stamps(
    base(db.schema.createTable('billing_dunning'))
      .addColumn('subscription_id', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('failure_count', 'integer', (c) => c.notNull())
      .addColumn('first_failure_at', 'text')
      .addColumn('last_failure_at', 'text')
      .addColumn('next_retry_at', 'text')
      .addColumn('last_failure_code', 'text')
      .addColumn('last_failure_message', 'text')
      .addColumn('recovered_at', 'text'),
  ).execute();
}

async function streams(db: Kysely<unknown>) {
  await base(db.schema.createTable('billing_usage_records'))
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('metric_name', 'text', (c) => c.notNull())
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await base(db.schema.createTable('billing_subscription_events'))
    .addColumn('subscription_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('from_plan_id', 'text')
    .addColumn('to_plan_id', 'text')
    .addColumn('from_mrr_cents', 'bigint')
    .addColumn('to_mrr_cents', 'bigint')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('event_at', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

const INDEXES: Array<{ name: string; table: string; columns: string[]; unique?: boolean }> = [
  { name: 'billing_subscriptions_tenant', table: 'billing_subscriptions', columns: ['tenant_id', 'id'] },
  { name: 'billing_addons_tenant', table: 'billing_addons', columns: ['tenant_id', 'id'] },
  {
    name: 'billing_subscription_addons_pair',
    table: 'billing_subscription_addons',
    columns: ['tenant_id', 'subscription_id', 'addon_id'],
    unique: true,
  },
  {
    name: 'billing_discounts_code',
    table: 'billing_discounts',
    columns: ['tenant_id', 'code'],
    unique: true,
  },
  {
    name: 'billing_invoices_processor',
    table: 'billing_invoices',
    columns: ['tenant_id', 'processor_invoice_id'],
    unique: true,
  },
  {
    name: 'billing_refunds_processor',
    table: 'billing_refunds',
    columns: ['tenant_id', 'processor_refund_id'],
    unique: true,
  },
  { name: 'billing_refunds_list', table: 'billing_refunds', columns: ['tenant_id', 'id'] },
  {
    name: 'billing_dunning_subscription',
    table: 'billing_dunning',
    columns: ['tenant_id', 'subscription_id'],
    unique: true,
  },
  // The idempotency key: the conflict target that makes a repeated usage post a duplicate.
  {
    name: 'billing_usage_key',
    table: 'billing_usage_records',
    columns: ['tenant_id', 'idempotency_key'],
    unique: true,
  },
  // Summaries: a range scan of this index alone (quantity rides along, so no table reads).
  {
    name: 'billing_usage_summary',
    table: 'billing_usage_records',
    columns: ['tenant_id', 'subscription_id', 'metric_name', 'recorded_at', 'quantity'],
  },
  {
    name: 'billing_events_time',
    table: 'billing_subscription_events',
    columns: ['tenant_id', 'event_at', 'id'],
  },
  {
    name: 'billing_events_subscription',
    table: 'billing_subscription_events',
    columns: ['tenant_id', 'subscription_id', 'event_at'],
  },
];

export async function up(db: Kysely<unknown>) {
  await records(db);
  await money(db);
  await streams(db);
  for (const index of INDEXES) {
    const builder = db.schema.createIndex(index.name).on(index.table).columns(index.columns);
    await (index.unique ? builder.unique() : builder).execute();
  }
}

export async function down(db: Kysely<unknown>) {
  for (const table of [
    'billing_subscription_events',
    'billing_usage_records',
    'billing_dunning',
    'billing_refunds',
    'billing_invoices',
    'billing_discounts',
    'billing_subscription_addons',
    'billing_addons',
    'billing_subscriptions',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
