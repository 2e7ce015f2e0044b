/** Billing's tables and the values their enumerated columns take. Money in integer cents. */

export const SUBSCRIPTION_STATUSES = [
  'active',
  'trialing',
  'past_due',
  'canceled',
  'unpaid',
  'incomplete',
  'incomplete_expired',
  'paused',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const ADDON_TYPES = ['recurring', 'one_time', 'per_location'] as const;
export const DISCOUNT_TYPES = ['percentage', 'fixed_amount'] as const;
export const DISCOUNT_DURATIONS = ['once', 'repeating', 'forever'] as const;
export const INVOICE_STATUSES = ['draft', 'open', 'paid', 'void', 'uncollectible'] as const;
export const REFUND_STATUSES = ['pending', 'succeeded', 'failed', 'canceled'] as const;
export const REFUND_REASONS = ['duplicate', 'fraudulent', 'requested_by_customer'] as const;
export const EVENT_TYPES = [
  'created',
  'activated',
  'upgraded',
  'downgraded',
  'paused',
  'resumed',
  'canceled',
  'churned',
  'reactivated',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * `ok`: no failed payment; `retrying`: failed, the processor retries at `next_retry_at`;
 * `exhausted`: the retry schedule ran out (the subscription is unpaid); `recovered`: paid again.
 */
export const DUNNING_STATUSES = ['ok', 'retrying', 'exhausted', 'recovered'] as const;
export type DunningStatus = (typeof DUNNING_STATUSES)[number];

/** 0/1 in both databases; the views turn them into booleans. */
type Flag = number;

export interface SubscriptionRow {
  id: string;
  tenant_id: string;
  plan_id: string;
  processor_subscription_id: string;
  status: SubscriptionStatus;
  current_period_end: string;
  cancel_at_period_end: Flag;
  discount_id: string | null;
  discount_applied_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface AddonRow {
  id: string;
  tenant_id: string;
  name: string;
  description: string | null;
  addon_type: (typeof ADDON_TYPES)[number];
  price_cents: number;
  currency: string;
  processor_price_id: string | null;
  metadata_json: string | null;
  is_active: Flag;
  created_at: string;
  updated_at: string;
}

export interface SubscriptionAddonRow {
  id: string;
  tenant_id: string;
  subscription_id: string;
  addon_id: string;
  quantity: number;
  created_at: string;
  updated_at: string;
}

export interface DiscountRow {
  id: string;
  tenant_id: string;
  code: string;
  name: string;
  description: string | null;
  discount_type: (typeof DISCOUNT_TYPES)[number];
  discount_value: number;
  duration: (typeof DISCOUNT_DURATIONS)[number];
  duration_months: number | null;
  max_redemptions: number | null;
  /** Attachments to subscriptions so far; a detach does not give one back. */
  times_redeemed: number;
  valid_from: string;
  valid_to: string | null;
  /** JSON array of plan ids; null: every plan. */
  applies_to_plan_ids: string | null;
  processor_coupon_id: string | null;
  is_active: Flag;
  created_at: string;
  updated_at: string;
}

export interface InvoiceRow {
  id: string;
  tenant_id: string;
  processor_invoice_id: string;
  subscription_id: string | null;
  amount_due: number;
  amount_paid: number;
  currency: string;
  status: (typeof INVOICE_STATUSES)[number];
  invoice_pdf: string | null;
  hosted_invoice_url: string | null;
  created_at: string;
  updated_at: string;
}

export interface RefundRow {
  id: string;
  tenant_id: string;
  processor_refund_id: string;
  processor_charge_id: string;
  invoice_id: string | null;
  amount: number;
  currency: string;
  status: (typeof REFUND_STATUSES)[number];
  reason: (typeof REFUND_REASONS)[number] | null;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface DunningRow {
  id: string;
  tenant_id: string;
  subscription_id: string;
  status: DunningStatus;
  failure_count: number;
  first_failure_at: string | null;
  last_failure_at: string | null;
  next_retry_at: string | null;
  last_failure_code: string | null;
  last_failure_message: string | null;
  recovered_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface UsageRecordRow {
  id: string;
  tenant_id: string;
  subscription_id: string;
  metric_name: string;
  quantity: number;
  /** When the usage happened (the record's `timestamp`), ISO 8601 UTC. */
  recorded_at: string;
  idempotency_key: string;
  created_at: string;
}

export interface SubscriptionEventRow {
  id: string;
  tenant_id: string;
  subscription_id: string;
  event_type: EventType;
  from_plan_id: string | null;
  to_plan_id: string | null;
  from_mrr_cents: number | null;
  to_mrr_cents: number | null;
  currency: string;
  reason: string | null;
  event_at: string;
  created_at: string;
}

export interface BillingTables {
  billing_subscriptions: SubscriptionRow;
  billing_addons: AddonRow;
  billing_subscription_addons: SubscriptionAddonRow;
  billing_discounts: DiscountRow;
  billing_invoices: InvoiceRow;
  billing_refunds: RefundRow;
  billing_dunning: DunningRow;
  billing_usage_records: UsageRecordRow;
  billing_subscription_events: SubscriptionEventRow;
}
