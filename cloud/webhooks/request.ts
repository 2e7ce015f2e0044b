import { unixSeconds } from '../../shared/clock.ts';
import { formASignature, formBSignature } from '../../shared/webhooks/signing.ts';
import type { WebhookDeliveryRow, WebhookSubscriptionRow } from './tables.ts';

export const USER_AGENT = 'EdgeApplianceWebhooks/1.0 (+https://docs.example/webhooks)';

/** The secrets that sign now: the current one, and the previous one while its grace lasts. */
export function signingSecrets(subscription: WebhookSubscriptionRow, now: Date): string[] {
  const previousValid =
    subscription.previous_secret !== null &&
    subscription.previous_secret_valid_until !== null &&
    subscription.previous_secret_valid_until > now.toISOString();
  return previousValid ? [subscription.secret, subscription.previous_secret!] : [subscription.secret];
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
  const secrets = signingSecrets(subscription, now);
  const timestamp = unixSeconds(now);
  const signature =
    subscription.interface === 'subscription'
      ? formASignature(secrets, timestamp, delivery.body)
      : formBSignature(secrets, String(timestamp), delivery.body);
  return {
    ...customHeaders(subscription),
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-signature': signature,
    'x-service-event': delivery.event_type,
    'x-service-delivery': delivery.id,
    'x-service-timestamp': String(timestamp),
  };
}
