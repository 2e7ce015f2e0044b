import type { Reports } from './reports.ts';
import type {
  WebhookAttemptRow,
  WebhookDeliveryRow,
  WebhookLogRow,
  WebhookSubscriptionRow,
} from './tables.ts';

/** Rows as the interfaces show them: converted here, at the boundary, and nowhere else. */
const json = <T>(text: string | null): T => (text === null ? ({} as T) : (JSON.parse(text) as T));

function adminBase(row: WebhookSubscriptionRow) {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    status: row.status,
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at,
    events: json<string[]>(row.events),
    headers: json<Record<string, string>>(row.headers),
    metadata: json<Record<string, unknown>>(row.metadata),
    settings: {
      timeout_seconds: row.timeout_seconds,
      retry_policy: { max_attempts: row.max_attempts, backoff: row.backoff },
      batch_events: row.batch_events === 1,
      max_per_second: row.max_per_second,
      max_in_flight: row.max_in_flight,
    },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const adminCreated = (row: WebhookSubscriptionRow) => ({
  ...adminBase(row),
  secret: row.secret,
  signing_key: row.signing_key,
});

type Summary = Awaited<ReturnType<Reports['summary']>>;

export const adminListItem = (row: WebhookSubscriptionRow, day: Summary) => ({
  ...adminBase(row),
  secret_last4: row.secret.slice(-4),
  stats: { deliveries_24h: day.total, success_rate: day.successRate, avg_latency_ms: day.avgLatency },
});

export const adminDetail = (row: WebhookSubscriptionRow, all: Summary) => ({
  ...adminBase(row),
  secret_last4: row.secret.slice(-4),
  stats: {
    total_deliveries: all.total,
    successful_deliveries: all.ok,
    failed_deliveries: all.failed,
    success_rate: all.successRate,
    avg_latency_ms: all.avgLatency,
    last_delivery: row.last_delivery_at,
    last_success: row.last_success_at,
    last_failure: row.last_failure_at,
  },
});

export const subscription = (row: WebhookSubscriptionRow) => ({
  id: row.id,
  url: row.url,
  events: json<string[]>(row.events),
  status: row.status,
  disabled_reason: row.disabled_reason,
  disabled_at: row.disabled_at,
  created_at: row.created_at,
});

export const deliveryListItem = (row: WebhookDeliveryRow) => ({
  id: row.id,
  webhook_id: row.webhook_id,
  event: row.event_type,
  event_id: row.event_id,
  status: row.status,
  response_code: row.last_response_code,
  error: row.status === 'success' ? null : row.last_error,
  latency_ms: row.last_latency_ms,
  attempt: row.attempt,
  payload_size_bytes: row.payload_size_bytes,
  next_retry: row.next_attempt_at,
  delivered_at: row.delivered_at,
  created_at: row.created_at,
  original_delivery_id: row.original_delivery_id,
});

export const subscriptionDelivery = (row: WebhookDeliveryRow) => ({
  id: row.id,
  event_id: row.event_id,
  event_type: row.event_type,
  status: row.status,
  response_code: row.last_response_code,
  response_time_ms: row.last_latency_ms,
  delivered_at: row.delivered_at,
  next_retry_at: row.next_attempt_at,
});

export function deliveryDetail(row: WebhookDeliveryRow, url: string, last: WebhookAttemptRow | undefined) {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event: row.event_type,
    status: row.status,
    request: {
      url,
      method: 'POST',
      headers: json<Record<string, string>>(last?.request_headers ?? null),
      body: row.body,
    },
    response:
      last && last.response_headers !== null
        ? {
            status_code: last.response_code,
            headers: json<Record<string, string>>(last.response_headers),
            body: last.response_body ?? '',
          }
        : null,
    timing: {
      sent_at: last?.started_at ?? null,
      response_at: last?.response_code !== null && last ? last.finished_at : null,
      latency_ms: last?.latency_ms ?? null,
    },
    attempt: row.attempt,
    max_attempts: row.max_attempts,
    error: row.status === 'success' ? null : row.last_error,
    next_retry: row.next_attempt_at,
  };
}

const attemptLevel = (row: WebhookAttemptRow) =>
  row.outcome === 'success' ? 'info' : row.retry_at !== null ? 'warning' : 'error';

function attemptMessage(row: WebhookAttemptRow) {
  if (row.outcome === 'success') return `delivered (HTTP ${row.response_code})`;
  const why = row.error ?? 'failed';
  return row.retry_at !== null
    ? `attempt ${row.attempt} failed: ${why}; retry scheduled`
    : `delivery failed: ${why}`;
}

/** The log: what happened to the subscription, and every attempt, newest first. */
export function logLines(lifecycle: WebhookLogRow[], attempts: WebhookAttemptRow[], limit: number) {
  const lines = [
    ...lifecycle.map((row) => ({
      timestamp: row.at,
      level: row.level,
      message: row.message,
      delivery_id: row.delivery_id,
      event: row.event,
      ...(row.details ? { details: json<Record<string, unknown>>(row.details) } : {}),
    })),
    ...attempts.map((row) => ({
      timestamp: row.finished_at,
      level: attemptLevel(row),
      message: attemptMessage(row),
      delivery_id: row.delivery_id,
      event: row.event_type,
      details: {
        attempt: row.attempt,
        response_code: row.response_code,
        latency_ms: row.latency_ms,
        error_class: row.error_class,
        retry_at: row.retry_at,
      },
    })),
  ];
  return lines.sort((a, b) => b.timestamp.localeCompare(a.timestamp)).slice(0, limit);
}
