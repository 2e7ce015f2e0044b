/** Billing records as the API shows them: flags as booleans, JSON columns parsed. */
import type {
  AddonRow,
  DiscountRow,
  InvoiceRow,
  RefundRow,
  SubscriptionAddonRow,
  SubscriptionEventRow,
  SubscriptionRow,
  UsageRecordRow,
} from './tables.ts';

export const toSubscription = (row: SubscriptionRow) => ({
  ...row,
  cancel_at_period_end: Number(row.cancel_at_period_end) === 1,
});
export type Subscription = ReturnType<typeof toSubscription>;

export const toAddon = (row: AddonRow) => ({
  ...row,
  price_cents: Number(row.price_cents),
  is_active: Number(row.is_active) === 1,
});

export const toSubscriptionAddon = (row: SubscriptionAddonRow, addon: AddonRow) => ({
  ...row,
  quantity: Number(row.quantity),
  addon: {
    name: addon.name,
    addon_type: addon.addon_type,
    price_cents: Number(addon.price_cents),
    currency: addon.currency,
    is_active: Number(addon.is_active) === 1,
  },
});

export const planIdsOf = (row: DiscountRow): string[] | null =>
  row.applies_to_plan_ids === null ? null : (JSON.parse(row.applies_to_plan_ids) as string[]);

export const toDiscount = (row: DiscountRow) => ({
  ...row,
  discount_value: Number(row.discount_value),
  times_redeemed: Number(row.times_redeemed),
  applies_to_plan_ids: planIdsOf(row),
  is_active: Number(row.is_active) === 1,
});
export type Discount = ReturnType<typeof toDiscount>;

export const toInvoice = (row: InvoiceRow) => ({
  ...row,
  amount_due: Number(row.amount_due),
  amount_paid: Number(row.amount_paid),
});

export const toRefund = (row: RefundRow) => ({ ...row, amount: Number(row.amount) });

export const toUsageRecord = (row: UsageRecordRow, duplicate: boolean) => ({
  id: row.id,
  tenant_id: row.tenant_id,
  subscription_id: row.subscription_id,
  metric_name: row.metric_name,
  quantity: Number(row.quantity),
  timestamp: row.recorded_at,
  idempotency_key: row.idempotency_key,
  created_at: row.created_at,
  duplicate,
});

const optionalNumber = (value: number | null) => (value === null ? null : Number(value));

export const toEvent = (row: SubscriptionEventRow) => ({
  ...row,
  from_mrr_cents: optionalNumber(row.from_mrr_cents),
  to_mrr_cents: optionalNumber(row.to_mrr_cents),
});
