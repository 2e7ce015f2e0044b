import type { IdGenerator } from '../../shared/ids.ts';
import { envelopeA, envelopeB } from '../../shared/webhooks/envelopes.ts';
import type { DomainEventRow } from '../events/index.ts';
import { matchesAny, publishedEvent } from './catalog.ts';
import type { WebhookDeliveryRow, WebhookSubscriptionRow } from './tables.ts';

interface ParsedEvent {
  row: DomainEventRow;
  data: Record<string, unknown>;
}

/** The body one subscription receives for one event, in its interface's envelope. */
export function envelopeBody(
  subscription: WebhookSubscriptionRow,
  patterns: readonly string[],
  event: ParsedEvent,
): { name: string; body: string } | undefined {
  const published = publishedEvent(subscription.interface, {
    type: event.row.type,
    data: event.data,
    location_id: event.row.location_id,
  });
  if (!published || !matchesAny(patterns, published.name)) return undefined;
  const common = {
    id: event.row.id,
    createdAt: event.row.occurred_at,
    tenantId: event.row.tenant_id,
    locationId: event.row.location_id,
    data: published.data,
  };
  const body = JSON.stringify(
    subscription.interface === 'subscription'
      ? envelopeA({ ...common, type: published.name })
      : envelopeB({ ...common, event: published.name }),
  );
  return { name: published.name, body };
}

export function newDelivery(
  subscription: WebhookSubscriptionRow,
  event: { id: string; type: string },
  body: string,
  at: string,
  newId: IdGenerator,
): WebhookDeliveryRow {
  return {
    id: newId(),
    tenant_id: subscription.tenant_id,
    webhook_id: subscription.id,
    event_id: event.id,
    event_type: event.type,
    status: 'pending',
    attempt: 0,
    max_attempts: subscription.max_attempts,
    next_attempt_at: at,
    in_flight_since: null,
    body,
    payload_size_bytes: Buffer.byteLength(body),
    original_delivery_id: null,
    is_test: 0,
    created_at: at,
    delivered_at: null,
    last_response_code: null,
    last_error: null,
    last_error_class: null,
    last_latency_ms: null,
  };
}

/**
 * The deliveries a set of events makes: one per event and matching subscription of the event's own
 * tenant, in event order (delivery ids are time-ordered and a lane sends in id order).
 */
export function deliveriesFor(
  events: DomainEventRow[],
  subscriptions: WebhookSubscriptionRow[],
  at: string,
  newId: IdGenerator,
): WebhookDeliveryRow[] {
  const rows: WebhookDeliveryRow[] = [];
  const patterns = new Map(subscriptions.map((s) => [s.id, JSON.parse(s.events) as string[]]));
  for (const row of events) {
    const event = { row, data: JSON.parse(row.data) as Record<string, unknown> };
    for (const subscription of subscriptions) {
      if (subscription.tenant_id !== row.tenant_id) continue;
      const published = envelopeBody(subscription, patterns.get(subscription.id)!, event);
      if (!published) continue;
      rows.push(newDelivery(subscription, { id: row.id, type: published.name }, published.body, at, newId));
    }
  }
  return rows;
}
