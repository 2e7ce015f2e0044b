import { createHmac } from 'node:crypto';
import pino from 'pino';
import Stripe from 'stripe';
import { afterEach, describe, expect, it } from 'vitest';
import { createOutbound } from '../../../cloud/webhooks/outbound.ts';
import { createRecorder } from '../../../cloud/webhooks/recorder.ts';
import { deliveries } from '../../../cloud/webhooks/store.ts';
import { createDeliveryWorker } from '../../../cloud/webhooks/worker.ts';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import { bearer, loginTokens } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import {
  type Answer,
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

const SECRET = 'subscription-secret-0123456789';
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe.each(backends)('webhook delivery (%s)', (backend) => {
  let context: WebhookTestContext;
  let receiver: Receiver;
  let answer: (request: ReceivedRequest) => Answer | Promise<Answer> = () => ({ status: 200 });

  const setUp = async (webhooks: Parameters<typeof createWebhookCloud>[1] = {}) => {
    answer = () => ({ status: 200 });
    context = await createWebhookCloud(backend, webhooks);
    receiver = await createReceiver((request) => answer(request));
  };
  afterEach(async () => {
    await context?.cloud.close();
    await receiver?.close();
  });

  /** An order event recorded now by the cloud's clock, as the cloud stamps what it receives. */
  const storeEvent = () => {
    const at = context.cloud.clock.now().toISOString();
    return orderEvent(context.tenantId, context.locationId, 'order.created', {
      occurred_at: at,
      received_at: at,
    });
  };
  const drain = () => context.cloud.services.webhooks.worker.drain();
  const advance = async (ms: number) => {
    context.cloud.clock.advance(ms);
    await drain();
  };
  const deliveriesOf = (webhookId: string) =>
    context.cloud.store.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .orderBy('id')
      .execute();
  const attemptsOf = (deliveryId: string) =>
    context.cloud.store.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('delivery_id', '=', deliveryId)
      .orderBy('attempt')
      .execute();

  it('signs form A so that Stripe’s verifier accepts it, with t in whole seconds within 300 s', async () => {
    await setUp();
    await createSubscription(context, { url: receiver.url('/a'), events: ['order.*'], secret: SECRET });
    const event = storeEvent();
    await appendEvents(context.cloud, [event]);
    await drain();

    const [request] = receiver.received;
    const header = request!.headers['x-service-signature'] as string;
    const verified = Stripe.webhooks.constructEvent(request!.body, header, SECRET);
    expect(verified).toMatchObject({ id: event.id, type: 'order.created', tenant_id: context.tenantId });
    expect(Object.keys(JSON.parse(request!.body))).toEqual([
      'id',
      'type',
      'api_version',
      'created_at',
      'tenant_id',
      'location_id',
      'data',
    ]);
    const t = /^t=(\d+),/.exec(header)![1]!;
    expect(t).toMatch(/^\d{10}$/);
    expect(Math.abs(Number(t) - context.cloud.clock.now().getTime() / 1000)).toBeLessThanOrEqual(300);
    expect(() =>
      Stripe.webhooks.constructEvent(request!.body, header, 'another-secret-0123456789'),
    ).toThrow();
  });

  it('signs with both secrets while a rotated-out one is still valid, then with the new one alone', async () => {
    await setUp();
    const subscription = await createSubscription(context, {
      url: receiver.url('/a'),
      events: ['order.created'],
      secret: SECRET,
    });
    const rotated = await context.cloud.app.inject({
      method: 'POST',
      url: `/v1/webhooks/${subscription.id}/rotate-secret`,
      headers: bearer(context.adminToken),
    });
    expect(rotated.statusCode, rotated.body).toBe(200);
    const { new_secret: newSecret, old_secret_valid_until: validUntil } = rotated.json().data;
    await appendEvents(context.cloud, [storeEvent()]);
    await drain();
    const during = receiver.received[0]!;
    const header = during.headers['x-service-signature'] as string;
    expect(header.match(/v1=/g)).toHaveLength(2);
    for (const secret of [SECRET, newSecret])
      expect(Stripe.webhooks.constructEvent(during.body, header, secret)).toBeTruthy();

    context.cloud.clock.set(new Date(Date.parse(validUntil) + 1000));
    await appendEvents(context.cloud, [storeEvent()]);
    await drain();
    const after = receiver.received[1]!;
    const afterHeader = after.headers['x-service-signature'] as string;
    expect(afterHeader.match(/v1=/g)).toHaveLength(1);
    expect(Stripe.webhooks.constructEvent(after.body, afterHeader, newSecret)).toBeTruthy();
    expect(() => Stripe.webhooks.constructEvent(after.body, afterHeader, SECRET)).toThrow();
  });

  it('signs form B over <timestamp>.<payload> and sends the service headers, the old secret apart during rotation', async () => {
    await setUp();
    const webhook = await createAdminWebhook(context, { url: receiver.url('/b'), events: ['payment.*'] });
    const rotated = (
      await context.cloud.app.inject({
        method: 'POST',
        url: `/api/v1/webhooks/${webhook.id}/rotate-secret`,
        headers: bearer(context.adminToken),
      })
    ).json();
    const payment = orderEvent(context.tenantId, context.locationId, 'payment.processed', {
      data: JSON.stringify({ id: 'p1', order_id: 'o1', method: 'card', amount: 10, tip: 1, total: 11 }),
    });
    await appendEvents(context.cloud, [payment]);
    await drain();

    const request = receiver.received[0]!;
    const timestamp = request.headers['x-service-timestamp'] as string;
    expect(request.headers['x-service-event']).toBe('payment.received');
    expect(request.headers['x-service-delivery']).toMatch(/^[0-9a-f-]{36}$/);
    expect(request.headers['content-type']).toBe('application/json');
    const signed = (secret: string) =>
      `sha256=${createHmac('sha256', secret).update(`${timestamp}.${request.body}`).digest('hex')}`;
    expect(request.headers['x-service-signature']).toBe(signed(rotated.new_secret));
    expect(request.headers['x-service-signature-previous']).toBe(signed(webhook.secret));
    const body = JSON.parse(request.body);
    expect(body).toMatchObject({
      id: payment.id,
      event: 'payment.received',
      metadata: { tenant_id: context.tenantId, location_id: context.locationId },
    });
    expect(body.api_version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('follows the subscription interface’s seven-attempt schedule to the minute, then stops', async () => {
    await setUp();
    answer = () => ({ status: 503 });
    const subscription = await createSubscription(context, {
      url: receiver.url('/a'),
      events: ['order.*'],
      secret: SECRET,
    });
    await appendEvents(context.cloud, [storeEvent()]);
    await drain();
    expect(receiver.received).toHaveLength(1);
    const delays = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 8 * HOUR, 24 * HOUR];
    for (const [i, delay] of delays.entries()) {
      await advance(delay - 1000);
      expect(receiver.received, `attempt ${i + 2} must not come early`).toHaveLength(i + 1);
      await advance(1000);
      expect(receiver.received, `attempt ${i + 2} is due`).toHaveLength(i + 2);
    }
    await advance(48 * HOUR);
    expect(receiver.received).toHaveLength(7);
    const [delivery] = await deliveriesOf(subscription.id);
    expect(delivery).toMatchObject({
      status: 'failed',
      attempt: 7,
      next_attempt_at: null,
      last_response_code: 503,
    });
    const log = await attemptsOf(delivery!.id);
    expect(log.map((row) => row.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(log.at(-1)!.retry_at).toBeNull();
    // Every attempt carries the same event id (the receiver's deduplication key) and a fresh signature.
    expect(new Set(receiver.received.map((r) => JSON.parse(r.body).id)).size).toBe(1);
    expect(new Set(receiver.received.map((r) => r.headers['x-service-signature'])).size).toBe(7);
  });

  it('retries 429, 5xx and time-outs, and gives up at once on other 4xx and on redirects', async () => {
    await setUp();
    const cases: Array<[string, Answer, boolean]> = [
      ['/ok', { status: 204 }, false],
      ['/gone', { status: 410 }, false],
      ['/bad', { status: 400 }, false],
      ['/moved', { status: 302, headers: { location: 'http://169.254.169.254/' } }, false],
      ['/busy', { status: 429 }, true],
      ['/error', { status: 500 }, true],
      ['/hang', 'hang', true],
    ];
    answer = (request) => cases.find(([path]) => path === request.path)![1];
    const ids = new Map<string, string>();
    for (const [path] of cases) {
      const webhook = await createAdminWebhook(context, {
        url: receiver.url(path),
        events: ['order.created'],
        settings: { timeout_seconds: 1 },
      });
      ids.set(path, webhook.id);
    }
    await appendEvents(context.cloud, [storeEvent()]);
    await drain();
    for (const [path, , retried] of cases) {
      const [delivery] = await deliveriesOf(ids.get(path)!);
      const succeeded = path === '/ok';
      expect(delivery, path).toMatchObject({ status: succeeded ? 'success' : 'failed', attempt: 1 });
      expect(delivery!.next_attempt_at !== null, `${path} retried`).toBe(retried);
    }
    const [timedOut] = await deliveriesOf(ids.get('/hang')!);
    expect(timedOut!.last_error_class).toBe('timeout');
    // Nothing followed the redirect to the metadata address.
    expect(receiver.received.filter((r) => r.path === '/moved')).toHaveLength(1);
  });

  it('backs off exponentially up to the admin subscription’s max_attempts, honouring a longer Retry-After', async () => {
    await setUp();
    answer = (request) =>
      request.path === '/later' ? { status: 429, headers: { 'retry-after': '900' } } : { status: 500 };
    const webhook = await createAdminWebhook(context, {
      url: receiver.url('/down'),
      events: ['order.created'],
      settings: { retry_policy: { max_attempts: 3, backoff: 'exponential' } },
    });
    const later = await createAdminWebhook(context, {
      url: receiver.url('/later'),
      events: ['order.created'],
    });
    await appendEvents(context.cloud, [storeEvent()]);
    await drain();
    const start = context.cloud.clock.now().getTime();
    const [delivery] = await deliveriesOf(webhook.id);
    expect(Date.parse(delivery!.next_attempt_at!) - start).toBe(60_000);
    const [asked] = await deliveriesOf(later.id);
    expect(Date.parse(asked!.next_attempt_at!) - start).toBe(900_000);
    await advance(60_000);
    const [second] = await deliveriesOf(webhook.id);
    expect(second!.attempt).toBe(2);
    expect(Date.parse(second!.next_attempt_at!) - context.cloud.clock.now().getTime()).toBe(120_000);
    await advance(120_000);
    const [third] = await deliveriesOf(webhook.id);
    expect(third).toMatchObject({ attempt: 3, status: 'failed', next_attempt_at: null });
  });

  it('sends several events in one signed request when batch_events is on', async () => {
    await setUp();
    const webhook = await createAdminWebhook(context, {
      url: receiver.url('/batched'),
      events: ['order.*'],
      settings: { batch_events: true },
    });
    const events = Array.from({ length: 5 }, () => storeEvent());
    await appendEvents(context.cloud, events);
    await drain();
    expect(receiver.received).toHaveLength(1);
    const request = receiver.received[0]!;
    const body = JSON.parse(request.body);
    expect(body.events.map((envelope: { id: string }) => envelope.id)).toEqual(events.map((e) => e.id));
    const timestamp = request.headers['x-service-timestamp'] as string;
    const expected = createHmac('sha256', webhook.secret)
      .update(`${timestamp}.${request.body}`)
      .digest('hex');
    expect(request.headers['x-service-signature']).toBe(`sha256=${expected}`);
    const rows = await deliveriesOf(webhook.id);
    expect(rows.map((row) => [row.status, row.attempt])).toEqual(events.map(() => ['success', 1]));
  });

  it('fires a retry within 2 s of its scheduled time', async () => {
    await setUp();
    // The cloud's clock follows real time here: the worker's poll loop is what is measured.
    const follow = setInterval(() => context.cloud.clock.set(new Date()), 5);
    const worker = context.cloud.services.webhooks.worker;
    try {
      const webhook = await createAdminWebhook(context, { url: receiver.url('/later'), events: ['order.*'] });
      await appendEvents(context.cloud, [storeEvent()]);
      const [delivery] = await deliveriesOf(webhook.id);
      const due = Date.now() + 1500;
      await context.cloud.store.db
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', attempt: 1, next_attempt_at: new Date(due).toISOString() })
        .where('id', '=', delivery!.id)
        .execute();
      worker.start();
      await expect.poll(() => receiver.received.length, { timeout: 5000, interval: 20 }).toBe(1);
      const lateness = Date.now() - due;
      expect(lateness).toBeGreaterThanOrEqual(-50);
      expect(lateness).toBeLessThan(2000);
    } finally {
      clearInterval(follow);
      await worker.stop(100);
    }
  });

  it('never sends a tenant’s events to another tenant’s subscriptions', async () => {
    await setUp();
    await createAdminWebhook(context, { url: receiver.url('/acme'), events: ['*'] });
    await createAdminWebhook(
      context,
      { url: receiver.url('/globex'), events: ['*'] },
      context.otherAdminToken,
    );
    await appendEvents(context.cloud, [
      storeEvent(),
      orderEvent(context.otherTenantId, context.otherLocationId),
      orderEvent(context.otherTenantId, context.otherLocationId),
    ]);
    await drain();
    const tenantsAt = (path: string) =>
      receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body).metadata.tenant_id);
    expect(tenantsAt('/acme')).toEqual([context.tenantId]);
    expect(tenantsAt('/globex')).toEqual([context.otherTenantId, context.otherTenantId]);
  });

  it('sends one subscription’s deliveries in event order', async () => {
    await setUp();
    await createAdminWebhook(context, { url: receiver.url('/ordered'), events: ['order.*'] });
    const events = Array.from({ length: 60 }, () => storeEvent());
    for (let i = 0; i < events.length; i += 7) await appendEvents(context.cloud, events.slice(i, i + 7));
    await drain();
    expect(receiver.received.map((r) => JSON.parse(r.body).id)).toEqual(events.map((e) => e.id));
  });

  it('logs an attempt its worker died during as interrupted, and sends it again', async () => {
    await setUp();
    const webhook = await createAdminWebhook(context, { url: receiver.url('/x'), events: ['order.*'] });
    await appendEvents(context.cloud, [storeEvent()]);
    const db = context.cloud.store.db;
    const [queued] = await deliveriesOf(webhook.id);
    // What a killed worker leaves: the attempt marked on the wire and its lane's lease running out.
    const now = context.cloud.clock.now().toISOString();
    await db
      .updateTable('webhook_deliveries')
      .set({ in_flight_since: now, attempt: 1 })
      .where('id', '=', queued!.id)
      .execute();
    await db
      .insertInto('webhook_lanes')
      .values({
        webhook_id: webhook.id,
        owner: 'dead-worker',
        lease_until: new Date(Date.parse(now) + 6000).toISOString(),
        last_sent_at: null,
      })
      .execute();
    await drain();
    expect(receiver.received, 'the lane is still leased').toHaveLength(0);
    await advance(6000);
    expect(receiver.received).toHaveLength(1);
    const log = await attemptsOf(queued!.id);
    expect(log.map((row) => [row.attempt, row.outcome])).toEqual([
      [1, 'interrupted'],
      [2, 'success'],
    ]);
  });

  it('lets a worker that lost its lane neither send again nor overwrite the new holder, and logs what it saw', async () => {
    await setUp();
    const log = pino({ level: 'silent' });
    const { db } = context.cloud.store;
    const { clock } = context.cloud;
    const outbound = createOutbound({ allowPrivate: true });
    const recorder = createRecorder({ db, clock, newId, log, disableAfterMs: 72 * HOUR });
    const other = createDeliveryWorker({
      db,
      clock,
      newId,
      outbound,
      recorder,
      log,
      options: { maxLanes: 8, pollMs: 50, leaseMs: 6000 },
    });
    let release = () => {};
    const held = new Promise<Answer>((resolve) => {
      release = () => resolve({ status: 200 });
    });
    answer = () => (receiver.received.length === 1 ? held : { status: 200 });
    const webhook = await createAdminWebhook(context, { url: receiver.url('/x'), events: ['order.*'] });
    await appendEvents(context.cloud, [storeEvent()]);
    const [first] = await deliveriesOf(webhook.id);

    // Worker A sends and stalls; its lease runs out in the store and worker B takes the lane.
    const stalled = context.cloud.services.webhooks.worker.drain();
    await expect.poll(() => receiver.received.length).toBe(1);
    clock.advance(7000);
    await other.drain();
    expect(receiver.received).toHaveLength(2);

    // A wakes up: its answer goes in the log, over B's guess, and leaves B's outcome alone.
    await appendEvents(context.cloud, [storeEvent()]);
    const [, second] = await deliveriesOf(webhook.id);
    // A worker not holding the lane cannot put anything of it on the wire.
    const now = clock.now().toISOString();
    expect(await deliveries.markInFlight(db, 'worker-without-the-lane', now, [second!])).toEqual(new Set());
    release();
    await stalled;
    const log1 = await attemptsOf(first!.id);
    expect(log1.map((row) => [row.attempt, row.outcome])).toEqual([
      [1, 'success'],
      [2, 'success'],
    ]);
    await other.drain();
    const [d1, d2] = await deliveriesOf(webhook.id);
    expect(d1).toMatchObject({ status: 'success', attempt: 2, in_flight_since: null });
    expect(d2).toMatchObject({ status: 'success', attempt: 1 });
    expect(receiver.received.map((r) => r.headers['x-service-delivery'])).toEqual([d1!.id, d1!.id, d2!.id]);
    await outbound.close();
  });

  it('keeps an endpoint’s rate limit and never lets a hanging endpoint hold up another', async () => {
    await setUp();
    answer = (request) => (request.path.startsWith('/hang') ? 'hang' : { status: 200 });
    await createAdminWebhook(context, {
      url: receiver.url('/paced'),
      events: ['order.created'],
      settings: { max_per_second: 100 },
    });
    // Twelve hanging endpoints on the one host the healthy one shares (more than a host's pool).
    // Their timeout (10 s) outlasts the healthy endpoint's whole run, so none has given up yet.
    for (let i = 0; i < 12; i += 1)
      await createAdminWebhook(context, {
        url: receiver.url(`/hang${i}`),
        events: ['order.created'],
        settings: { timeout_seconds: 10 },
      });
    await createAdminWebhook(context, { url: receiver.url('/fast'), events: ['order.created'] });
    const worker = context.cloud.services.webhooks.worker;
    worker.start();
    const events = Array.from({ length: 250 }, () => storeEvent());
    const started = performance.now();
    await appendEvents(context.cloud, events);
    const arrivals = (path: string) => receiver.received.filter((r) => r.path === path).map((r) => r.at);
    await expect.poll(() => arrivals('/fast').length, { timeout: 8000 }).toBe(250);
    // The healthy endpoint is done while the hanging ones still hold their first requests: well
    // inside their timeout, whatever a loaded PostgreSQL run costs (3.5 s seen, 1 s on SQLite).
    expect(receiver.received.filter((r) => r.path.startsWith('/hang'))).toHaveLength(12);
    expect(arrivals('/fast').at(-1)! - started).toBeLessThan(8000);
    await expect.poll(() => arrivals('/paced').length, { timeout: 8000 }).toBe(250);
    const paced = arrivals('/paced');
    const rate = (paced.length - 1) / ((paced.at(-1)! - paced[0]!) / 1000);
    expect(rate).toBeLessThanOrEqual(101);
    // Never above the limit; below it only as far as a busy machine's timers lag.
    expect(rate).toBeGreaterThan(50);
    await worker.stop(100);
  });

  it('disables an endpoint failing for 72 hours, logs why, and replays what it missed when re-enabled', async () => {
    await setUp();
    answer = () => ({ status: 500 });
    const webhook = await createAdminWebhook(context, { url: receiver.url('/down'), events: ['order.*'] });
    await appendEvents(context.cloud, [storeEvent()]);
    await drain();
    await advance(71 * HOUR);
    await appendEvents(context.cloud, [storeEvent()]);
    await drain();
    context.adminToken = (
      await loginTokens(context.cloud.app, { email: 'ops@acme.test', password: 'correct horse battery' })
    ).access_token;
    let detail = await context.cloud.app.inject({
      method: 'GET',
      url: `/api/v1/webhooks/${webhook.id}`,
      headers: bearer(context.adminToken),
    });
    expect(detail.json().status, detail.body).toBe('active');

    await advance(2 * HOUR);
    await appendEvents(context.cloud, [storeEvent()]);
    await drain();
    // Days went by: the admin signs in again.
    context.adminToken = (
      await loginTokens(context.cloud.app, { email: 'ops@acme.test', password: 'correct horse battery' })
    ).access_token;
    detail = await context.cloud.app.inject({
      method: 'GET',
      url: `/api/v1/webhooks/${webhook.id}`,
      headers: bearer(context.adminToken),
    });
    expect(detail.json()).toMatchObject({
      status: 'disabled',
      disabled_reason: expect.stringContaining('72 hours'),
    });
    const logs = await context.cloud.app.inject({
      method: 'GET',
      url: `/api/v1/webhooks/${webhook.id}/logs?level=error`,
      headers: bearer(context.adminToken),
    });
    expect(logs.json().logs.map((line: { message: string }) => line.message)).toContain(
      'endpoint disabled: it kept failing',
    );

    // While disabled nothing is sent; events keep coming.
    const sentBefore = receiver.received.length;
    const missed = [storeEvent(), storeEvent()];
    await appendEvents(context.cloud, missed);
    await advance(HOUR);
    expect(receiver.received).toHaveLength(sentBefore);

    answer = () => ({ status: 200 });
    context.adminToken = (
      await loginTokens(context.cloud.app, { email: 'ops@acme.test', password: 'correct horse battery' })
    ).access_token;
    const enabled = await context.cloud.app.inject({
      method: 'POST',
      url: `/api/v1/webhooks/${webhook.id}/enable`,
      headers: bearer(context.adminToken),
      payload: { replay: true },
    });
    expect(enabled.statusCode, enabled.body).toBe(200);
    expect(enabled.json()).toMatchObject({ status: 'active', replayed: enabled.json().missed_events });
    await drain();
    const delivered = receiver.received.slice(sentBefore).map((r) => JSON.parse(r.body).id);
    for (const event of missed) expect(delivered).toContain(event.id);
  });

  it('delivers events that arrive by sync from a store, and a location taken out of service in the cloud', async () => {
    await setUp();
    await createSubscription(context, {
      url: receiver.url('/store'),
      events: ['location.status_changed', 'order.created'],
      secret: SECRET,
    });
    const provisioned = await context.cloud.app.inject({
      method: 'POST',
      url: '/v1/sync/appliances',
      headers: bearer(context.adminToken),
      payload: { location_id: context.locationId, name: 'Store 1 appliance' },
    });
    expect(provisioned.statusCode, provisioned.body).toBe(201);
    const event = storeEvent();
    const pushed = await context.cloud.app.inject({
      method: 'POST',
      url: '/v1/sync/push',
      headers: { authorization: `Appliance ${provisioned.json().data.credential}` },
      payload: {
        queue_depth: 0,
        changes: [
          {
            change_id: newId(),
            table: 'events',
            row_id: event.id,
            op: 'insert',
            base_version: 0,
            version: 1,
            hlc: createHlc('store-1').tick(),
            fields: {
              id: event.id,
              type: event.type,
              location_id: context.locationId,
              occurred_at: event.occurred_at,
              data: event.data,
            },
          },
        ],
      },
    });
    expect(pushed.json().data?.results[0].status, pushed.body).toBe('applied');
    await drain();
    expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({ id: event.id, type: 'order.created' });

    const changed = await context.cloud.app.inject({
      method: 'PATCH',
      url: `/v1/platform/locations/${context.locationId}`,
      headers: bearer(context.adminToken),
      payload: { status: 'inactive' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    await drain();
    expect(JSON.parse(receiver.received[1]!.body)).toMatchObject({
      type: 'location.status_changed',
      location_id: context.locationId,
      data: { status: 'inactive', previous_status: 'active' },
    });
  });
});
