import { createHmac } from 'node:crypto';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  type WebhookTestContext,
} from '../../support/webhooks.ts';

const BASE = '/v1/webhooks';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const SECRET = 'subscriber-secret-0123456789';
const UNKNOWN_ID = '0192f3a4-5b6c-7d8e-9f01-23456789abcd';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
type Json = Record<string, unknown>;

interface SubscriptionDelivery {
  id: string;
  event_id: string;
  event_type: string;
  status: string;
  response_code: number | null;
  response_time_ms: number | null;
  delivered_at: string | null;
  next_retry_at: string | null;
}

/** Form A as a receiver checks it: `t=<seconds>,v1=<hex>` over `<t>.<raw body>`. */
function verifyFormA(header: string, body: string, secret: string) {
  const parts = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest('hex');
  return parts.v1 === expected && Math.abs(Date.now() / 1000 - Number(parts.t)) <= 300;
}

function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Array) },
    meta: { request_id: expect.any(String) },
  });
  return body.error as { code: string; message: string; details: Array<{ field: string; message: string }> };
}

const fieldsOf = (error: { details: Array<{ field: string }> }) =>
  error.details.map((detail) => detail.field);

describe.each(backends)('subscription webhook interface on %s', (backend) => {
  let context: WebhookTestContext;
  let receiver: Awaited<ReturnType<typeof createReceiver>>;
  /** What the receiver answers on a path; 200 `ok` for any path not listed. */
  const answers = new Map<string, Answer>();
  let seq = 0;

  beforeAll(async () => {
    context = await createWebhookCloud(backend, { operationsPerMinute: 100_000 });
    // The test clock stands still, so the gateway's per-tier allowance never refills.
    await context.cloud.services.tenancy.updateTenant(context.tenantId, { tier: 'enterprise' });
    await context.cloud.services.tenancy.updateTenant(context.otherTenantId, { tier: 'enterprise' });
    receiver = await createReceiver((request) => answers.get(request.path) ?? { status: 200, body: 'ok' });
  });
  afterAll(async () => {
    await context.cloud.close();
    await receiver.close();
  });

  const path = (name = 'sub') => `/${name}-${++seq}`;
  const urlOf = (at: string) => receiver.url(at);
  const receivedAt = (at: string) => receiver.received.filter((request) => request.path === at);

  function call(method: Method, url: string, payload?: unknown, token: string | null = context.adminToken) {
    const options: InjectOptions = { method, url: `${BASE}${url}`, headers: token ? bearer(token) : {} };
    if (payload !== undefined) options.payload = payload as InjectOptions['payload'];
    return context.cloud.app.inject(options);
  }
  const asOther = (method: Method, url: string, payload?: unknown) =>
    call(method, url, payload, context.otherAdminToken);

  const subscribe = (body: Json = {}, token = context.adminToken) =>
    createSubscription(
      context,
      { url: urlOf(path()), events: ['order.created'], secret: SECRET, ...body },
      token,
    );

  async function deliver(count: number, type = 'order.created', tenantId = context.tenantId) {
    const locationId = tenantId === context.tenantId ? context.locationId : context.otherLocationId;
    const events = Array.from({ length: count }, () => orderEvent(tenantId, locationId, type));
    await appendEvents(context.cloud, events);
    await context.cloud.services.webhooks.worker.drain();
    return events;
  }

  async function deliveriesOf(id: string, query = '') {
    const response = await call('GET', `/${id}/deliveries${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as {
      data: SubscriptionDelivery[];
      meta: {
        request_id: string;
        timestamp: string;
        pagination: { limit: number; next_cursor: string | null };
      };
    };
  }

  let userSeq = 0;
  async function tokenWith(roles: string[]) {
    const email = `subscriber-${++userSeq}@webhooks.test`;
    await context.cloud.services.tenancy.addUser(context.tenantId, {
      email,
      password: 'correct horse battery',
      roles,
    });
    return (await loginTokens(context.cloud.app, { email, password: 'correct horse battery' })).access_token;
  }

  describe('access', () => {
    it('answers 401 without a token, on every route', async () => {
      const routes: Array<[Method, string, unknown?]> = [
        ['GET', ''],
        ['POST', '', { url: urlOf(path()), events: ['order.created'], secret: SECRET }],
        ['GET', `/${UNKNOWN_ID}`],
        ['PATCH', `/${UNKNOWN_ID}`, { events: ['order.created'] }],
        ['DELETE', `/${UNKNOWN_ID}`],
        ['POST', `/${UNKNOWN_ID}/test`, { event_type: 'order.created' }],
        ['GET', `/${UNKNOWN_ID}/deliveries`],
      ];
      for (const [method, url, payload] of routes) {
        expect((await call(method, url, payload, null)).statusCode, `${method} ${url}`).toBe(401);
        expect((await call(method, url, payload, 'garbage')).statusCode, `${method} ${url}`).toBe(401);
      }
    });

    it('admits tenant_admin, platform_admin, system_admin and super_admin to every route', async () => {
      for (const role of ['tenant_admin', 'platform_admin', 'system_admin', 'super_admin']) {
        const token = await tokenWith([role]);
        const created = await call(
          'POST',
          '',
          { url: urlOf(path()), events: ['order.created'], secret: SECRET },
          token,
        );
        expect(created.statusCode, `${role}: ${created.body}`).toBe(201);
        const id = created.json().data.id;
        expect((await call('GET', '', undefined, token)).statusCode).toBe(200);
        expect((await call('GET', `/${id}`, undefined, token)).statusCode).toBe(200);
        expect((await call('PATCH', `/${id}`, { events: ['order.*'] }, token)).statusCode).toBe(200);
        expect((await call('POST', `/${id}/test`, { event_type: 'order.created' }, token)).statusCode).toBe(
          200,
        );
        expect((await call('GET', `/${id}/deliveries`, undefined, token)).statusCode).toBe(200);
        expect((await call('DELETE', `/${id}`, undefined, token)).statusCode).toBe(204);
      }
    });

    it('refuses other roles with 403', async () => {
      const { id } = await subscribe();
      for (const roles of [['manager'], ['restaurant_manager'], ['staff'], ['finance'], ['billing_admin']]) {
        const token = await tokenWith(roles);
        const attempts: Array<[Method, string, unknown?]> = [
          ['GET', ''],
          ['POST', '', { url: urlOf(path()), events: ['order.created'], secret: SECRET }],
          ['GET', `/${id}`],
          ['PATCH', `/${id}`, { events: ['order.*'] }],
          ['DELETE', `/${id}`],
          ['POST', `/${id}/test`, { event_type: 'order.created' }],
          ['GET', `/${id}/deliveries`],
        ];
        for (const [method, url, payload] of attempts) {
          expectError(await call(method, url, payload, token), 403, 'FORBIDDEN');
        }
      }
      expect((await call('GET', `/${id}`)).json().data.events).toEqual(['order.created']);
    });
  });

  describe('create', () => {
    it('answers 201 with the subscription in the general envelope, without the secret', async () => {
      const url = urlOf(path());
      const response = await call('POST', '', {
        url,
        events: ['order.created', 'payment.*'],
        secret: SECRET,
      });
      expect(response.statusCode, response.body).toBe(201);
      const body = response.json();
      expect(body).toEqual({
        data: {
          id: expect.any(String),
          url,
          events: ['order.created', 'payment.*'],
          status: 'active',
          created_at: expect.stringMatching(ISO),
          // Extensions: why and since when a subscription stopped, when it has.
          disabled_reason: null,
          disabled_at: null,
        },
        meta: { request_id: expect.any(String), timestamp: expect.stringMatching(ISO) },
      });
      expect(response.body).not.toContain(SECRET);
      expect(response.headers['x-request-id'] ?? body.meta.request_id).toBe(body.meta.request_id);
    });

    it('requires url, events and a secret of at least 16 characters', async () => {
      const base = { url: urlOf(path()), events: ['order.created'], secret: SECRET };
      for (const field of ['url', 'events', 'secret'] as const) {
        const { [field]: _left, ...rest } = base;
        const error = expectError(await call('POST', '', rest), 400, 'INVALID_REQUEST');
        expect(fieldsOf(error)).toContain(`body.${field}`);
      }
      const short = expectError(
        await call('POST', '', { ...base, secret: 'x'.repeat(15) }),
        400,
        'INVALID_REQUEST',
      );
      expect(fieldsOf(short)).toEqual(['body.secret']);
      expect((await call('POST', '', { ...base, secret: 'x'.repeat(16) })).statusCode).toBe(201);
    });

    it('refuses unknown body fields as INVALID_REQUEST', async () => {
      const base = { url: urlOf(path()), events: ['order.created'], secret: SECRET };
      for (const extra of [
        { description: 'admin-only field' },
        { metadata: { a: 1 } },
        { settings: { timeout_seconds: 5 } },
        { headers: { 'X-Key': 'v' } },
        { tenant_id: context.otherTenantId },
        { status: 'disabled' },
      ]) {
        const error = expectError(await call('POST', '', { ...base, ...extra }), 400, 'INVALID_REQUEST');
        expect(error.details).toEqual([
          { field: `body.${Object.keys(extra)[0]}`, message: expect.any(String) },
        ]);
      }
    });

    it('answers invalid_url for what is not an http(s) URL', async () => {
      for (const url of [
        'not a url',
        '',
        'ftp://example.com/hook',
        'https://user:secret@example.com/hook',
        `https://example.com/${'a'.repeat(2100)}`,
      ]) {
        const error = expectError(
          await call('POST', '', { url, events: ['order.created'], secret: SECRET }),
          400,
          'invalid_url',
        );
        expect(fieldsOf(error)).toEqual(['body.url']);
      }
    });

    it('answers invalid_events for the admin catalog’s names, bad patterns and unknown names', async () => {
      for (const events of [
        ['payment.received'],
        ['customer.created'],
        ['inventory.restocked'],
        ['ord*'],
        ['*.created'],
        ['order.created.extra'],
        ['unknown'],
        ['customer.*'],
        [],
      ]) {
        expectError(
          await call('POST', '', { url: urlOf(path()), events, secret: SECRET }),
          400,
          'invalid_events',
        );
      }
      for (const events of [
        ['payment.processed'],
        ['menu.*', 'location.*'],
        ['*'],
        ['order.sent', 'payment.voided'],
      ]) {
        const response = await call('POST', '', { url: urlOf(path()), events, secret: SECRET });
        expect(response.statusCode, `${events}: ${response.body}`).toBe(201);
      }
    });

    it('answers url_already_exists for a URL the tenant subscribed, and allows it elsewhere and after a delete', async () => {
      const url = urlOf(path('dup'));
      const first = await subscribe({ url });
      const error = expectError(await subscribeRaw(url), 409, 'url_already_exists');
      expect(fieldsOf(error)).toEqual(['body.url']);
      // The other tenant and the admin interface have URLs of their own.
      expect((await asOther('POST', '', { url, events: ['order.created'], secret: SECRET })).statusCode).toBe(
        201,
      );
      expect((await createAdminWebhook(context, { url })).id).toBeDefined();
      expect((await call('DELETE', `/${first.id}`)).statusCode).toBe(204);
      expect((await subscribeRaw(url)).statusCode).toBe(201);
    });

    const subscribeRaw = (url: string) =>
      call('POST', '', { url, events: ['order.created'], secret: SECRET });
  });

  describe('read', () => {
    it('lists the tenant’s subscriptions in the general list envelope', async () => {
      const mine = await subscribe();
      const theirs = await subscribe({}, context.otherAdminToken);
      const admin = await createAdminWebhook(context, { url: urlOf(path('admin')) });
      const response = await call('GET', '?limit=100');
      expect(response.statusCode).toBe(200);
      const body = response.json();
      expect(body.meta).toEqual({
        request_id: expect.any(String),
        timestamp: expect.stringMatching(ISO),
        pagination: { limit: 100, next_cursor: null },
      });
      const ids = body.data.map((row: { id: string }) => row.id);
      expect(ids).toContain(mine.id);
      expect(ids).not.toContain(theirs.id);
      expect(ids).not.toContain(admin.id);
      expect(body.data.find((row: { id: string }) => row.id === mine.id)).toEqual({
        id: mine.id,
        url: expect.any(String),
        events: ['order.created'],
        status: 'active',
        created_at: expect.stringMatching(ISO),
        disabled_reason: null,
        disabled_at: null,
      });
      expect(response.body).not.toContain(SECRET);
      const other = (await asOther('GET', '?limit=100')).json().data.map((row: { id: string }) => row.id);
      expect(other).toContain(theirs.id);
      expect(other).not.toContain(mine.id);
    });

    it('pages the list by following next_cursor', async () => {
      for (let i = 0; i < 3; i++) await subscribe();
      const all = (await call('GET', '?limit=100')).json().data.map((row: { id: string }) => row.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`;
        const response = await call('GET', query);
        expect(response.statusCode, response.body).toBe(200);
        const body = response.json();
        expect(body.data.length).toBeLessThanOrEqual(2);
        seen.push(...body.data.map((row: { id: string }) => row.id));
        cursor = body.meta.pagination.next_cursor;
        pages++;
      } while (cursor !== null && pages < 100);
      expect(seen).toEqual(all);
      expectError(await call('GET', '?limit=0'), 400, 'INVALID_REQUEST');
      expectError(await call('GET', '?limit=101'), 400, 'INVALID_REQUEST');
      expectError(await call('GET', '?sort=url'), 400, 'INVALID_REQUEST');
    });

    it('shows one subscription; another tenant’s, an admin webhook and an unknown id are not found', async () => {
      const mine = await subscribe({ events: ['payment.processed'] });
      const response = await call('GET', `/${mine.id}`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        data: {
          id: mine.id,
          url: expect.any(String),
          events: ['payment.processed'],
          status: 'active',
          created_at: expect.stringMatching(ISO),
          disabled_reason: null,
          disabled_at: null,
        },
        meta: { request_id: expect.any(String), timestamp: expect.stringMatching(ISO) },
      });
      expectError(await asOther('GET', `/${mine.id}`), 404, 'webhook_not_found');
      const admin = await createAdminWebhook(context, { url: urlOf(path('admin')) });
      expectError(await call('GET', `/${admin.id}`), 404, 'webhook_not_found');
      expectError(await call('GET', `/${UNKNOWN_ID}`), 404, 'webhook_not_found');
      // And the admin interface does not show the subscription.
      const adminView = await context.cloud.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/${mine.id}`,
        headers: bearer(context.adminToken),
      });
      expect(adminView.statusCode).toBe(404);
    });
  });

  describe('change', () => {
    it('changes the events, the URL or both', async () => {
      const { id } = await subscribe();
      const events = await call('PATCH', `/${id}`, { events: ['order.*', 'payment.refunded'] });
      expect(events.statusCode, events.body).toBe(200);
      expect(events.json()).toMatchObject({
        data: { id, events: ['order.*', 'payment.refunded'], status: 'active' },
        meta: { request_id: expect.any(String) },
      });
      const url = urlOf(path('moved'));
      const moved = await call('PATCH', `/${id}`, { url });
      expect(moved.json().data).toMatchObject({ url, events: ['order.*', 'payment.refunded'] });
      const both = await call('PATCH', `/${id}`, {
        url: urlOf(path('both')),
        events: ['inventory.low_stock'],
      });
      expect(both.json().data.events).toEqual(['inventory.low_stock']);
      expect((await call('GET', `/${id}`)).json().data).toEqual(both.json().data);
    });

    it('refuses an empty change, unknown fields, bad URLs and events, and a taken URL', async () => {
      const taken = await subscribe();
      const { id } = await subscribe();
      const before = (await call('GET', `/${id}`)).json().data;
      expectError(await call('PATCH', `/${id}`, {}), 400, 'INVALID_REQUEST');
      for (const extra of [{ secret: 'y'.repeat(32) }, { status: 'disabled' }, { description: 'x' }]) {
        const error = expectError(await call('PATCH', `/${id}`, extra), 400, 'INVALID_REQUEST');
        expect(fieldsOf(error)).toContain(`body.${Object.keys(extra)[0]}`);
      }
      expectError(await call('PATCH', `/${id}`, { url: 'ftp://example.com/' }), 400, 'invalid_url');
      expectError(await call('PATCH', `/${id}`, { events: ['payment.received'] }), 400, 'invalid_events');
      expectError(await call('PATCH', `/${id}`, { events: [] }), 400, 'invalid_events');
      const takenUrl = (await call('GET', `/${taken.id}`)).json().data.url;
      expectError(await call('PATCH', `/${id}`, { url: takenUrl }), 409, 'url_already_exists');
      expect((await call('GET', `/${id}`)).json().data).toEqual(before);
    });

    it('answers 404 to another tenant and changes nothing', async () => {
      const { id } = await subscribe();
      const before = (await call('GET', `/${id}`)).json().data;
      expectError(await asOther('PATCH', `/${id}`, { events: ['order.*'] }), 404, 'webhook_not_found');
      expectError(await asOther('PATCH', `/${id}`, { url: urlOf(path('stolen')) }), 404, 'webhook_not_found');
      expectError(await call('PATCH', `/${UNKNOWN_ID}`, { events: ['order.*'] }), 404, 'webhook_not_found');
      expect((await call('GET', `/${id}`)).json().data).toEqual(before);
    });

    it('delivers what the new events name, to the new URL', async () => {
      const first = path('first');
      const second = path('second');
      const { id } = await subscribe({ url: urlOf(first), events: ['order.created'] });
      await deliver(1, 'order.created');
      await call('PATCH', `/${id}`, { url: urlOf(second), events: ['order.completed'] });
      await deliver(1, 'order.created');
      await deliver(1, 'order.completed');
      expect(receivedAt(first)).toHaveLength(1);
      expect(receivedAt(second).map((request) => JSON.parse(request.body).type)).toEqual(['order.completed']);
    });
  });

  describe('delete', () => {
    it('answers 204, then 404 on every route; nothing more is delivered', async () => {
      const at = path('gone');
      const { id } = await subscribe({ url: urlOf(at) });
      const response = await call('DELETE', `/${id}`);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      const routes: Array<[Method, string, unknown?]> = [
        ['GET', `/${id}`],
        ['PATCH', `/${id}`, { events: ['order.*'] }],
        ['DELETE', `/${id}`],
        ['POST', `/${id}/test`, { event_type: 'order.created' }],
        ['GET', `/${id}/deliveries`],
      ];
      for (const [method, url, payload] of routes)
        expectError(await call(method, url, payload), 404, 'webhook_not_found');
      expect(
        (await call('GET', '?limit=100')).json().data.map((row: { id: string }) => row.id),
      ).not.toContain(id);
      await deliver(1);
      expect(receivedAt(at)).toHaveLength(0);
    });

    it('answers 404 to another tenant and keeps the subscription', async () => {
      const { id } = await subscribe();
      expectError(await asOther('DELETE', `/${id}`), 404, 'webhook_not_found');
      expectError(await call('DELETE', `/${UNKNOWN_ID}`), 404, 'webhook_not_found');
      expect((await call('GET', `/${id}`)).statusCode).toBe(200);
    });
  });

  describe('test', () => {
    it('sends a signed form A sample of the event type and answers with the endpoint’s response', async () => {
      const at = path('tested');
      answers.set(at, { status: 200, body: 'thanks' });
      const { id } = await subscribe({ url: urlOf(at) });
      const response = await call('POST', `/${id}/test`, { event_type: 'payment.processed' });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body).toEqual({
        data: {
          delivery_id: expect.any(String),
          status: 'success',
          response_code: 200,
          response_body: 'thanks',
          latency_ms: expect.any(Number),
          error: null,
        },
        meta: { request_id: expect.any(String), timestamp: expect.stringMatching(ISO) },
      });
      const [received] = receivedAt(at);
      expect(JSON.parse(received!.body)).toEqual({
        id: expect.any(String),
        type: 'payment.processed',
        api_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        created_at: expect.stringMatching(ISO),
        tenant_id: context.tenantId,
        location_id: null,
        data: expect.any(Object),
      });
      expect(verifyFormA(String(received!.headers['x-service-signature']), received!.body, SECRET)).toBe(
        true,
      );
      expect(received!.headers['x-service-delivery']).toBe(body.data.delivery_id);
      answers.delete(at);
    });

    it('reports a failing endpoint as a failed test', async () => {
      const at = path('failing');
      answers.set(at, { status: 500, body: 'nope' });
      const { id } = await subscribe({ url: urlOf(at) });
      const response = await call('POST', `/${id}/test`, { event_type: 'order.created' });
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toMatchObject({
        status: 'failed',
        response_code: 500,
        response_body: 'nope',
      });
      expect((await call('DELETE', `/${id}`)).statusCode).toBe(204);
      answers.delete(at);
    });

    it('refuses event types outside the subscription catalog and malformed bodies', async () => {
      const at = path();
      const { id } = await subscribe({ url: urlOf(at) });
      for (const event_type of ['payment.received', 'customer.created', 'nope', 'order.*']) {
        expectError(await call('POST', `/${id}/test`, { event_type }), 400, 'invalid_events');
      }
      expectError(await call('POST', `/${id}/test`, {}), 400, 'INVALID_REQUEST');
      expectError(await call('POST', `/${id}/test`, { event: 'order.created' }), 400, 'INVALID_REQUEST');
      expect(receivedAt(at)).toHaveLength(0);
    });

    it('answers 404 to another tenant and sends nothing', async () => {
      const at = path();
      const { id } = await subscribe({ url: urlOf(at) });
      expectError(
        await asOther('POST', `/${id}/test`, { event_type: 'order.created' }),
        404,
        'webhook_not_found',
      );
      expectError(
        await call('POST', `/${UNKNOWN_ID}/test`, { event_type: 'order.created' }),
        404,
        'webhook_not_found',
      );
      expect(receivedAt(at)).toHaveLength(0);
    });
  });

  describe('deliveries', () => {
    it('lists deliveries newest first in the subscription-interface list form', async () => {
      const at = path('listed');
      const { id } = await subscribe({ url: urlOf(at), events: ['order.created', 'payment.processed'] });
      const events = [...(await deliver(2, 'order.created')), ...(await deliver(1, 'payment.processed'))];
      // Another tenant's events and unsubscribed types make no delivery.
      await deliver(1, 'order.created', context.otherTenantId);
      await deliver(1, 'order.completed');
      const body = await deliveriesOf(id);
      expect(body.meta).toEqual({
        request_id: expect.any(String),
        timestamp: expect.stringMatching(ISO),
        pagination: { limit: 50, next_cursor: null },
      });
      expect(body.data.map((row) => row.event_id)).toEqual(events.map((event) => event.id).reverse());
      expect(body.data.map((row) => row.event_type)).toEqual([
        'payment.processed',
        'order.created',
        'order.created',
      ]);
      for (const row of body.data) {
        expect(row).toEqual({
          id: expect.any(String),
          event_id: expect.any(String),
          event_type: expect.any(String),
          status: 'success',
          response_code: 200,
          response_time_ms: expect.any(Number),
          delivered_at: expect.stringMatching(ISO),
          next_retry_at: null,
        });
      }
      const sent = receivedAt(at).map((request) => request.headers['x-service-delivery']);
      expect([...sent].reverse()).toEqual(body.data.map((row) => row.id));
    });

    it('shows a failure with its next retry a minute later, and a final 4xx without one', async () => {
      const retried = path('retried');
      const refused = path('refused');
      answers.set(retried, { status: 503 });
      answers.set(refused, { status: 410 });
      const first = await subscribe({ url: urlOf(retried) });
      const second = await subscribe({ url: urlOf(refused) });
      await deliver(1);
      const [again] = (await deliveriesOf(first.id)).data;
      expect(again).toMatchObject({ status: 'failed', response_code: 503, delivered_at: null });
      expect(Date.parse(again!.next_retry_at!) - context.cloud.clock.now().getTime()).toBe(60_000);
      const [final] = (await deliveriesOf(second.id)).data;
      expect(final).toMatchObject({
        status: 'failed',
        response_code: 410,
        delivered_at: null,
        next_retry_at: null,
      });
      for (const { id } of [first, second]) expect((await call('DELETE', `/${id}`)).statusCode).toBe(204);
      answers.delete(retried);
      answers.delete(refused);
    });

    it('pages by following next_cursor', async () => {
      const { id } = await subscribe();
      const events = await deliver(5);
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await deliveriesOf(id, cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`);
        expect(page.meta.pagination.limit).toBe(2);
        seen.push(...page.data.map((row) => row.event_id));
        cursor = page.meta.pagination.next_cursor;
        pages++;
      } while (cursor !== null && pages < 10);
      expect(pages).toBe(3);
      expect(seen).toEqual(events.map((event) => event.id).reverse());
      expectError(await call('GET', `/${id}/deliveries?status=failed`), 400, 'INVALID_REQUEST');
    });

    it('answers 404 to another tenant and for an unknown id', async () => {
      const { id } = await subscribe();
      await deliver(1);
      expectError(await asOther('GET', `/${id}/deliveries`), 404, 'webhook_not_found');
      expectError(await call('GET', `/${UNKNOWN_ID}/deliveries`), 404, 'webhook_not_found');
      // The admin interface's delivery routes do not reach a subscription's deliveries.
      const [row] = (await deliveriesOf(id)).data;
      const adminDetail = await context.cloud.app.inject({
        method: 'GET',
        url: `/api/v1/webhooks/deliveries/${row!.id}`,
        headers: bearer(context.adminToken),
      });
      expect(adminDetail.statusCode).toBe(404);
    });
  });

  describe('rotate-secret', () => {
    it('answers the new secret in the envelope; the other tenant gets 404 and the secret stays', async () => {
      const at = path('rotated');
      const { id } = await subscribe({ url: urlOf(at) });
      expectError(await asOther('POST', `/${id}/rotate-secret`), 404, 'webhook_not_found');
      const response = await call('POST', `/${id}/rotate-secret`);
      expect(response.statusCode, response.body).toBe(200);
      const rotated = response.json().data;
      expect(rotated).toMatchObject({
        id,
        new_secret: expect.any(String),
        rotated_at: expect.stringMatching(ISO),
      });
      await deliver(1);
      const [received] = receivedAt(at);
      const header = String(received!.headers['x-service-signature']);
      const [stamp, ...v1] = header.split(',');
      // Both secrets sign until the grace ends: a receiver holding either accepts the delivery.
      expect(verifyFormA(`${stamp},${v1[0]}`, received!.body, rotated.new_secret)).toBe(true);
      expect(verifyFormA(`${stamp},${v1[1]}`, received!.body, SECRET)).toBe(true);
    });
  });

  describe('enable', () => {
    it('answers 409 for an active subscription and 404 to another tenant', async () => {
      const { id } = await subscribe();
      expectError(await call('POST', `/${id}/enable`, {}), 409, 'webhook_not_disabled');
      expectError(await asOther('POST', `/${id}/enable`, {}), 404, 'webhook_not_found');
    });
  });
});
