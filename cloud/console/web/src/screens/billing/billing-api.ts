/**
 * The billing area of the API (its own shapes: bare objects and `{items}`, errors `{error,
 * message}`).
 */
import { query } from '../../api.ts';
import { api } from '../../session.ts';

export type SubscriptionStatus =
  | 'active'
  | 'trialing'
  | 'past_due'
  | 'canceled'
  | 'unpaid'
  | 'incomplete'
  | 'incomplete_expired'
  | 'paused';

export interface Subscription {
  id: string;
  plan_id: string;
  processor_subscription_id: string;
  status: SubscriptionStatus;
  current_period_end: string;
  cancel_at_period_end: boolean;
  discount_id: string | null;
  discount_applied_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface Dunning {
  status: 'ok' | 'retrying' | 'exhausted' | 'recovered';
  subscription_status: string;
  failure_count: number;
  max_failures: number;
  retry_schedule_days: number[];
  first_failure_at: string | null;
  last_failure_at: string | null;
  next_retry_at: string | null;
  last_failure_code: string | null;
  last_failure_message: string | null;
  recovered_at: string | null;
}

export interface SubscriptionAddon {
  id: string;
  addon_id: string;
  quantity: number;
  addon: {
    name: string;
    addon_type: 'recurring' | 'one_time' | 'per_location';
    price_cents: number;
    currency: string;
    is_active: boolean;
  };
}

export interface Discount {
  id: string;
  code: string;
  name: string;
  discount_type: 'percentage' | 'fixed_amount';
  discount_value: number;
  duration: 'once' | 'repeating' | 'forever';
  duration_months: number | null;
  valid_to: string | null;
}

export interface DiscountCheck {
  valid: boolean;
  code: string;
  reason: string | null;
  message: string;
  discount_type: 'percentage' | 'fixed_amount' | null;
  discount_value: number | null;
}

export interface BillingEvent {
  id: string;
  subscription_id: string;
  event_type: string;
  from_plan_id: string | null;
  to_plan_id: string | null;
  from_mrr_cents: number | null;
  to_mrr_cents: number | null;
  currency: string;
  reason: string | null;
  event_at: string;
}

export interface Invoice {
  id: string;
  processor_invoice_id: string;
  subscription_id: string | null;
  amount_due: number;
  amount_paid: number;
  currency: string;
  status: 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';
  invoice_pdf: string | null;
  hosted_invoice_url: string | null;
  created_at: string;
}

export interface Refund {
  id: string;
  processor_refund_id: string;
  invoice_id: string | null;
  amount: number;
  currency: string;
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  reason: string | null;
  description: string | null;
  created_at: string;
}

export interface UsageSummary {
  metric_name: string;
  total_quantity: number;
  record_count: number;
  min_quantity: number | null;
  max_quantity: number | null;
  average_quantity: number | null;
  first_record_at: string | null;
  last_record_at: string | null;
}

interface Items<T> {
  items: T[];
}

const LIVE_FIRST: SubscriptionStatus[] = ['canceled', 'incomplete_expired'];

export interface Account {
  subscriptions: Subscription[];
  events: BillingEvent[];
  invoices: Invoice[];
  refunds: Refund[];
}

/** The tenant's subscriptions (live ones first, then the latest changed), events, invoices and refunds. */
export async function loadAccount(signal: AbortSignal): Promise<Account> {
  const [subscriptions, events, invoices, refunds] = await Promise.all([
    api.get<Items<Subscription>>('/v1/billing/subscriptions?limit=100', signal),
    api.get<Items<BillingEvent>>('/v1/billing/events?limit=1000', signal),
    api.get<Items<Invoice>>('/v1/billing/invoices?limit=100', signal),
    api.get<Items<Refund>>('/v1/billing/refunds?limit=100', signal),
  ]);
  const ordered = [...subscriptions.items].sort(
    (a, b) =>
      Number(LIVE_FIRST.includes(a.status)) - Number(LIVE_FIRST.includes(b.status)) ||
      b.updated_at.localeCompare(a.updated_at),
  );
  return { subscriptions: ordered, events: events.items, invoices: invoices.items, refunds: refunds.items };
}

export interface SubscriptionDetail {
  dunning: Dunning;
  addons: SubscriptionAddon[];
  discount: Discount | null;
}

export async function loadDetail(
  subscription: Subscription,
  signal: AbortSignal,
): Promise<SubscriptionDetail> {
  const base = `/v1/billing/subscriptions/${subscription.id}`;
  const [dunning, addons, discount] = await Promise.all([
    api.get<Dunning>(`${base}/dunning`, signal),
    api.get<Items<SubscriptionAddon>>(`${base}/addons`, signal),
    subscription.discount_id
      ? api.get<Discount>(`/v1/billing/discounts/${subscription.discount_id}`, signal)
      : Promise.resolve(null),
  ]);
  return { dunning, addons: addons.items, discount };
}

export function usageOf(
  subscriptionId: string,
  metric: string,
  start: Date,
  end: Date,
  signal: AbortSignal,
): Promise<UsageSummary> {
  const q = query({ metric_name: metric, start_time: start.toISOString(), end_time: end.toISOString() });
  return api.get<UsageSummary>(`/v1/billing/subscriptions/${subscriptionId}/usage${q}`, signal);
}

/** Cents in a currency: the billing API keeps money in integer minor units. */
export function cents(amount: number | null | undefined, currency: string): string {
  if (amount === null || amount === undefined) return '—';
  const format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
  return format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2));
}

/** A calendar date with its year, in the viewer's zone (billing times are not a store's). */
export function formatDay(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleDateString('en-US', { year: 'numeric', month: 'short', day: 'numeric' });
}
