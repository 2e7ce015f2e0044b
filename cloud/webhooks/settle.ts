import type { IdGenerator } from '../../shared/ids.ts';
import type { OutboundResult } from './outbound.ts';
import { classifyAnswer, retryAfterSeconds, retryDelaySeconds } from './schedule.ts';
import type { DeliveryPatch } from './store.ts';
import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookSubscriptionRow } from './tables.ts';

export interface AttemptRecord {
  tenantId: string;
  webhookId: string;
  deliveryId: string;
  patch: DeliveryPatch;
  /** The delivery as the attempt left it: the outcome is written over that state only. */
  expected: { attempt: number; inFlightSince: string };
  attempt: WebhookAttemptRow;
  /** Did the endpoint take it? Interrupted attempts say nothing about the endpoint (null). */
  succeeded: boolean | null;
  at: string;
}

export interface AttemptFacts {
  subscription: WebhookSubscriptionRow;
  delivery: WebhookDeliveryRow;
  /** 1-based number of this attempt. */
  attempt: number;
  /** The in-flight mark the attempt was sent under. */
  markedAt: string;
  startedAt: Date;
  finishedAt: Date;
  requestHeaders: Record<string, string>;
  result: OutboundResult;
}

// A URL that resolves to a refused address is the subscription's configuration, not a passing
// fault: retrying it would only fail again.
const FINAL_ERRORS = new Set(['blocked_address']);

function errorText(result: OutboundResult): { errorClass: string | null; error: string | null } {
  if (result.kind === 'error') return { errorClass: result.errorClass, error: result.message };
  if (result.status >= 200 && result.status < 300) return { errorClass: null, error: null };
  const errorClass =
    result.status >= 500 ? '5xx' : result.status === 429 ? '429' : `${Math.floor(result.status / 100)}xx`;
  return { errorClass, error: `HTTP ${result.status}` };
}

function nextAttemptAt(facts: AttemptFacts): Date | undefined {
  const { result, subscription, finishedAt } = facts;
  const status = result.kind === 'response' ? result.status : undefined;
  if (result.kind === 'error' && FINAL_ERRORS.has(result.errorClass)) return undefined;
  // A test is one attempt, answered to the person who asked; it is never sent again on its own.
  if (facts.delivery.is_test === 1) return undefined;
  if (classifyAnswer(status) !== 'retry') return undefined;
  const delay = retryDelaySeconds(
    {
      interface: subscription.interface,
      maxAttempts: facts.delivery.max_attempts,
      backoff: subscription.backoff,
    },
    facts.attempt,
  );
  if (delay === undefined) return undefined;
  const asked =
    result.kind === 'response' ? retryAfterSeconds(result.headers['retry-after'], finishedAt) : undefined;
  return new Date(finishedAt.getTime() + Math.max(delay, asked ?? 0) * 1000);
}

/** What one finished attempt changes: the delivery's state, its log line, the endpoint's health. */
export function settleAttempt(facts: AttemptFacts, newId: IdGenerator): AttemptRecord {
  const { subscription, delivery, result } = facts;
  const succeeded = result.kind === 'response' && classifyAnswer(result.status) === 'success';
  const retryAt = succeeded ? undefined : nextAttemptAt(facts);
  const { errorClass, error } = errorText(result);
  const at = facts.finishedAt.toISOString();
  const responseCode = result.kind === 'response' ? result.status : null;
  return {
    tenantId: delivery.tenant_id,
    webhookId: subscription.id,
    deliveryId: delivery.id,
    succeeded,
    at,
    expected: { attempt: facts.attempt, inFlightSince: facts.markedAt },
    patch: {
      status: succeeded ? 'success' : 'failed',
      attempt: facts.attempt,
      in_flight_since: null,
      next_attempt_at: retryAt?.toISOString() ?? null,
      delivered_at: succeeded ? at : null,
      last_response_code: responseCode,
      last_error: error,
      last_error_class: errorClass,
      last_latency_ms: result.latencyMs,
    },
    attempt: {
      id: newId(),
      tenant_id: delivery.tenant_id,
      webhook_id: subscription.id,
      delivery_id: delivery.id,
      event_type: delivery.event_type,
      attempt: facts.attempt,
      outcome: succeeded ? 'success' : 'failed',
      started_at: facts.startedAt.toISOString(),
      finished_at: at,
      latency_ms: result.latencyMs,
      response_code: responseCode,
      error_class: errorClass,
      error,
      request_headers: JSON.stringify(facts.requestHeaders),
      response_headers: result.kind === 'response' ? JSON.stringify(result.headers) : null,
      response_body: result.kind === 'response' ? result.body : null,
      retry_at: retryAt?.toISOString() ?? null,
    },
  };
}

/**
 * An attempt whose worker died (or lost its lease) while it was on the wire: it may or may not
 * have reached the endpoint, so it is logged as interrupted and sent again at once (the event id
 * lets the receiver drop a copy), unless it was the last attempt allowed.
 */
export function settleInterrupted(
  delivery: WebhookDeliveryRow,
  now: Date,
  newId: IdGenerator,
): AttemptRecord {
  const at = now.toISOString();
  const retry = delivery.attempt < delivery.max_attempts;
  return {
    tenantId: delivery.tenant_id,
    webhookId: delivery.webhook_id,
    deliveryId: delivery.id,
    succeeded: null,
    at,
    expected: { attempt: delivery.attempt, inFlightSince: delivery.in_flight_since! },
    patch: {
      in_flight_since: null,
      next_attempt_at: retry ? at : null,
      status: retry ? delivery.status : 'failed',
      last_error: 'the delivery worker stopped during the attempt',
      last_error_class: 'interrupted',
    },
    attempt: {
      id: newId(),
      tenant_id: delivery.tenant_id,
      webhook_id: delivery.webhook_id,
      delivery_id: delivery.id,
      event_type: delivery.event_type,
      attempt: delivery.attempt,
      outcome: 'interrupted',
      started_at: delivery.in_flight_since ?? at,
      finished_at: at,
      latency_ms: null,
      response_code: null,
      error_class: 'interrupted',
      error: 'the delivery worker stopped during the attempt',
      request_headers: '{}',
      response_headers: null,
      response_body: null,
      retry_at: retry ? at : null,
    },
  };
}
