/** Billing's records. Every query takes the tenant first. */
import type { Db } from '../db/index.ts';
import type {
  AddonRow,
  BillingTables,
  DiscountRow,
  DunningRow,
  InvoiceRow,
  RefundRow,
  SubscriptionAddonRow,
  SubscriptionEventRow,
  SubscriptionRow,
} from './tables.ts';

type Table = 'billing_subscriptions' | 'billing_addons' | 'billing_discounts' | 'billing_invoices';
type RowOf<T extends keyof BillingTables> = BillingTables[T];

export const byId = <T extends Table>(db: Db, table: T, tenantId: string, id: string) =>
  db
    .selectFrom(table as 'billing_subscriptions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst() as Promise<RowOf<T> | undefined>;

export const insert = <T extends keyof BillingTables>(db: Db, table: T, row: RowOf<T>) =>
  db
    .insertInto(table as 'billing_subscriptions')
    .values(row as SubscriptionRow)
    .returningAll()
    .executeTakeFirstOrThrow() as Promise<RowOf<T>>;

export const update = <T extends Table>(
  db: Db,
  table: T,
  tenantId: string,
  id: string,
  patch: Partial<RowOf<T>>,
) =>
  db
    .updateTable(table as 'billing_subscriptions')
    .set(patch as Partial<SubscriptionRow>)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst() as Promise<RowOf<T> | undefined>;

export const addons = (db: Db, tenantId: string, activeOnly: boolean) =>
  db
    .selectFrom('billing_addons')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(activeOnly, (q) => q.where('is_active', '=', 1))
    .orderBy('id')
    .execute();

export const discounts = (db: Db, tenantId: string, activeOnly: boolean) =>
  db
    .selectFrom('billing_discounts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(activeOnly, (q) => q.where('is_active', '=', 1))
    .orderBy('id')
    .execute();

export const discountByCode = (db: Db, tenantId: string, code: string) =>
  db
    .selectFrom('billing_discounts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('code', '=', code)
    .executeTakeFirst();

/** One more redemption, only while the discount has one left; undefined when it has none. */
export const redeem = (db: Db, tenantId: string, id: string, at: string) =>
  db
    .updateTable('billing_discounts')
    .set((eb) => ({ times_redeemed: eb('times_redeemed', '+', 1), updated_at: at }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('max_redemptions', 'is', null), eb('times_redeemed', '<', eb.ref('max_redemptions'))]),
    )
    .returningAll()
    .executeTakeFirst();

export const subscriptionAddons = (db: Db, tenantId: string, subscriptionId: string) =>
  db
    .selectFrom('billing_subscription_addons as s')
    .innerJoin('billing_addons as a', (join) =>
      join.onRef('a.id', '=', 's.addon_id').onRef('a.tenant_id', '=', 's.tenant_id'),
    )
    .selectAll('s')
    .select([
      'a.name as addon_name',
      'a.addon_type as addon_type',
      'a.price_cents as addon_price_cents',
      'a.currency as addon_currency',
      'a.is_active as addon_is_active',
    ])
    .where('s.tenant_id', '=', tenantId)
    .where('s.subscription_id', '=', subscriptionId)
    .orderBy('s.id')
    .execute();

/** Adds the add-on, or sets its quantity when the subscription has it already. */
export const upsertSubscriptionAddon = (db: Db, row: SubscriptionAddonRow) =>
  db
    .insertInto('billing_subscription_addons')
    .values(row)
    .onConflict((c) =>
      c.columns(['tenant_id', 'subscription_id', 'addon_id']).doUpdateSet((eb) => ({
        quantity: eb.ref('excluded.quantity'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();

export const removeSubscriptionAddon = async (
  db: Db,
  tenantId: string,
  subscriptionId: string,
  addonId: string,
) => {
  const result = await db
    .deleteFrom('billing_subscription_addons')
    .where('tenant_id', '=', tenantId)
    .where('subscription_id', '=', subscriptionId)
    .where('addon_id', '=', addonId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
};

/** Records or updates the invoice of `processor_invoice_id`; the id tells which happened. */
export const recordInvoice = (db: Db, row: InvoiceRow, present: ReadonlyArray<keyof InvoiceRow>) =>
  db
    .insertInto('billing_invoices')
    .values(row)
    .onConflict((c) =>
      c.columns(['tenant_id', 'processor_invoice_id']).doUpdateSet((eb) => ({
        ...Object.fromEntries(present.map((column) => [column, eb.ref(`excluded.${column}`)])),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();

export const insertRefund = (db: Db, row: RefundRow) =>
  db.insertInto('billing_refunds').values(row).returningAll().executeTakeFirstOrThrow();

/** The tenant's invoices, newest first (ids are time-ordered UUIDv7). */
export const invoices = (db: Db, tenantId: string, limit: number) =>
  db
    .selectFrom('billing_invoices')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

export const subscriptions = (db: Db, tenantId: string, limit: number) =>
  db
    .selectFrom('billing_subscriptions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

export const refunds = (db: Db, tenantId: string, limit: number) =>
  db
    .selectFrom('billing_refunds')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();

/**
 * Holds the subscription's row until the transaction ends, so two dunning reports for one
 * subscription are applied one after the other. PostgreSQL only: SQLite has one writer anyway.
 */
export async function lockSubscription(db: Db, tenantId: string, id: string, locking: boolean) {
  if (!locking) return;
  await db
    .selectFrom('billing_subscriptions')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .forUpdate()
    .execute();
}

export const dunning = (db: Db, tenantId: string, subscriptionId: string) =>
  db
    .selectFrom('billing_dunning')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('subscription_id', '=', subscriptionId)
    .executeTakeFirst();

export const saveDunning = (db: Db, row: DunningRow) =>
  db
    .insertInto('billing_dunning')
    .values(row)
    .onConflict((c) =>
      c.columns(['tenant_id', 'subscription_id']).doUpdateSet((eb) => ({
        status: eb.ref('excluded.status'),
        failure_count: eb.ref('excluded.failure_count'),
        first_failure_at: eb.ref('excluded.first_failure_at'),
        last_failure_at: eb.ref('excluded.last_failure_at'),
        next_retry_at: eb.ref('excluded.next_retry_at'),
        last_failure_code: eb.ref('excluded.last_failure_code'),
        last_failure_message: eb.ref('excluded.last_failure_message'),
        recovered_at: eb.ref('excluded.recovered_at'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();

export const insertEvent = (db: Db, row: SubscriptionEventRow) =>
  db.insertInto('billing_subscription_events').values(row).returningAll().executeTakeFirstOrThrow();

/** Newest first. */
export const events = (
  db: Db,
  tenantId: string,
  filter: { subscriptionId?: string | undefined; limit: number },
) =>
  db
    .selectFrom('billing_subscription_events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(filter.subscriptionId !== undefined, (q) => q.where('subscription_id', '=', filter.subscriptionId!))
    .orderBy('event_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .execute();

/** Every event before `end`, oldest first: the MRR movement is replayed from them. */
export const eventsUntil = (db: Db, tenantId: string, end: string, currency: string | undefined) =>
  db
    .selectFrom('billing_subscription_events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('event_at', '<', end)
    .$if(currency !== undefined, (q) => q.where('currency', '=', currency!))
    .orderBy('event_at')
    .orderBy('id')
    .execute();

/** The latest event of a subscription: its currency and MRR carry over to events billing writes. */
export const latestEvent = (db: Db, tenantId: string, subscriptionId: string) =>
  db
    .selectFrom('billing_subscription_events')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('subscription_id', '=', subscriptionId)
    .orderBy('event_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();

export type { AddonRow, DiscountRow, SubscriptionRow };
