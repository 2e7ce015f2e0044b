import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import {
  appendEvents,
  createAdminWebhook,
  createReceiver,
  createSubscription,
  createWebhookCloud,
  orderEvent,
  type ReceivedRequest,
  type Receiver,
  type WebhookTestContext,
} from '../../support/webhooks.ts';

/**
 * Form B checked the way a receiver written from the published signature rules alone checks it: the header holds
 * one `sha256=<hex>`, HMAC-SHA256 over `<timestamp>.<payload>`, compared in constant time, and a
 * timestamp older than 300 s is refused. Nothing here comes from the code under test.
 */
function specVerifies(
  value: string | string[] | undefined,
  headers: IncomingHttpHeaders,
  body: string,
  secret: string,
  nowSeconds: number,
) {
  const match = typeof value === 'string' ? /^sha256=([0-9a-f]{64})$/.exec(value) : null;
  const timestamp = headers['x-service-timestamp'];
  if (!match || typeof timestamp !== 'string' || !/^\d+$/.test(timestamp)) return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest();
  return timingSafeEqual(Buffer.from(match[1]!, 'hex'), expected);
}

type Holder = { secret: string; readsPrevious: boolean };

describe.each(backends)('form B signatures across a secret rotation (%s)', (backend) => {
  let context: WebhookTestContext;
  let receiver: Receiver;
  /** What each receiving path holds: its one secret, and whether it also reads the previous header. */
  const holders = new Map<string, Holder>();
  /** Each request's verdict, by path. */
  const verdicts = new Map<string, boolean[]>();

  const nowSeconds = () => Math.floor(context.cloud.clock.now().getTime() / 1000);

  function verdictFor(request: ReceivedRequest) {
    const holder = holders.get(request.path);
    if (!holder) return false;
    const { headers, body } = request;
    const check = (value: string | string[] | undefined) =>
      specVerifies(value, headers, body, holder.secret, nowSeconds());
    if (check(headers['x-service-signature'])) return true;
    return holder.readsPrevious && check(headers['x-service-signature-previous']);
  }

  beforeEach(async () => {
    holders.clear();
    verdicts.clear();
    context = await createWebhookCloud(backend);
    receiver = await createReceiver((request) => {
      const valid = verdictFor(request);
      verdicts.set(request.path, [...(verdicts.get(request.path) ?? []), valid]);
      return { status: valid ? 200 : 401 };
    });
  });
  afterEach(async () => {
    await context?.cloud.close();
    await receiver?.close();
  });

  const deliverOne = async () => {
    const at = context.cloud.clock.now().toISOString();
    await appendEvents(context.cloud, [
      orderEvent(context.tenantId, context.locationId, 'order.created', { occurred_at: at, received_at: at }),
    ]);
    await context.cloud.services.webhooks.worker.drain();
  };
  const lastAt = (path: string) => receiver.received.filter((request) => request.path === path).at(-1)!;
  const rotate = async (id: string, url = `/api/v1/webhooks/${id}/rotate-secret`) => {
    const response = await context.cloud.app.inject({
      method: 'POST',
      url,
      headers: bearer(context.adminToken),
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { new_secret: string; old_secret_valid_until: string };
  };

  it('lets a receiver holding the new secret, and one still holding the old, verify during the grace only', async () => {
    const updated = await createAdminWebhook(context, { url: receiver.url('/updated'), events: ['order.*'] });
    const lagging = await createAdminWebhook(context, { url: receiver.url('/lagging'), events: ['order.*'] });
    holders.set('/updated', { secret: updated.secret, readsPrevious: false });
    holders.set('/lagging', { secret: lagging.secret, readsPrevious: true });

    await deliverOne();
    for (const path of ['/updated', '/lagging']) {
      expect(lastAt(path).headers).not.toHaveProperty('x-service-signature-previous');
    }

    // The updated receiver takes new_secret at once; the lagging one keeps the secret it had.
    holders.set('/updated', { secret: (await rotate(updated.id)).new_secret, readsPrevious: false });
    const { old_secret_valid_until: validUntil } = await rotate(lagging.id);
    await deliverOne();
    for (const path of ['/updated', '/lagging']) {
      const { headers } = lastAt(path);
      expect(headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(headers['x-service-signature-previous']).toMatch(/^sha256=[0-9a-f]{64}$/);
    }
    expect(verdicts.get('/updated')).toEqual([true, true]);
    expect(verdicts.get('/lagging')).toEqual([true, true]);
    // The old secret verifies the previous header only: the spec's header is the new secret's.
    const during = lastAt('/lagging');
    const spec = during.headers['x-service-signature'];
    expect(specVerifies(spec, during.headers, during.body, lagging.secret, nowSeconds())).toBe(false);

    context.cloud.clock.set(new Date(Date.parse(validUntil)));
    await deliverOne();
    for (const path of ['/updated', '/lagging']) {
      const { headers } = lastAt(path);
      expect(headers['x-service-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
      expect(headers).not.toHaveProperty('x-service-signature-previous');
    }
    expect(verdicts.get('/updated')).toEqual([true, true, true]);
    expect(verdicts.get('/lagging')).toEqual([true, true, false]);
  });

  it('leaves form A alone: one header whose v1 list names both secrets during the grace', async () => {
    const subscription = await createSubscription(context, {
      url: receiver.url('/form-a'),
      events: ['order.created'],
      secret: 'subscription-secret-0123456789',
    });
    await rotate(subscription.id, `/v1/webhooks/${subscription.id}/rotate-secret`);
    await deliverOne();
    const { headers } = lastAt('/form-a');
    expect(headers['x-service-signature']).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(headers).not.toHaveProperty('x-service-signature-previous');
  });
});
