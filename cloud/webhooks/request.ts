import { unixSeconds } from '../../shared/clock.ts';
import {
  formASignature,
  formBSignature,
  PREVIOUS_SIGNATURE_HEADER,
  SIGNATURE_HEADER,
} from '../../shared/webhooks/signing.ts';
import type { WebhookDeliveryRow, WebhookSubscriptionRow } from './tables.ts';

export const USER_AGENT = 'EdgeApplianceWebhooks/1.0 (+https://docs.example/webhooks)';

/** The secret rotated out, while its grace lasts; undefined outside a rotation. */
function previousSecret(subscription: WebhookSubscriptionRow, now: Date): string | undefined {
  const { previous_secret: previous, previous_secret_valid_until: validUntil } = subscription;
  if (previous === null || validUntil === null) return undefined;
  return validUntil > now.toISOString() ? previous : undefined;
}

/**
 * Form A lists one `v1` per secret in its one header, as Stripe does while a secret is rolled.
 * Form B's value holds exactly one signature, so the new secret signs the documented header (what a
 * receiver that took `new_secret` checks) and the old one signs a header of its own.
 */
function signatureHeaders(
  subscription: WebhookSubscriptionRow,
  timestamp: number,
  body: string,
  now: Date,
): Record<string, string> {
  const previous = previousSecret(subscription, now);
  if (subscription.interface === 'subscription') {
    const secrets = previous === undefined ? [subscription.secret] : [subscription.secret, previous];
    return { [SIGNATURE_HEADER]: formASignature(secrets, timestamp, body) };
  }
  const stamp = String(timestamp);
  const current = { [SIGNATURE_HEADER]: formBSignature(subscription.secret, stamp, body) };
  if (previous === undefined) return current;
  return { ...current, [PREVIOUS_SIGNATURE_HEADER]: formBSignature(previous, stamp, body) };
}

function customHeaders(subscription: WebhookSubscriptionRow): Record<string, string> {
  return JSON.parse(subscription.headers) as Record<string, string>;
}

/**
 * The request headers of one attempt. Each attempt is signed afresh (a receiver refuses
 * signatures older than 300 s, and a retry can come a day later); the body never changes.
 * The subscription's own headers go first so they can never replace ours.
 */
export function deliveryHeaders(
  subscription: WebhookSubscriptionRow,
  delivery: Pick<WebhookDeliveryRow, 'id' | 'event_type' | 'body'>,
  now: Date,
): Record<string, string> {
  const timestamp = unixSeconds(now);
  return {
    ...customHeaders(subscription),
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    ...signatureHeaders(subscription, timestamp, delivery.body, now),
    'x-service-event': delivery.event_type,
    'x-service-delivery': delivery.id,
    'x-service-timestamp': String(timestamp),
  };
}
