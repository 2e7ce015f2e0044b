import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadCloudConfig } from '../../cloud/config.ts';
import type { DomainEventRow } from '../../cloud/events/index.ts';
import { newId } from '../../shared/ids.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from './cloud.ts';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() when the request's body had arrived. */
  at: number;
}

/** What the receiver answers: a status (with headers and body), or `hang` to never answer. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

/** A real HTTP endpoint on loopback that records every request it gets. */
export async function createReceiver(
  answer: (request: ReceivedRequest) => Answer | Promise<Answer> = () => ({ status: 200 }),
) {
  const received: ReceivedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const request = {
        path: req.url ?? '/',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
      };
      received.push(request);
      const reply = await answer(request);
      if (reply === 'hang') return;
      res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
      res.end(reply.body ?? 'ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof createReceiver>>;

export interface WebhookTestContext {
  cloud: TestCloud;
  tenantId: string;
  locationId: string;
  adminToken: string;
  otherTenantId: string;
  otherLocationId: string;
  otherAdminToken: string;
}

async function adminOf(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  await cloud.services.tenancy.addUser(tenantId, { email, password: 'correct horse battery', roles });
  return (await loginTokens(cloud.app, { email, password: 'correct horse battery' })).access_token;
}

/** A cloud with two tenants, each with a platform_admin; private URLs allowed (loopback receivers). */
export async function createWebhookCloud(
  backend: 'sqlite' | 'pg',
  webhooks: Partial<TestCloud['config']['webhooks']> = {},
): Promise<WebhookTestContext> {
  const defaults = loadCloudConfig({}).webhooks;
  const cloud = await createTestCloud(backend, {
    config: { webhooks: { ...defaults, allowPrivateUrls: true, ...webhooks } },
  });
  const first = await seedTenant(cloud.services, 'acme');
  const second = await seedTenant(cloud.services, 'globex');
  return {
    cloud,
    tenantId: first.tenant.id,
    locationId: first.location.id,
    adminToken: await adminOf(cloud, first.tenant.id, 'ops@acme.test', ['platform_admin']),
    otherTenantId: second.tenant.id,
    otherLocationId: second.location.id,
    otherAdminToken: await adminOf(cloud, second.tenant.id, 'ops@globex.test', ['platform_admin']),
  };
}

export function orderEvent(
  tenantId: string,
  locationId: string,
  type = 'order.created',
  overrides: Partial<DomainEventRow> = {},
): DomainEventRow {
  const id = newId();
  const at = new Date().toISOString();
  return {
    id,
    tenant_id: tenantId,
    location_id: locationId,
    type,
    occurred_at: at,
    received_at: at,
    data: JSON.stringify({
      id: newId(),
      number: '42',
      order_type: 'dine_in',
      status: 'open',
      items: [
        { id: newId(), menu_item_id: newId(), name: 'Burger', quantity: 1, unit_price: 9.5, total: 9.5 },
      ],
      subtotal: 9.5,
      tax: 0.76,
      total: 10.26,
      created_at: at,
    }),
    ...overrides,
  };
}

/** Events recorded the way every writer records them: appended inside a transaction. */
export async function appendEvents(cloud: TestCloud, events: DomainEventRow[]) {
  await cloud.store.db.transaction().execute((trx) => cloud.services.events.append(trx, events));
}

export async function createAdminWebhook(
  context: WebhookTestContext,
  body: Record<string, unknown>,
  token = context.adminToken,
) {
  const response = await context.cloud.app.inject({
    method: 'POST',
    url: '/api/v1/webhooks',
    headers: bearer(token),
    payload: body,
  });
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.statusCode} ${response.body}`);
  return response.json() as { id: string; secret: string; signing_key: string };
}

export async function createSubscription(
  context: WebhookTestContext,
  body: Record<string, unknown>,
  token = context.adminToken,
) {
  const response = await context.cloud.app.inject({
    method: 'POST',
    url: '/v1/webhooks',
    headers: bearer(token),
    payload: body,
  });
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.statusCode} ${response.body}`);
  return (response.json() as { data: { id: string } }).data;
}
