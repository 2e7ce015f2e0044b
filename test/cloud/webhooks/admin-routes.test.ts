import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLLOUT_EVENTS } from '../../../shared/events.ts';
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

const BASE = '/api/v1/webhooks';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The admin interface's event catalog ("the service" stands for the reservation category). */
const SPEC_ADMIN_CATALOG = [
  ['order', ['order.created', 'order.updated', 'order.completed', 'order.cancelled']],
  ['payment', ['payment.received', 'payment.failed', 'payment.refunded']],
  ['inventory', ['inventory.low_stock', 'inventory.out_of_stock', 'inventory.restocked']],
  ['customer', ['customer.created', 'customer.updated']],
  [
    'reservation',
    ['reservation.created', 'reservation.confirmed', 'reservation.cancelled', 'reservation.no_show'],
  ],
  ['employee', ['employee.clocked_in', 'employee.clocked_out']],
  ['loyalty', ['loyalty.points_earned', 'loyalty.points_redeemed', 'loyalty.tier_changed']],
  // Beyond the spec's table: the fleet's software rollouts.
  ['rollout', ROLLOUT_EVENTS],
] as const;

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';
type Json = Record<string, unknown>;

interface Delivery {
  id: string;
  webhook_id: string;
  event: string;
  event_id: string;
  status: string;
  response_code: number | null;
  error: string | null;
  latency_ms: number | null;
  attempt: number;
  payload_size_bytes: number;
  next_retry: string | null;
  delivered_at: string | null;
  created_at: string;
  original_delivery_id: string | null;
}

interface LogLine {
  timestamp: string;
  level: string;
  message: string;
  delivery_id: string | null;
  event: string | null;
}

const formB = (secret: string, timestamp: string, payload: string) =>
  `sha256=${createHmac('sha256', secret).update(`${timestamp}.${payload}`).digest('hex')}`;

/**
 * The form B signatures a receiver finds: X-Service-Signature, then X-Service-Signature-Previous
 * while a rotated-out secret is still valid.
 */
function signaturesOf(headers: Record<string, unknown>) {
  const previous = headers['x-service-signature-previous'];
  const current = String(headers['x-service-signature']);
  return previous === undefined ? [current] : [current, String(previous)];
}

/** A loopback port nothing listens on. */
async function closedPort() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * The test clock stands still, so the gateway's per-tier allowance never refills: the enterprise
 * tier's burst leaves room for every request a suite makes.
 */
async function roomyGateway(context: WebhookTestContext) {
  await context.cloud.services.tenancy.updateTenant(context.tenantId, { tier: 'enterprise' });
  await context.cloud.services.tenancy.updateTenant(context.otherTenantId, { tier: 'enterprise' });
}

function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body).toEqual({
    error: { code, message: expect.any(String), details: expect.any(Array) },
    meta: { request_id: expect.any(String) },
  });
  expect(body.error.message.length).toBeGreaterThan(0);
  for (const detail of body.error.details)
    expect(detail).toEqual({ field: expect.any(String), message: expect.any(String) });
  return body.error as { code: string; message: string; details: Array<{ field: string; message: string }> };
}

/** One cloud with its two tenants and a receiver whose answer is chosen per path. */
async function openHarness(
  backend: 'sqlite' | 'pg',
  webhooks: Parameters<typeof createWebhookCloud>[1] = {},
) {
  // Plenty of operations: the limit itself has a test of its own, on a cloud of its own.
  const context = await createWebhookCloud(backend, { operationsPerMinute: 100_000, ...webhooks });
  await roomyGateway(context);
  /** What the receiver answers on a path; 200 `ok` for any path not listed. */
  const answers = new Map<string, Answer>();
  const receiver = await createReceiver(
    (request) => answers.get(request.path) ?? { status: 200, body: 'ok' },
  );
  let seq = 0;

  function call(method: Method, url: string, payload?: unknown, token: string | null = context.adminToken) {
    const options: InjectOptions = { method, url: `${BASE}${url}`, headers: token ? bearer(token) : {} };
    if (payload !== undefined) options.payload = payload as InjectOptions['payload'];
    return context.cloud.app.inject(options);
  }

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
      deliveries: Delivery[];
      pagination: { total: number; page: number; limit: number };
    };
  }

  async function logsOf(id: string, query = '') {
    const response = await call('GET', `/${id}/logs${query}`);
    expect(response.statusCode, response.body).toBe(200);
    return (response.json() as { logs: LogLine[] }).logs;
  }

  const signIn = async (email: string) =>
    (await loginTokens(context.cloud.app, { email, password: 'correct horse battery' })).access_token;

  async function tokenWith(roles: string[], tenantId = context.tenantId) {
    const email = `user-${++seq}@webhooks.test`;
    await context.cloud.services.tenancy.addUser(tenantId, {
      email,
      password: 'correct horse battery',
      roles,
    });
    return signIn(email);
  }

  return {
    context,
    answers,
    call,
    deliver,
    deliveriesOf,
    logsOf,
    tokenWith,
    asOther: (method: Method, url: string, payload?: unknown) =>
      call(method, url, payload, context.otherAdminToken),
    create: (body: Json, token = context.adminToken) => createAdminWebhook(context, body, token),
    /** A fresh receiver path, so every webhook has a URL of its own. */
    path: (name = 'hook') => `/${name}-${++seq}`,
    urlOf: (at: string) => receiver.url(at),
    receivedAt: (at: string) => receiver.received.filter((request) => request.path === at),
    /**
     * Moves the clock forward (never back: the gateway's rate limiter keeps time by it too) and
     * signs the admins in again, since access tokens last an hour.
     */
    async advance(ms: number) {
      context.cloud.clock.advance(ms);
      context.adminToken = await signIn('ops@acme.test');
      context.otherAdminToken = await signIn('ops@globex.test');
    },
    async close() {
      await context.cloud.close();
      await receiver.close();
    },
  };
}

type Harness = Awaited<ReturnType<typeof openHarness>>;

describe.each(backends)('admin webhook interface on %s', (backend) => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(backend);
  });
  afterAll(() => h.close());

  describe('access', () => {
    it('answers 401 without a token or with a bad one, on every route', async () => {
      const routes: Array<[Method, string]> = [
        ['GET', ''],
        ['POST', ''],
        ['GET', '/events'],
        ['POST', '/verify-signature'],
        ['GET', '/some-id'],
        ['PUT', '/some-id'],
        ['DELETE', '/some-id'],
        ['POST', '/some-id/rotate-secret'],
        ['POST', '/some-id/test'],
        ['GET', '/some-id/deliveries'],
        ['GET', '/some-id/logs'],
        ['GET', '/some-id/stats'],
        ['GET', '/deliveries/some-id'],
        ['POST', '/deliveries/some-id/retry'],
      ];
      for (const [method, url] of routes) {
        const anonymous = await h.call(
          method,
          url,
          method === 'GET' || method === 'DELETE' ? undefined : {},
          null,
        );
        expectError(anonymous, 401, anonymous.json().error.code);
        const forged = await h.call(method, url, undefined, 'not-a-jwt');
        expect(forged.statusCode, `${method} ${url}`).toBe(401);
      }
    });

    it('admits platform_admin, system_admin and super_admin', async () => {
      for (const role of ['platform_admin', 'system_admin', 'super_admin']) {
        const token = await h.tokenWith([role]);
        const created = await h.call('POST', '', { url: h.urlOf(h.path(role)) }, token);
        expect(created.statusCode, `${role}: ${created.body}`).toBe(201);
        const id = created.json().id;
        expect((await h.call('GET', '', undefined, token)).statusCode).toBe(200);
        expect((await h.call('GET', `/${id}`, undefined, token)).statusCode).toBe(200);
        expect((await h.call('GET', '/events', undefined, token)).statusCode).toBe(200);
        expect((await h.call('DELETE', `/${id}`, undefined, token)).statusCode).toBe(204);
      }
    });

    it('refuses other roles with 403, tenant_admin and manager included', async () => {
      const { id } = await h.create({ url: h.urlOf(h.path()) });
      for (const roles of [
        ['tenant_admin'],
        ['manager'],
        ['restaurant_manager'],
        ['billing_admin'],
        ['staff'],
      ]) {
        const token = await h.tokenWith(roles);
        const attempts: Array<[Method, string, unknown?]> = [
          ['GET', ''],
          ['POST', '', { url: h.urlOf(h.path()) }],
          ['GET', '/events'],
          [
            'POST',
            '/verify-signature',
            { payload: '{}', signature: 'sha256=00', timestamp: '1', secret: 's' },
          ],
          ['GET', `/${id}`],
          ['PUT', `/${id}`, { description: 'taken over' }],
          ['DELETE', `/${id}`],
          ['POST', `/${id}/rotate-secret`],
          ['POST', `/${id}/test`, { event: 'order.created' }],
          ['GET', `/${id}/deliveries`],
          ['GET', `/${id}/logs`],
          ['GET', `/${id}/stats`],
        ];
        for (const [method, url, payload] of attempts) {
          expectError(await h.call(method, url, payload, token), 403, 'FORBIDDEN');
        }
      }
      const still = await h.call('GET', `/${id}`);
      expect(still.json()).toMatchObject({ id, description: '' });
    });
  });

  describe('create, read and list', () => {
    it('creates with a generated whsec_ secret and a signing key, shown only in the 201', async () => {
      const url = h.urlOf(h.path());
      const response = await h.call('POST', '', {
        url,
        description: 'ERP sync',
        events: ['order.*', 'payment.received'],
        metadata: { team: 'finance', priority: 2 },
      });
      expect(response.statusCode, response.body).toBe(201);
      const created = response.json();
      expect(created).toMatchObject({
        id: expect.any(String),
        url,
        description: 'ERP sync',
        status: 'active',
        events: ['order.*', 'payment.received'],
        headers: {},
        metadata: { team: 'finance', priority: 2 },
        settings: {
          timeout_seconds: 30,
          retry_policy: { max_attempts: 5, backoff: 'exponential' },
          batch_events: false,
        },
        secret: expect.stringMatching(/^whsec_.{20,}$/),
        signing_key: expect.any(String),
      });
      expect(created.created_at).toMatch(ISO);
      expect(created.updated_at).toMatch(ISO);
      expect(created.secret_last4).toBeUndefined();

      const detail = await h.call('GET', `/${created.id}`);
      expect(detail.statusCode).toBe(200);
      expect(detail.json()).toMatchObject({ id: created.id, url, secret_last4: created.secret.slice(-4) });
      expect(detail.json()).not.toHaveProperty('secret');
      expect(detail.json()).not.toHaveProperty('signing_key');
      expect(detail.body).not.toContain(created.secret);
      expect(detail.body).not.toContain(created.signing_key);

      const list = await h.call('GET', '');
      const item = list.json().webhooks.find((hook: { id: string }) => hook.id === created.id);
      expect(item).toMatchObject({ id: created.id, secret_last4: created.secret.slice(-4) });
      expect(item).not.toHaveProperty('secret');
      expect(item).not.toHaveProperty('signing_key');
      expect(list.body).not.toContain(created.secret);
      expect(list.body).not.toContain(created.signing_key);
    });

    it('echoes a given secret, generates distinct ones otherwise, and listens to every event by default', async () => {
      const secret = 'my-own-secret-0123456789';
      const given = await h.create({ url: h.urlOf(h.path()), secret });
      expect(given.secret).toBe(secret);
      const first = await h.create({ url: h.urlOf(h.path()) });
      const second = await h.create({ url: h.urlOf(h.path()) });
      expect(first.secret).not.toBe(second.secret);
      expect(first.signing_key).not.toBe(second.signing_key);
      expect((await h.call('GET', `/${first.id}`)).json().events).toEqual(['*']);
      expect((await h.call('GET', `/${given.id}`)).json().secret_last4).toBe('6789');
    });

    it('refuses unknown fields and a short secret as INVALID_REQUEST', async () => {
      const unknown = expectError(
        await h.call('POST', '', { url: h.urlOf(h.path()), tenant_id: h.context.otherTenantId }),
        400,
        'INVALID_REQUEST',
      );
      expect(unknown.details).toContainEqual({ field: 'body.tenant_id', message: expect.any(String) });
      expectError(
        await h.call('POST', '', { url: h.urlOf(h.path()), secret: 'short' }),
        400,
        'INVALID_REQUEST',
      );
      expectError(await h.call('POST', '', { events: ['order.created'] }), 400, 'INVALID_REQUEST');
      expectError(
        await h.call('POST', '', {
          url: h.urlOf(h.path()),
          settings: { timeout_seconds: 10, colour: 'red' },
        }),
        400,
        'INVALID_REQUEST',
      );
    });

    it('sends custom headers but refuses ours and line breaks', async () => {
      for (const headers of [
        { 'X-Service-Signature': 'sha256=forged' },
        { 'content-type': 'text/plain' },
        { Host: 'elsewhere.test' },
        { 'X-Note': 'a\r\nX-Injected: 1' },
      ]) {
        const error = expectError(
          await h.call('POST', '', { url: h.urlOf(h.path()), headers }),
          400,
          'INVALID_REQUEST',
        );
        expect(error.details.map((detail) => detail.field)).toEqual(['body.headers']);
      }
      const at = h.path('headers');
      const { id } = await h.create({
        url: h.urlOf(at),
        events: ['order.created'],
        headers: { 'X-Tenant-Key': 'k-9' },
      });
      expect((await h.call('GET', `/${id}`)).json().headers).toEqual({ 'X-Tenant-Key': 'k-9' });
      await h.deliver(1);
      expect(h.receivedAt(at)[0]!.headers['x-tenant-key']).toBe('k-9');
    });

    it('pages the list with page and limit', async () => {
      for (let i = 0; i < 3; i++) await h.create({ url: h.urlOf(h.path()) }, h.context.otherAdminToken);
      const all = (await h.asOther('GET', '?limit=100')).json();
      expect(all.total).toBeGreaterThanOrEqual(3);
      const second = (await h.asOther('GET', '?limit=1&page=2')).json();
      expect(second.total).toBe(all.total);
      expect(second.webhooks.map((hook: { id: string }) => hook.id)).toEqual([all.webhooks[1].id]);
      expectError(await h.call('GET', '?limit=0'), 400, 'INVALID_REQUEST');
      expectError(await h.call('GET', '?status=active'), 400, 'INVALID_REQUEST');
    });

    it('lists { webhooks, total } of the tenant only, with 24 h stats', async () => {
      const other = await h.create({ url: h.urlOf(h.path('other')) }, h.context.otherAdminToken);
      const mine = await h.create({ url: h.urlOf(h.path()) });
      const subscription = await createSubscription(h.context, {
        url: h.urlOf(h.path('sub')),
        events: ['order.created'],
        secret: 'x'.repeat(20),
      });
      const response = await h.call('GET', '');
      expect(response.statusCode).toBe(200);
      const body = response.json() as { webhooks: Array<Json & { id: string }>; total: number };
      expect(Object.keys(body).sort()).toEqual(['total', 'webhooks']);
      const ids = body.webhooks.map((hook) => hook.id);
      expect(ids).toContain(mine.id);
      expect(ids).not.toContain(other.id);
      // The subscription interface's subscriptions are not the admin interface's webhooks.
      expect(ids).not.toContain(subscription.id);
      expect(body.total).toBe(body.webhooks.length);
      expect(body.webhooks.find((hook) => hook.id === mine.id)).toMatchObject({
        stats: { deliveries_24h: 0, success_rate: 0, avg_latency_ms: 0 },
      });

      const theirs = (await h.asOther('GET', '')).json() as {
        webhooks: Array<{ id: string }>;
        total: number;
      };
      expect(theirs.webhooks.map((hook) => hook.id)).toContain(other.id);
      expect(theirs.webhooks.map((hook) => hook.id)).not.toContain(mine.id);
      expect(theirs.total).toBe(theirs.webhooks.length);
    });

    it('shows full stats in the detail and 24 h stats in the list after successes and failures', async () => {
      const at = h.path('mixed');
      const { id } = await h.create({
        url: h.urlOf(at),
        events: ['order.*'],
        settings: { retry_policy: { max_attempts: 1 } },
      });
      await h.deliver(3);
      h.answers.set(at, { status: 500, body: 'boom' });
      await h.deliver(1, 'order.completed');
      h.answers.delete(at);
      // Another tenant's events never reach this webhook.
      await h.deliver(2, 'order.created', h.context.otherTenantId);
      expect(h.receivedAt(at)).toHaveLength(4);

      const detail = (await h.call('GET', `/${id}`)).json();
      expect(detail.stats).toEqual({
        total_deliveries: 4,
        successful_deliveries: 3,
        failed_deliveries: 1,
        success_rate: 0.75,
        avg_latency_ms: expect.any(Number),
        last_delivery: expect.stringMatching(ISO),
        last_success: expect.stringMatching(ISO),
        last_failure: expect.stringMatching(ISO),
      });
      expect(detail.stats.avg_latency_ms).toBeGreaterThanOrEqual(0);

      const listed = (await h.call('GET', '')).json().webhooks.find((hook: { id: string }) => hook.id === id);
      expect(listed.stats).toEqual({
        deliveries_24h: 4,
        success_rate: 0.75,
        avg_latency_ms: detail.stats.avg_latency_ms,
      });
    });
  });

  describe('update', () => {
    it('changes url, events, description and metadata', async () => {
      const { id } = await h.create({ url: h.urlOf(h.path()), events: ['order.created'] });
      const url = h.urlOf(h.path('moved'));
      const response = await h.call('PUT', `/${id}`, {
        url,
        events: ['payment.*', 'inventory.low_stock'],
        description: 'moved',
        metadata: { v: 2 },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        id,
        url,
        events: ['payment.*', 'inventory.low_stock'],
        description: 'moved',
        metadata: { v: 2 },
        secret_last4: expect.any(String),
      });
      expect(response.json()).not.toHaveProperty('secret');
      expect((await h.call('GET', `/${id}`)).json()).toMatchObject({
        url,
        events: ['payment.*', 'inventory.low_stock'],
      });
      // Its own URL again is not a conflict with itself.
      expect((await h.call('PUT', `/${id}`, { url })).statusCode).toBe(200);
    });

    it('merges settings field by field', async () => {
      const { id } = await h.create({
        url: h.urlOf(h.path()),
        settings: {
          timeout_seconds: 10,
          retry_policy: { max_attempts: 3, backoff: 'linear' },
          batch_events: true,
        },
      });
      const timeout = await h.call('PUT', `/${id}`, { settings: { timeout_seconds: 20 } });
      expect(timeout.statusCode, timeout.body).toBe(200);
      expect(timeout.json().settings).toMatchObject({
        timeout_seconds: 20,
        retry_policy: { max_attempts: 3, backoff: 'linear' },
        batch_events: true,
      });
      const attempts = await h.call('PUT', `/${id}`, { settings: { retry_policy: { max_attempts: 7 } } });
      expect(attempts.json().settings).toMatchObject({
        timeout_seconds: 20,
        retry_policy: { max_attempts: 7, backoff: 'linear' },
        batch_events: true,
      });
      expect((await h.call('GET', `/${id}`)).json().settings).toEqual(attempts.json().settings);
      // Changing the URL leaves the settings alone.
      const moved = await h.call('PUT', `/${id}`, { url: h.urlOf(h.path()) });
      expect(moved.json().settings).toEqual(attempts.json().settings);
    });

    it('bounds timeout_seconds to 1..60 and max_attempts to 1..10', async () => {
      const { id } = await h.create({ url: h.urlOf(h.path()) });
      for (const timeout_seconds of [0, 61, -1, 1.5]) {
        const refused = expectError(
          await h.call('PUT', `/${id}`, { settings: { timeout_seconds } }),
          400,
          'INVALID_REQUEST',
        );
        expect(refused.details.map((detail) => detail.field)).toContain('body.settings.timeout_seconds');
      }
      for (const max_attempts of [0, 11]) {
        const refused = expectError(
          await h.call('PUT', `/${id}`, { settings: { retry_policy: { max_attempts } } }),
          400,
          'INVALID_REQUEST',
        );
        expect(refused.details.map((detail) => detail.field)).toContain(
          'body.settings.retry_policy.max_attempts',
        );
      }
      expectError(
        await h.call('POST', '', { url: h.urlOf(h.path()), settings: { timeout_seconds: 61 } }),
        400,
        'INVALID_REQUEST',
      );
      for (const [timeout_seconds, max_attempts] of [
        [1, 1],
        [60, 10],
      ]) {
        const accepted = await h.call('PUT', `/${id}`, {
          settings: { timeout_seconds, retry_policy: { max_attempts } },
        });
        expect(accepted.statusCode, accepted.body).toBe(200);
        expect(accepted.json().settings).toMatchObject({ timeout_seconds, retry_policy: { max_attempts } });
      }
    });

    it('refuses an empty change, a secret and unknown fields', async () => {
      const { id } = await h.create({ url: h.urlOf(h.path()) });
      expectError(await h.call('PUT', `/${id}`, {}), 400, 'INVALID_REQUEST');
      expectError(await h.call('PUT', `/${id}`, { secret: 'y'.repeat(32) }), 400, 'INVALID_REQUEST');
      expectError(await h.call('PUT', `/${id}`, { status: 'disabled' }), 400, 'INVALID_REQUEST');
    });

    it('delivers to the new URL and only the new events after a change', async () => {
      const before = h.path('before');
      const after = h.path('after');
      const { id } = await h.create({ url: h.urlOf(before), events: ['order.created'] });
      await h.deliver(1);
      expect(h.receivedAt(before)).toHaveLength(1);
      expect(
        (await h.call('PUT', `/${id}`, { url: h.urlOf(after), events: ['order.completed'] })).statusCode,
      ).toBe(200);
      await h.deliver(1, 'order.created');
      await h.deliver(1, 'order.completed');
      expect(h.receivedAt(before)).toHaveLength(1);
      expect(h.receivedAt(after).map((request) => JSON.parse(request.body).event)).toEqual([
        'order.completed',
      ]);
    });
  });

  describe('delete', () => {
    it('answers 204 with no body, then 404 everywhere; the webhook receives nothing more', async () => {
      const at = h.path();
      const { id } = await h.create({ url: h.urlOf(at), events: ['order.created'] });
      const deleted = await h.call('DELETE', `/${id}`);
      expect(deleted.statusCode).toBe(204);
      expect(deleted.body).toBe('');
      for (const [method, url, payload] of [
        ['GET', `/${id}`],
        ['PUT', `/${id}`, { description: 'back' }],
        ['DELETE', `/${id}`],
        ['POST', `/${id}/rotate-secret`],
        ['POST', `/${id}/test`, { event: 'order.created' }],
        ['GET', `/${id}/deliveries`],
        ['GET', `/${id}/logs`],
        ['GET', `/${id}/stats`],
      ] as Array<[Method, string, unknown?]>) {
        expectError(await h.call(method, url, payload), 404, 'webhook_not_found');
      }
      expect((await h.call('GET', '')).json().webhooks.map((hook: { id: string }) => hook.id)).not.toContain(
        id,
      );
      await h.deliver(1);
      expect(h.receivedAt(at)).toHaveLength(0);
    });

    it('drops what a deleted webhook still had to send', async () => {
      const at = h.path('pending');
      const { id } = await h.create({ url: h.urlOf(at), events: ['order.created'] });
      await appendEvents(h.context.cloud, [orderEvent(h.context.tenantId, h.context.locationId)]);
      expect((await h.call('DELETE', `/${id}`)).statusCode).toBe(204);
      await h.context.cloud.services.webhooks.worker.drain();
      expect(h.receivedAt(at)).toHaveLength(0);
    });
  });

  describe('rotate-secret', () => {
    it('answers { id, new_secret, old_secret_valid_until, rotated_at } with 24 h of grace', async () => {
      const created = await h.create({ url: h.urlOf(h.path()) });
      const response = await h.call('POST', `/${created.id}/rotate-secret`);
      expect(response.statusCode, response.body).toBe(200);
      const rotated = response.json();
      expect(Object.keys(rotated).sort()).toEqual([
        'id',
        'new_secret',
        'old_secret_valid_until',
        'rotated_at',
      ]);
      expect(rotated.id).toBe(created.id);
      expect(rotated.new_secret).toMatch(/^whsec_/);
      expect(rotated.new_secret).not.toBe(created.secret);
      expect(rotated.rotated_at).toMatch(ISO);
      expect(rotated.old_secret_valid_until).toMatch(ISO);
      expect(Date.parse(rotated.old_secret_valid_until) - Date.parse(rotated.rotated_at)).toBe(DAY_MS);
      expect(Math.abs(Date.parse(rotated.rotated_at) - h.context.cloud.clock.now().getTime())).toBeLessThan(
        1000,
      );
      expect((await h.call('GET', `/${created.id}`)).json().secret_last4).toBe(rotated.new_secret.slice(-4));
    });

    it('signs with the new secret, and the old one in its own header, during the grace period', async () => {
      const at = h.path('rotating');
      const created = await h.create({ url: h.urlOf(at), events: ['order.created'] });
      const rotated = (await h.call('POST', `/${created.id}/rotate-secret`)).json();
      await h.deliver(1);
      const during = h.receivedAt(at)[0]!;
      const timestamp = String(during.headers['x-service-timestamp']);
      expect(signaturesOf(during.headers)).toEqual([
        formB(rotated.new_secret, timestamp, during.body),
        formB(created.secret, timestamp, during.body),
      ]);
    });
  });

  describe('errors', () => {
    it('answers invalid_url for what is not an http(s) URL', async () => {
      const { id } = await h.create({ url: h.urlOf(h.path()) });
      const bad = [
        'not a url',
        '',
        '/relative/path',
        'ftp://example.com/hook',
        'javascript:alert(1)',
        'https://user:pass@example.com/hook',
        'https://user@example.com/hook',
        `https://example.com/${'a'.repeat(2100)}`,
      ];
      for (const url of bad) {
        const error = expectError(await h.call('POST', '', { url }), 400, 'invalid_url');
        expect(error.details).toContainEqual({ field: 'body.url', message: expect.any(String) });
        expectError(await h.call('PUT', `/${id}`, { url }), 400, 'invalid_url');
      }
      // 2048 characters is the longest URL accepted.
      const longest = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
      expect(longest).toHaveLength(2048);
      expect((await h.call('POST', '', { url: longest })).statusCode).toBe(201);
    });

    it('answers invalid_events for another interface’s names, bad patterns and unknown names', async () => {
      const { id } = await h.create({ url: h.urlOf(h.path()) });
      const bad = [
        ['payment.processed'],
        ['ord*'],
        ['*.created'],
        ['order.*.x'],
        ['unknown.event'],
        ['menu.*'],
        [],
      ];
      for (const events of bad) {
        const error = expectError(
          await h.call('POST', '', { url: h.urlOf(h.path()), events }),
          400,
          'invalid_events',
        );
        if (events.length > 0)
          expect(error.details.map((detail) => detail.message).join()).toContain(events[0]);
        expectError(await h.call('PUT', `/${id}`, { events }), 400, 'invalid_events');
      }
      const mixed = expectError(
        await h.call('POST', '', {
          url: h.urlOf(h.path()),
          events: ['order.created', 'payment.processed', 'nope'],
        }),
        400,
        'invalid_events',
      );
      expect(mixed.details).toHaveLength(2);
      for (const events of [['*'], ['order.*'], ['payment.received', 'loyalty.tier_changed']]) {
        expect((await h.call('POST', '', { url: h.urlOf(h.path()), events })).statusCode).toBe(201);
      }
    });

    it('answers webhook_not_found for an unknown id and for another tenant’s webhook, changing nothing', async () => {
      const mine = await h.create({ url: h.urlOf(h.path()), description: 'mine' });
      await h.call('POST', `/${mine.id}/test`, { event: 'order.created' });
      const before = (await h.call('GET', `/${mine.id}`)).json();
      const attempts: Array<[Method, string, unknown?]> = [
        ['GET', ''],
        ['PUT', '', { description: 'taken over', url: h.urlOf(h.path()) }],
        ['PUT', '', { settings: { timeout_seconds: 5 } }],
        ['POST', '/rotate-secret'],
        ['POST', '/test', { event: 'order.created' }],
        ['GET', '/deliveries'],
        ['GET', '/logs'],
        ['GET', '/stats'],
        ['POST', '/enable', {}],
        ['DELETE', ''],
      ];
      for (const [method, suffix, payload] of attempts) {
        expectError(await h.asOther(method, `/${mine.id}${suffix}`, payload), 404, 'webhook_not_found');
        expectError(
          await h.call(method, `/0192f3a4-5b6c-7d8e-9f01-23456789abcd${suffix}`, payload),
          404,
          'webhook_not_found',
        );
      }
      const after = (await h.call('GET', `/${mine.id}`)).json();
      expect(after).toEqual(before);
    });

    it('answers webhook_not_disabled when enabling an active webhook', async () => {
      const { id } = await h.create({ url: h.urlOf(h.path()) });
      expectError(await h.call('POST', `/${id}/enable`, {}), 409, 'webhook_not_disabled');
      expectError(await h.call('POST', `/${id}/enable`, { replay: 'yes' }), 400, 'INVALID_REQUEST');
    });

    it('answers url_already_exists for a URL the tenant has, and allows it elsewhere and after a delete', async () => {
      const url = h.urlOf(h.path('dup'));
      const first = await h.create({ url });
      const error = expectError(await h.call('POST', '', { url }), 409, 'url_already_exists');
      expect(error.details).toContainEqual({ field: 'body.url', message: expect.any(String) });
      // The same URL written differently is the same URL.
      expectError(
        await h.call('POST', '', { url: url.replace('http://', 'HTTP://') }),
        409,
        'url_already_exists',
      );
      const second = await h.create({ url: h.urlOf(h.path()) });
      expectError(await h.call('PUT', `/${second.id}`, { url }), 409, 'url_already_exists');
      expect((await h.call('GET', `/${second.id}`)).json().url).not.toBe(url);

      expect((await h.asOther('POST', '', { url })).statusCode).toBe(201);
      const subscription = await createSubscription(h.context, {
        url,
        events: ['order.created'],
        secret: 'z'.repeat(20),
      });
      expect(subscription.id).toBeDefined();

      expect((await h.call('DELETE', `/${first.id}`)).statusCode).toBe(204);
      const again = await h.call('POST', '', { url });
      expect(again.statusCode, again.body).toBe(201);
      expect(again.json().id).not.toBe(first.id);
    });
  });

  describe('events catalog', () => {
    it('is the admin catalog of the spec, then the fleet’s rollouts', async () => {
      const response = await h.call('GET', '/events');
      expect(response.statusCode).toBe(200);
      const body = response.json() as {
        events: Array<{
          category: string;
          events: Array<{ name: string; description: string; payload_example?: Json }>;
        }>;
      };
      expect(Object.keys(body)).toEqual(['events']);
      expect(
        body.events.map((category) => [category.category, category.events.map((event) => event.name)]),
      ).toEqual(SPEC_ADMIN_CATALOG.map(([category, names]) => [category, [...names]]));
      for (const event of body.events.flatMap((category) => category.events)) {
        expect(
          Object.keys(event).every((key) => ['name', 'description', 'payload_example'].includes(key)),
        ).toBe(true);
        expect(event.description.length).toBeGreaterThan(0);
        if (event.payload_example !== undefined) expect(typeof event.payload_example).toBe('object');
      }
      const names = body.events.flatMap((category) => category.events.map((event) => event.name));
      expect(names).not.toContain('payment.processed');
    });
  });

  describe('deliveries', () => {
    it('pages by 50 by default, newest first, in the delivery record list form', async () => {
      const at = h.path('paged');
      const { id } = await h.create({ url: h.urlOf(at), events: ['order.created'] });
      const events = await h.deliver(55);
      const first = await h.deliveriesOf(id);
      expect(first.pagination).toEqual({ total: 55, page: 1, limit: 50 });
      expect(first.deliveries).toHaveLength(50);
      const second = await h.deliveriesOf(id, '?page=2');
      expect(second.pagination).toEqual({ total: 55, page: 2, limit: 50 });
      expect(second.deliveries).toHaveLength(5);
      const seen = [...first.deliveries, ...second.deliveries].map((row) => row.event_id);
      expect(new Set(seen).size).toBe(55);
      // Newest first: the last event appended is the first delivery listed.
      expect(seen).toEqual(events.map((event) => event.id).reverse());
      expect((await h.deliveriesOf(id, '?page=3')).deliveries).toEqual([]);
      const small = await h.deliveriesOf(id, '?limit=10&page=2');
      expect(small.pagination).toEqual({ total: 55, page: 2, limit: 10 });
      expect(small.deliveries.map((row) => row.event_id)).toEqual(seen.slice(10, 20));

      const row = first.deliveries[0]!;
      expect(row).toEqual({
        id: expect.any(String),
        webhook_id: id,
        event: 'order.created',
        event_id: events.at(-1)!.id,
        status: 'success',
        response_code: 200,
        error: null,
        latency_ms: expect.any(Number),
        attempt: 1,
        payload_size_bytes: expect.any(Number),
        next_retry: null,
        delivered_at: expect.stringMatching(ISO),
        created_at: expect.stringMatching(ISO),
        original_delivery_id: null,
      });
      const body = h.receivedAt(at).find((request) => request.headers['x-service-delivery'] === row.id)!.body;
      expect(row.payload_size_bytes).toBe(Buffer.byteLength(body));
    });

    it('shows a scheduled retry as next_retry on a failed delivery', async () => {
      const at = h.path('retrying');
      h.answers.set(at, { status: 503, body: 'later' });
      const { id } = await h.create({ url: h.urlOf(at), events: ['order.created'] });
      await h.deliver(1);
      const [row] = (await h.deliveriesOf(id)).deliveries;
      expect(row).toMatchObject({
        status: 'failed',
        response_code: 503,
        error: expect.any(String),
        attempt: 1,
      });
      expect(Date.parse(row!.next_retry!) - h.context.cloud.clock.now().getTime()).toBe(60_000);
      expect((await h.call('DELETE', `/${id}`)).statusCode).toBe(204);
      h.answers.delete(at);
    });

    it('shows one delivery in the detail form: request, response and timing', async () => {
      const at = h.path('detail');
      const { id } = await h.create({
        url: h.urlOf(at),
        events: ['order.created'],
        headers: { 'X-Api-Key': 'k-123' },
      });
      const [event] = await h.deliver(1);
      const [row] = (await h.deliveriesOf(id)).deliveries;
      const received = h.receivedAt(at)[0]!;
      const response = await h.call('GET', `/deliveries/${row!.id}`);
      expect(response.statusCode, response.body).toBe(200);
      const detail = response.json();
      expect(detail).toMatchObject({
        id: row!.id,
        webhook_id: id,
        event: 'order.created',
        status: 'success',
        request: { url: h.urlOf(at), method: 'POST', body: received.body },
        response: { status_code: 200, body: 'ok' },
        attempt: 1,
        max_attempts: 5,
      });
      expect(JSON.parse(detail.request.body)).toMatchObject({ id: event!.id, event: 'order.created' });
      expect(detail.request.headers).toMatchObject({
        'content-type': 'application/json',
        'x-service-event': 'order.created',
        'x-service-delivery': row!.id,
        'x-service-signature': received.headers['x-service-signature'],
        'x-service-timestamp': received.headers['x-service-timestamp'],
        'X-Api-Key': 'k-123',
      });
      expect(detail.response.headers['content-type']).toBe('text/plain');
      expect(detail.timing).toEqual({
        sent_at: expect.stringMatching(ISO),
        response_at: expect.stringMatching(ISO),
        latency_ms: expect.any(Number),
      });
      expect(Date.parse(detail.timing.response_at)).toBeGreaterThanOrEqual(Date.parse(detail.timing.sent_at));
    });

    it('shows a failed delivery with the endpoint’s answer, or none when it never answered', async () => {
      const at = h.path('failing');
      h.answers.set(at, { status: 500, headers: { 'x-trace': 't-1' }, body: 'boom' });
      const { id } = await h.create({
        url: h.urlOf(at),
        events: ['order.created'],
        settings: { retry_policy: { max_attempts: 1 } },
      });
      await h.deliver(1);
      const [row] = (await h.deliveriesOf(id)).deliveries;
      const detail = (await h.call('GET', `/deliveries/${row!.id}`)).json();
      expect(detail).toMatchObject({
        status: 'failed',
        response: { status_code: 500, body: 'boom', headers: { 'x-trace': 't-1' } },
        attempt: 1,
        max_attempts: 1,
      });
      h.answers.delete(at);

      const port = await closedPort();
      const refused = await h.create({
        url: `http://127.0.0.1:${port}/nobody`,
        events: ['order.created'],
        settings: { retry_policy: { max_attempts: 1 } },
      });
      await h.deliver(1);
      const [none] = (await h.deliveriesOf(refused.id)).deliveries;
      expect(none).toMatchObject({ status: 'failed', response_code: null, error: expect.any(String) });
      const unanswered = (await h.call('GET', `/deliveries/${none!.id}`)).json();
      expect(unanswered.response).toBeNull();
      expect(unanswered.timing).toMatchObject({ sent_at: expect.stringMatching(ISO), response_at: null });
      expect(unanswered.request.url).toBe(`http://127.0.0.1:${port}/nobody`);
    });

    it('keeps a deleted webhook’s deliveries readable with the URL they went to, and not retryable', async () => {
      const at = h.path('deleted');
      h.answers.set(at, { status: 410 });
      const { id } = await h.create({ url: h.urlOf(at), events: ['order.created'] });
      await h.deliver(1);
      const [row] = (await h.deliveriesOf(id)).deliveries;
      expect((await h.call('DELETE', `/${id}`)).statusCode).toBe(204);
      const detail = await h.call('GET', `/deliveries/${row!.id}`);
      expect(detail.statusCode, detail.body).toBe(200);
      expect(detail.json()).toMatchObject({ id: row!.id, status: 'failed', request: { url: h.urlOf(at) } });
      expectError(await h.call('POST', `/deliveries/${row!.id}/retry`), 404, 'delivery_not_found');
      h.answers.delete(at);
    });

    it('answers 404 for an unknown delivery and for another tenant’s', async () => {
      const { id } = await h.create({ url: h.urlOf(h.path()), events: ['order.created'] });
      await h.deliver(1);
      const [row] = (await h.deliveriesOf(id)).deliveries;
      expect((await h.asOther('GET', `/deliveries/${row!.id}`)).statusCode).toBe(404);
      expect((await h.asOther('POST', `/deliveries/${row!.id}/retry`)).statusCode).toBe(404);
      expect((await h.call('GET', '/deliveries/0192f3a4-5b6c-7d8e-9f01-23456789abcd')).statusCode).toBe(404);
      expect(
        (await h.call('POST', '/deliveries/0192f3a4-5b6c-7d8e-9f01-23456789abcd/retry')).statusCode,
      ).toBe(404);
      expectError(await h.asOther('GET', `/deliveries/${row!.id}`), 404, 'delivery_not_found');
    });

    it('retries a failed delivery as a new pending one that succeeds once the receiver recovers', async () => {
      const at = h.path('recovering');
      h.answers.set(at, { status: 500, body: 'down' });
      const { id } = await h.create({
        url: h.urlOf(at),
        events: ['order.created'],
        settings: { retry_policy: { max_attempts: 1 } },
      });
      const [event] = await h.deliver(1);
      const [failed] = (await h.deliveriesOf(id)).deliveries;
      expect(failed!.status).toBe('failed');

      expectError(await h.asOther('POST', `/deliveries/${failed!.id}/retry`), 404, 'delivery_not_found');
      const response = await h.call('POST', `/deliveries/${failed!.id}/retry`);
      expect(response.statusCode, response.body).toBe(202);
      const retried = response.json();
      expect(retried).toEqual({
        delivery_id: expect.any(String),
        original_delivery_id: failed!.id,
        status: 'pending',
        scheduled_at: expect.stringMatching(ISO),
      });
      expect(retried.delivery_id).not.toBe(failed!.id);

      h.answers.delete(at);
      await h.context.cloud.services.webhooks.worker.drain();
      const detail = (await h.call('GET', `/deliveries/${retried.delivery_id}`)).json();
      expect(detail).toMatchObject({ status: 'success', response: { status_code: 200 } });
      const listed = (await h.deliveriesOf(id)).deliveries;
      expect(listed).toHaveLength(2);
      expect(listed.find((row) => row.id === retried.delivery_id)).toMatchObject({
        status: 'success',
        event_id: event!.id,
        original_delivery_id: failed!.id,
      });
      // The same event, byte for byte, under a new delivery id.
      const [first, second] = h.receivedAt(at);
      expect(second!.body).toBe(first!.body);
      expect(second!.headers['x-service-delivery']).toBe(retried.delivery_id);
      expect((await h.call('GET', `/deliveries/${failed!.id}`)).json().status).toBe('failed');

      const again = expectError(
        await h.call('POST', `/deliveries/${retried.delivery_id}/retry`),
        409,
        'delivery_not_retryable',
      );
      expect(again.message).toContain('success');
    });

    it('refuses to retry a successful delivery with 409', async () => {
      const { id } = await h.create({ url: h.urlOf(h.path()), events: ['order.created'] });
      await h.deliver(1);
      const [row] = (await h.deliveriesOf(id)).deliveries;
      expectError(await h.call('POST', `/deliveries/${row!.id}/retry`), 409, 'delivery_not_retryable');
      expect((await h.deliveriesOf(id)).pagination.total).toBe(1);
    });
  });

  describe('test endpoint', () => {
    it('sends a signed sample event now and answers with the endpoint’s response', async () => {
      const at = h.path('tested');
      h.answers.set(at, { status: 202, body: 'accepted by test' });
      const created = await h.create({ url: h.urlOf(at), events: ['order.created'] });
      const response = await h.call('POST', `/${created.id}/test`, { event: 'payment.received' });
      expect(response.statusCode, response.body).toBe(200);
      const result = response.json();
      expect(result).toMatchObject({
        delivery_id: expect.any(String),
        status: 'success',
        response_code: 202,
        response_body: 'accepted by test',
        latency_ms: expect.any(Number),
      });
      const [received] = h.receivedAt(at);
      expect(received!.headers['x-service-delivery']).toBe(result.delivery_id);
      expect(received!.headers['x-service-event']).toBe('payment.received');
      const envelope = JSON.parse(received!.body);
      expect(envelope).toMatchObject({
        event: 'payment.received',
        api_version: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        data: expect.any(Object),
        metadata: { tenant_id: h.context.tenantId },
      });
      const stamp = String(received!.headers['x-service-timestamp']);
      expect(signaturesOf(received!.headers)).toEqual([formB(created.secret, stamp, received!.body)]);
      const detail = (await h.call('GET', `/deliveries/${result.delivery_id}`)).json();
      expect(detail).toMatchObject({
        status: 'success',
        response: { status_code: 202, body: 'accepted by test' },
      });
      h.answers.delete(at);
    });

    it('sends the given data', async () => {
      const at = h.path('data');
      const { id } = await h.create({ url: h.urlOf(at) });
      const response = await h.call('POST', `/${id}/test`, {
        event: 'customer.created',
        data: { id: 'c-1', vip: true },
      });
      expect(response.json().status).toBe('success');
      expect(JSON.parse(h.receivedAt(at)[0]!.body).data).toEqual({ id: 'c-1', vip: true });
    });

    it('answers a failing endpoint’s 500 as a failed test', async () => {
      const at = h.path('test-fails');
      h.answers.set(at, { status: 500, body: 'internal trouble' });
      const { id } = await h.create({ url: h.urlOf(at) });
      const response = await h.call('POST', `/${id}/test`, { event: 'order.created' });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({
        status: 'failed',
        response_code: 500,
        response_body: 'internal trouble',
        latency_ms: expect.any(Number),
      });
      h.answers.delete(at);
      expect((await h.call('DELETE', `/${id}`)).statusCode).toBe(204);
    });

    it('answers invalid_events for an event outside the admin catalog', async () => {
      const at = h.path();
      const { id } = await h.create({ url: h.urlOf(at) });
      for (const event of ['payment.processed', 'nope', 'order.*', '*']) {
        expectError(await h.call('POST', `/${id}/test`, { event }), 400, 'invalid_events');
      }
      expectError(await h.call('POST', `/${id}/test`, {}), 400, 'INVALID_REQUEST');
      expect(h.receivedAt(at)).toHaveLength(0);
    });
  });

  describe('verify-signature', () => {
    const payload = JSON.stringify({ id: 'evt_1', event: 'order.created', data: { total: 10.26 } });
    const secret = 'whsec_verify-me-0123456789';
    const check = (body: Json) => h.call('POST', '/verify-signature', body);
    const nowSeconds = () => Math.floor(h.context.cloud.clock.now().getTime() / 1000);

    it('accepts a signature made now with the secret', async () => {
      const timestamp = String(nowSeconds());
      const response = await check({
        payload,
        timestamp,
        secret,
        signature: formB(secret, timestamp, payload),
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ valid: true, timestamp_valid: true, signature_match: true });
    });

    it('reports a wrong secret, a changed payload and a bare hex as no match', async () => {
      const timestamp = String(nowSeconds());
      const signature = formB(secret, timestamp, payload);
      const mismatch = { valid: false, timestamp_valid: true, signature_match: false };
      expect(
        (await check({ payload, timestamp, secret: 'whsec_another-secret-000', signature })).json(),
      ).toEqual(mismatch);
      expect((await check({ payload: `${payload} `, timestamp, secret, signature })).json()).toEqual(
        mismatch,
      );
      expect(
        (
          await check({
            payload,
            timestamp,
            secret,
            signature: formB(secret, String(nowSeconds() - 1), payload),
          })
        ).json(),
      ).toEqual(mismatch);
    });

    it('refuses a timestamp older than 300 s, even with a matching signature', async () => {
      const old = String(nowSeconds() - 301);
      expect(
        (await check({ payload, timestamp: old, secret, signature: formB(secret, old, payload) })).json(),
      ).toEqual({
        valid: false,
        timestamp_valid: false,
        signature_match: true,
      });
      const recent = String(nowSeconds() - 295);
      expect(
        (
          await check({ payload, timestamp: recent, secret, signature: formB(secret, recent, payload) })
        ).json(),
      ).toEqual({
        valid: true,
        timestamp_valid: true,
        signature_match: true,
      });
    });

    it('confirms a real delivery’s signature', async () => {
      const at = h.path('verified');
      const created = await h.create({ url: h.urlOf(at), events: ['order.created'] });
      await h.deliver(1);
      const [received] = h.receivedAt(at);
      const result = await check({
        payload: received!.body,
        timestamp: String(received!.headers['x-service-timestamp']),
        signature: String(received!.headers['x-service-signature']),
        secret: created.secret,
      });
      expect(result.json()).toEqual({ valid: true, timestamp_valid: true, signature_match: true });
    });

    it('refuses a body without every field', async () => {
      expectError(await check({ payload, secret, signature: 'sha256=00' }), 400, 'INVALID_REQUEST');
      expectError(
        await check({ payload, timestamp: '1', secret, signature: 'x', extra: 1 }),
        400,
        'INVALID_REQUEST',
      );
    });
  });

  describe('logs', () => {
    it('logs creation, changes and rotations as info, newest first', async () => {
      const { id } = await h.create({ url: h.urlOf(h.path()) });
      await h.call('PUT', `/${id}`, { description: 'changed' });
      await h.call('POST', `/${id}/rotate-secret`);
      const logs = await h.logsOf(id);
      const messages = logs.map((line) => line.message);
      expect(messages).toEqual(
        expect.arrayContaining(['webhook created', 'webhook updated', 'secret rotated']),
      );
      for (const line of logs) {
        expect(line).toMatchObject({
          timestamp: expect.stringMatching(ISO),
          level: 'info',
          delivery_id: null,
          event: null,
        });
      }
      const created = logs.find((line) => line.message === 'webhook created')!;
      const rotated = logs.find((line) => line.message === 'secret rotated')!;
      expect(rotated.timestamp >= created.timestamp).toBe(true);
      expect((await h.asOther('GET', `/${id}/logs`)).statusCode).toBe(404);
    });

    it('logs each attempt with its delivery and event, filtered by level', async () => {
      const at = h.path('logged');
      const { id } = await h.create({ url: h.urlOf(at), settings: { retry_policy: { max_attempts: 1 } } });
      await h.deliver(2, 'order.created');
      h.answers.set(at, { status: 410, body: 'gone' });
      await h.deliver(1, 'order.completed');
      h.answers.delete(at);
      const deliveries = (await h.deliveriesOf(id)).deliveries;

      const logs = await h.logsOf(id);
      const attempts = logs.filter((line) => line.delivery_id !== null);
      expect(attempts).toHaveLength(3);
      for (const line of attempts) {
        const delivery = deliveries.find((row) => row.id === line.delivery_id)!;
        expect(line.event).toBe(delivery.event);
        expect(line.level).toBe(delivery.status === 'success' ? 'info' : 'error');
      }
      for (let i = 1; i < logs.length; i++) expect(logs[i - 1]!.timestamp >= logs[i]!.timestamp).toBe(true);

      const errors = await h.logsOf(id, '?level=error');
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({
        level: 'error',
        event: 'order.completed',
        delivery_id: expect.any(String),
      });
      const infos = await h.logsOf(id, '?level=info');
      expect(infos.every((line) => line.level === 'info')).toBe(true);
      expect(infos.filter((line) => line.delivery_id !== null)).toHaveLength(2);
      expect(infos.map((line) => line.message)).toContain('webhook created');
      expect(await h.logsOf(id, '?level=warning')).toEqual([]);

      expect(await h.logsOf(id, '?limit=2')).toHaveLength(2);
      const future = new Date(h.context.cloud.clock.now().getTime() + 60_000).toISOString();
      expect(await h.logsOf(id, `?start_date=${future}`)).toEqual([]);
      expectError(await h.call('GET', `/${id}/logs?level=debug`), 400, 'INVALID_REQUEST');
    });

    it('logs a failed attempt with a retry ahead as a warning', async () => {
      const at = h.path('warned');
      h.answers.set(at, { status: 500 });
      const { id } = await h.create({ url: h.urlOf(at), events: ['order.created'] });
      await h.deliver(1);
      const warnings = await h.logsOf(id, '?level=warning');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 'warning', event: 'order.created' });
      expect(await h.logsOf(id, '?level=error')).toEqual([]);
      expect((await h.call('DELETE', `/${id}`)).statusCode).toBe(204);
      h.answers.delete(at);
    });
  });

  describe('stats', () => {
    async function statsOf(id: string, period?: string) {
      const response = await h.call('GET', `/${id}/stats${period ? `?period=${period}` : ''}`);
      expect(response.statusCode, response.body).toBe(200);
      return response.json();
    }

    it('summarises the deliveries of the period, by event and by hour', async () => {
      const at = h.path('counted');
      const { id } = await h.create({ url: h.urlOf(at), settings: { retry_policy: { max_attempts: 1 } } });
      await h.deliver(3, 'order.created');
      await h.deliver(1, 'order.completed');
      h.answers.set(at, { status: 502 });
      await h.deliver(1, 'order.created');
      h.answers.set(at, { status: 404 });
      await h.deliver(1, 'order.completed');
      h.answers.delete(at);

      const stats = await statsOf(id, 'day');
      expect(stats).toMatchObject({
        webhook_id: id,
        period: 'day',
        summary: {
          total_deliveries: 6,
          successful: 4,
          failed: 2,
          success_rate: 0.6667,
          avg_latency_ms: expect.any(Number),
          p95_latency_ms: expect.any(Number),
          p99_latency_ms: expect.any(Number),
        },
        errors: { timeout: 0, connection_refused: 0, '5xx': 1 },
      });
      const { summary } = stats;
      expect(summary.p99_latency_ms).toBeGreaterThanOrEqual(summary.p95_latency_ms);
      expect(summary.p95_latency_ms).toBeGreaterThanOrEqual(0);
      expect((await h.deliveriesOf(id)).pagination.total).toBe(summary.total_deliveries);
      expect((await h.deliveriesOf(id, '?status=success')).pagination.total).toBe(summary.successful);
      expect(
        [...stats.by_event].sort((a: { event: string }, b: { event: string }) =>
          a.event.localeCompare(b.event),
        ),
      ).toEqual([
        { event: 'order.completed', count: 2, success_rate: 0.5 },
        { event: 'order.created', count: 4, success_rate: 0.75 },
      ]);
      const hour = `${h.context.cloud.clock.now().toISOString().slice(0, 13)}:00:00.000Z`;
      expect(stats.by_hour).toEqual([{ hour, deliveries: 6, success_rate: 0.6667 }]);
      expect(Date.parse(stats.by_hour[0].hour)).toBe(Date.parse(hour));

      for (const period of ['hour', 'week', 'month']) {
        const other = await statsOf(id, period);
        expect(other.period).toBe(period);
        expect(other.summary.total_deliveries).toBe(6);
      }
      expect((await statsOf(id)).period).toBe('day');
      expectError(await h.call('GET', `/${id}/stats?period=year`), 400, 'INVALID_REQUEST');
      expectError(await h.asOther('GET', `/${id}/stats`), 404, 'webhook_not_found');
    });

    it('counts connection refused and time-outs', async () => {
      const port = await closedPort();
      const refused = await h.create({
        url: `http://127.0.0.1:${port}/closed`,
        events: ['order.created'],
        settings: { retry_policy: { max_attempts: 1 } },
      });
      const at = h.path('hang');
      h.answers.set(at, 'hang');
      const slow = await h.create({
        url: h.urlOf(at),
        events: ['order.created'],
        settings: { timeout_seconds: 1, retry_policy: { max_attempts: 1 } },
      });
      await h.deliver(1);
      h.answers.delete(at);

      const refusedStats = await statsOf(refused.id);
      expect(refusedStats.summary).toMatchObject({
        total_deliveries: 1,
        successful: 0,
        failed: 1,
        success_rate: 0,
      });
      expect(refusedStats.errors).toEqual({ timeout: 0, connection_refused: 1, '5xx': 0 });
      const slowStats = await statsOf(slow.id);
      expect(slowStats.errors).toEqual({ timeout: 1, connection_refused: 0, '5xx': 0 });
      expect(slowStats.summary.avg_latency_ms).toBeGreaterThanOrEqual(900);
      const [timedOut] = (await h.deliveriesOf(slow.id)).deliveries;
      expect(timedOut).toMatchObject({ status: 'failed', response_code: null, error: expect.any(String) });
    });
  });
});

describe.each(backends)('admin webhooks as time passes on %s', (backend) => {
  // A cloud of its own: these tests move its clock forward.
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(backend);
  });
  afterAll(() => h.close());

  async function statsOf(id: string, period: string) {
    const response = await h.call('GET', `/${id}/stats?period=${period}`);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  }

  it('counts the last 24 hours in the list and all time in the detail', async () => {
    const { id } = await h.create({ url: h.urlOf(h.path()), events: ['order.created'] });
    await h.deliver(2);
    await h.advance(DAY_MS + 60_000);
    await h.deliver(1);
    const listed = (await h.call('GET', '')).json().webhooks.find((hook: { id: string }) => hook.id === id);
    expect(listed.stats).toMatchObject({ deliveries_24h: 1, success_rate: 1 });
    expect((await h.call('GET', `/${id}`)).json().stats).toMatchObject({
      total_deliveries: 3,
      successful_deliveries: 3,
    });
  });

  it('moves updated_at on a change and keeps created_at', async () => {
    const { id } = await h.create({ url: h.urlOf(h.path()) });
    const before = (await h.call('GET', `/${id}`)).json();
    await h.advance(60_000);
    const after = (await h.call('PUT', `/${id}`, { description: 'later' })).json();
    expect(after.created_at).toBe(before.created_at);
    expect(Date.parse(after.updated_at) - Date.parse(before.updated_at)).toBe(60_000);
    expect((await h.call('GET', `/${id}`)).json().updated_at).toBe(after.updated_at);
  });

  it('stops signing with the old secret after old_secret_valid_until', async () => {
    const at = h.path('rotated');
    const created = await h.create({ url: h.urlOf(at), events: ['order.created'] });
    const rotated = (await h.call('POST', `/${created.id}/rotate-secret`)).json();
    await h.advance(
      Date.parse(rotated.old_secret_valid_until) - h.context.cloud.clock.now().getTime() - 1000,
    );
    await h.deliver(1);
    expect(signaturesOf(h.receivedAt(at)[0]!.headers)).toHaveLength(2);
    await h.advance(2000);
    await h.deliver(1);
    const after = h.receivedAt(at)[1]!;
    const stamp = String(after.headers['x-service-timestamp']);
    expect(signaturesOf(after.headers)).toEqual([formB(rotated.new_secret, stamp, after.body)]);
  });

  it('filters by status, event, start_date and end_date', async () => {
    const at = h.path('filtered');
    const { id } = await h.create({ url: h.urlOf(at), settings: { retry_policy: { max_attempts: 1 } } });
    const firstBatchAt = h.context.cloud.clock.now().toISOString();
    await h.deliver(3, 'order.created');
    await h.deliver(1, 'order.completed');
    await h.advance(HOUR_MS);
    const secondBatchAt = h.context.cloud.clock.now().toISOString();
    h.answers.set(at, { status: 500, body: 'boom' });
    await h.deliver(2, 'order.created');
    h.answers.delete(at);
    // Recorded and not sent yet: pending.
    await appendEvents(h.context.cloud, [
      orderEvent(h.context.tenantId, h.context.locationId, 'order.cancelled'),
    ]);

    const all = await h.deliveriesOf(id);
    expect(all.pagination).toEqual({ total: 7, page: 1, limit: 50 });
    const count = async (query: string) => (await h.deliveriesOf(id, query)).pagination.total;
    expect(await count('?status=success')).toBe(4);
    expect(await count('?status=failed')).toBe(2);
    expect(await count('?status=pending')).toBe(1);
    expect(await count('?event=order.created')).toBe(5);
    expect(await count('?event=order.completed')).toBe(1);
    expect(await count('?event=payment.received')).toBe(0);
    expect(await count('?status=failed&event=order.created')).toBe(2);
    expect(await count(`?start_date=${secondBatchAt}`)).toBe(3);
    expect(await count(`?end_date=${firstBatchAt}`)).toBe(4);
    expect(await count(`?start_date=${firstBatchAt}&end_date=${firstBatchAt}`)).toBe(4);
    const early = new Date(Date.parse(secondBatchAt) - 1000).toISOString();
    expect(await count(`?status=success&start_date=${early}`)).toBe(0);
    for (const row of (await h.deliveriesOf(id, '?status=failed')).deliveries) {
      expect(row).toMatchObject({ status: 'failed', response_code: 500, error: expect.any(String) });
    }
    for (const bad of [
      '?status=done',
      '?start_date=yesterday',
      '?limit=0',
      '?limit=101',
      '?page=0',
      '?colour=red',
    ]) {
      expectError(await h.call('GET', `/${id}/deliveries${bad}`), 400, 'INVALID_REQUEST');
    }
  });

  it('counts only the attempts of the period asked for', async () => {
    const { id } = await h.create({ url: h.urlOf(h.path()), events: ['order.created'] });
    await h.deliver(3);
    await h.advance(2 * HOUR_MS);
    await h.deliver(1);
    expect((await statsOf(id, 'hour')).summary).toMatchObject({ total_deliveries: 1, successful: 1 });
    expect((await statsOf(id, 'day')).summary.total_deliveries).toBe(4);
    expect((await statsOf(id, 'day')).by_hour.map((row: { deliveries: number }) => row.deliveries)).toEqual([
      3, 1,
    ]);
    await h.advance(8 * DAY_MS);
    expect((await statsOf(id, 'hour')).summary).toMatchObject({
      total_deliveries: 0,
      success_rate: 0,
      p95_latency_ms: 0,
    });
    expect((await statsOf(id, 'week')).summary.total_deliveries).toBe(0);
    expect((await statsOf(id, 'month')).summary.total_deliveries).toBe(4);
  });
});

describe.each(backends)('admin webhook URLs on a cloud that refuses private targets (%s)', (backend) => {
  let context: WebhookTestContext;
  beforeAll(async () => {
    context = await createWebhookCloud(backend, { allowPrivateUrls: false, operationsPerMinute: 100_000 });
  });
  afterAll(() => context.cloud.close());

  const post = (url: string) =>
    context.cloud.app.inject({
      method: 'POST',
      url: BASE,
      headers: bearer(context.adminToken),
      payload: { url },
    });

  it('answers invalid_url for loopback, private, link-local and local names in any spelling', async () => {
    const refused = [
      'http://127.0.0.1/',
      'http://2130706433/',
      'http://0x7f.0.0.1/',
      'http://127.1/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::1]/',
      'http://localhost/',
      'http://LOCALHOST./',
      'http://api.localhost/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.8/',
      'http://192.168.1.1/',
      'http://0.0.0.0/',
      'http://[fd00::1]/',
    ];
    for (const url of refused) {
      const response = await post(url);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.code, url).toBe('invalid_url');
    }
  });

  it('accepts a public URL and refuses a private one in a change', async () => {
    const created = await post('https://hooks.example.com/webhooks');
    expect(created.statusCode, created.body).toBe(201);
    const changed = await context.cloud.app.inject({
      method: 'PUT',
      url: `${BASE}/${created.json().id}`,
      headers: bearer(context.adminToken),
      payload: { url: 'http://169.254.169.254/' },
    });
    expect(changed.statusCode).toBe(400);
    expect(changed.json().error.code).toBe('invalid_url');
  });
});

describe.each(backends)('webhook operation limit (%s)', (backend) => {
  let context: WebhookTestContext;
  beforeAll(async () => {
    context = await createWebhookCloud(backend, { operationsPerMinute: 5 });
  });
  afterAll(() => context.cloud.close());

  const inject = (method: Method, url: string, token: string, payload?: Json) =>
    context.cloud.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

  it('answers rate_limited with Retry-After past the tenant’s operations per minute; reads and other tenants go on', async () => {
    const statuses: number[] = [];
    let limited: LightMyRequestResponse | undefined;
    for (let i = 0; i < 8; i++) {
      const response = await inject('POST', BASE, context.adminToken, {
        url: `https://hooks.example.com/${i}`,
      });
      statuses.push(response.statusCode);
      if (response.statusCode === 429) limited ??= response;
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429, 429]);
    const error = expectError(limited!, 429, 'rate_limited');
    expect(error.message.length).toBeGreaterThan(0);
    const retryAfter = Number(limited!.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);

    // Every kind of write counts: a change, a test, a rotation, a write on the subscription interface.
    const id = (await inject('GET', BASE, context.adminToken)).json().webhooks[0].id;
    expect((await inject('PUT', `${BASE}/${id}`, context.adminToken, { description: 'x' })).statusCode).toBe(
      429,
    );
    expect((await inject('POST', `${BASE}/${id}/rotate-secret`, context.adminToken)).statusCode).toBe(429);
    expect((await inject('DELETE', `${BASE}/${id}`, context.adminToken)).statusCode).toBe(429);
    const subscribe = await inject('POST', '/v1/webhooks', context.adminToken, {
      url: 'https://hooks.example.com/sub',
      events: ['order.created'],
      secret: 's'.repeat(20),
    });
    expect(subscribe.statusCode).toBe(429);
    expect(subscribe.json().error.code).toBe('rate_limited');

    // Reads are not limited.
    for (let i = 0; i < 10; i++) {
      expect((await inject('GET', BASE, context.adminToken)).statusCode).toBe(200);
      expect((await inject('GET', `${BASE}/${id}`, context.adminToken)).statusCode).toBe(200);
      expect((await inject('GET', `${BASE}/${id}/deliveries`, context.adminToken)).statusCode).toBe(200);
    }
    expect((await inject('GET', BASE, context.adminToken)).json().total).toBe(5);

    // The other tenant has its own allowance.
    const theirs = await inject('POST', BASE, context.otherAdminToken, {
      url: 'https://hooks.example.com/0',
    });
    expect(theirs.statusCode, theirs.body).toBe(201);
  });
});
