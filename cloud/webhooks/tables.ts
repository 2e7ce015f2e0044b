import type { WebhookInterface } from './catalog.ts';

export type SubscriptionStatus = 'active' | 'disabled';
export type DeliveryStatus = 'pending' | 'success' | 'failed';
export type AttemptOutcome = 'success' | 'failed' | 'interrupted';
export type Backoff = 'exponential' | 'linear' | 'fixed';

export interface WebhookSubscriptionRow {
  id: string;
  tenant_id: string;
  /** Which of the two webhook interfaces created it: its catalog, envelope and signature form. */
  interface: WebhookInterface;
  url: string;
  description: string;
  /** JSON string array of event names and `category.*` patterns. */
  events: string;
  secret: string;
  signing_key: string;
  /** The secret before the last rotation, still signing until `previous_secret_valid_until`. */
  previous_secret: string | null;
  previous_secret_valid_until: string | null;
  /** JSON object of extra request headers. */
  headers: string;
  /** JSON object, free-form. */
  metadata: string;
  timeout_seconds: number;
  max_attempts: number;
  backoff: Backoff;
  batch_events: number;
  /** Requests per second at most; null is unlimited. */
  max_per_second: number | null;
  /** Deliveries in flight at once; 1 keeps the endpoint's deliveries in event order. */
  max_in_flight: number;
  status: SubscriptionStatus;
  disabled_reason: string | null;
  disabled_at: string | null;
  /** When the run of failures still going on began; null after a success. */
  failing_since: string | null;
  last_delivery_at: string | null;
  last_success_at: string | null;
  last_failure_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface WebhookDeliveryRow {
  id: string;
  tenant_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  /** Attempts started so far. */
  attempt: number;
  max_attempts: number;
  /** Due work: the time the next attempt may start; null when nothing more is to be sent. */
  next_attempt_at: string | null;
  /** Set while an attempt is on the wire: if the worker dies, whoever takes the lane next logs it. */
  in_flight_since: string | null;
  /** The envelope exactly as sent (signatures are over these bytes). */
  body: string;
  payload_size_bytes: number;
  original_delivery_id: string | null;
  is_test: number;
  created_at: string;
  delivered_at: string | null;
  last_response_code: number | null;
  last_error: string | null;
  last_error_class: string | null;
  last_latency_ms: number | null;
}

export interface WebhookAttemptRow {
  id: string;
  tenant_id: string;
  webhook_id: string;
  delivery_id: string;
  event_type: string;
  attempt: number;
  outcome: AttemptOutcome;
  started_at: string;
  finished_at: string;
  latency_ms: number | null;
  response_code: number | null;
  error_class: string | null;
  error: string | null;
  /** JSON objects. */
  request_headers: string;
  response_headers: string | null;
  response_body: string | null;
  /** When the retry this attempt scheduled is due; null when none was. */
  retry_at: string | null;
}

/** Which worker holds a subscription's deliveries: one at a time, so they leave in order. */
export interface WebhookLaneRow {
  webhook_id: string;
  owner: string;
  lease_until: string;
  /** The last request's start, so a lane changing hands keeps the endpoint's rate. */
  last_sent_at: string | null;
}

/** What happened to a subscription itself (created, secret rotated, disabled, re-enabled). */
export interface WebhookLogRow {
  id: string;
  tenant_id: string;
  webhook_id: string;
  at: string;
  level: 'info' | 'warning' | 'error';
  message: string;
  delivery_id: string | null;
  event: string | null;
  details: string | null;
}

export interface WebhookTables {
  webhook_subscriptions: WebhookSubscriptionRow;
  webhook_deliveries: WebhookDeliveryRow;
  webhook_attempts: WebhookAttemptRow;
  webhook_lanes: WebhookLaneRow;
  webhook_logs: WebhookLogRow;
}
