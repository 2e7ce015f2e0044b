import { type Static, Type } from '@sinclair/typebox';
import { Cents, Currency, Limit, Literals, Nullable, strict, Text, Timestamp, Uuid } from './schemas.ts';
import {
  DUNNING_STATUSES,
  EVENT_TYPES,
  INVOICE_STATUSES,
  REFUND_REASONS,
  REFUND_STATUSES,
} from './tables.ts';

const Url = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });

// Invoices

export const NewInvoiceSchema = Type.Object(
  {
    processor_invoice_id: Text(1, 255),
    subscription_id: Type.Optional(Uuid),
    amount_due: Cents(0),
    amount_paid: Type.Optional(Cents(0)),
    currency: Currency,
    status: Literals(INVOICE_STATUSES),
    invoice_pdf: Type.Optional(Url),
    hosted_invoice_url: Type.Optional(Url),
  },
  strict,
);
export type NewInvoice = Static<typeof NewInvoiceSchema>;

export const InvoiceSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  processor_invoice_id: Type.String(),
  subscription_id: Nullable(Uuid),
  amount_due: Type.Integer(),
  amount_paid: Type.Integer({ description: '0 until the processor reports a payment' }),
  currency: Type.String(),
  status: Literals(INVOICE_STATUSES),
  invoice_pdf: Nullable(Type.String()),
  hosted_invoice_url: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

// Refunds

export const NewRefundSchema = Type.Object(
  {
    processor_refund_id: Text(1, 255),
    processor_charge_id: Text(1, 255),
    invoice_id: Type.Optional(Uuid),
    amount: Cents(1),
    currency: Currency,
    status: Literals(REFUND_STATUSES),
    reason: Type.Optional(Literals(REFUND_REASONS)),
    description: Type.Optional(Text(0, 1000)),
  },
  strict,
);
export type NewRefund = Static<typeof NewRefundSchema>;

export const RefundSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  processor_refund_id: Type.String(),
  processor_charge_id: Type.String(),
  invoice_id: Nullable(Uuid),
  amount: Type.Integer(),
  currency: Type.String(),
  status: Literals(REFUND_STATUSES),
  reason: Nullable(Literals(REFUND_REASONS)),
  description: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const LimitQuerySchema = Type.Object({ limit: Limit }, strict);

// Dunning

export const DunningFailureSchema = Type.Object(
  {
    processor_subscription_id: Text(1, 255),
    failure_code: Type.Optional(Text(1, 100)),
    failure_message: Type.Optional(Text(0, 1000)),
  },
  strict,
);
export type DunningFailure = Static<typeof DunningFailureSchema>;

export const DunningSchema = Type.Object(
  {
    subscription_id: Uuid,
    tenant_id: Uuid,
    status: Literals(DUNNING_STATUSES),
    subscription_status: Type.String({ description: 'the subscription’s status after this state' }),
    failure_count: Type.Integer({ description: 'failed payments in the current episode' }),
    max_failures: Type.Integer({ description: 'the failure that exhausts the retry schedule' }),
    retry_schedule_days: Type.Array(Type.Integer()),
    first_failure_at: Nullable(Timestamp),
    last_failure_at: Nullable(Timestamp),
    next_retry_at: Nullable(Timestamp),
    last_failure_code: Nullable(Type.String()),
    last_failure_message: Nullable(Type.String()),
    recovered_at: Nullable(Timestamp),
    updated_at: Nullable(Timestamp),
  },
  {
    description:
      'ok → retrying on a failure (next retry 1, 3, 5, 7 days after the 1st..4th failure; the subscription past_due); the 5th failure → exhausted (no next retry; the subscription unpaid); retrying or exhausted → recovered on /recovered (the subscription active, a `reactivated` event); a failure after recovered starts a new episode.',
  },
);

// Usage

const UsageFields = {
  subscription_id: Uuid,
  metric_name: Text(1, 100),
  quantity: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
  timestamp: Timestamp,
  idempotency_key: Text(1, 255),
};
export const NewUsageSchema = Type.Object(UsageFields, strict);
export type NewUsage = Static<typeof NewUsageSchema>;

export const UsageBatchSchema = Type.Object(
  { records: Type.Array(NewUsageSchema, { minItems: 1, maxItems: 1000 }) },
  strict,
);

export const UsageRecordSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  subscription_id: Uuid,
  metric_name: Type.String(),
  quantity: Type.Integer(),
  timestamp: Timestamp,
  idempotency_key: Type.String(),
  created_at: Timestamp,
  duplicate: Type.Boolean({
    description: 'true: this key was recorded before; the record shown is the first one, counted once',
  }),
});

export const UsageBatchResultSchema = Type.Object({
  accepted: Type.Integer({ description: 'records newly counted' }),
  duplicates: Type.Integer(),
  rejected: Type.Integer({ description: 'records whose subscription does not exist in this tenant' }),
  results: Type.Array(
    Type.Object({
      index: Type.Integer(),
      idempotency_key: Type.String(),
      outcome: Literals(['created', 'duplicate', 'not_found'] as const),
      id: Nullable(Uuid),
    }),
  ),
});

export const UsageSummaryQuerySchema = Type.Object(
  { metric_name: Text(1, 100), start_time: Timestamp, end_time: Timestamp },
  strict,
);

export const UsageSummarySchema = Type.Object({
  subscription_id: Uuid,
  metric_name: Type.String(),
  start_time: Timestamp,
  end_time: Timestamp,
  total_quantity: Type.Integer({ description: 'sum of quantities with start_time ≤ timestamp < end_time' }),
  record_count: Type.Integer(),
  min_quantity: Nullable(Type.Integer()),
  max_quantity: Nullable(Type.Integer()),
  average_quantity: Nullable(Type.Number()),
  first_record_at: Nullable(Timestamp),
  last_record_at: Nullable(Timestamp),
});

// Subscription events and MRR

export const NewEventSchema = Type.Object(
  {
    subscription_id: Uuid,
    event_type: Literals(EVENT_TYPES),
    from_plan_id: Type.Optional(Text(1, 255)),
    to_plan_id: Type.Optional(Text(1, 255)),
    from_mrr_cents: Type.Optional(Cents(0)),
    to_mrr_cents: Type.Optional(Cents(0)),
    currency: Currency,
    reason: Type.Optional(Text(0, 1000)),
    event_at: Timestamp,
  },
  strict,
);
export type NewEvent = Static<typeof NewEventSchema>;

export const EventListQuerySchema = Type.Object(
  { subscription_id: Type.Optional(Uuid), limit: Limit },
  strict,
);

export const EventSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  subscription_id: Uuid,
  event_type: Literals(EVENT_TYPES),
  from_plan_id: Nullable(Type.String()),
  to_plan_id: Nullable(Type.String()),
  from_mrr_cents: Nullable(Type.Integer()),
  to_mrr_cents: Nullable(Type.Integer()),
  currency: Type.String(),
  reason: Nullable(Type.String()),
  event_at: Timestamp,
  created_at: Timestamp,
});

export const MrrQuerySchema = Type.Object(
  { start: Timestamp, end: Timestamp, currency: Type.Optional(Currency) },
  strict,
);

export const MrrSchema = Type.Object({
  start: Timestamp,
  end: Timestamp,
  currency: Nullable(Type.String()),
  start_mrr_cents: Type.Integer(),
  end_mrr_cents: Type.Integer(),
  new_mrr_cents: Type.Integer(),
  expansion_mrr_cents: Type.Integer(),
  contraction_mrr_cents: Type.Integer(),
  churned_mrr_cents: Type.Integer(),
  reactivation_mrr_cents: Type.Integer(),
  net_new_mrr_cents: Type.Integer(),
  churn_rate_pct: Type.Number(),
  customers_start: Type.Integer(),
  customers_end: Type.Integer(),
  churned_customers: Type.Integer(),
});
