import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpPlatform } from '../../../cloud/billing/index.ts';
import { backends } from '../../support/stores.ts';
import { type BillingCloud, billingCloud, createSubscription, fails, ok } from './billing-cloud.ts';

interface Seen {
  url: string | undefined;
  body: string;
}

async function platformServer(status: number | 'hang') {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      seen.push({ url: request.url, body });
      if (status === 'hang') return;
      response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, url, seen };
}

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

/** A port that was free a moment ago: nothing listens there. */
async function deadUrl() {
  const { server, url } = await platformServer(200);
  await close(server);
  return url;
}

describe.each(backends)('pause and resume against an HTTP platform service on %s', (backend) => {
  const servers: Server[] = [];
  afterAll(async () => {
    for (const server of servers) await close(server);
  });

  async function cloudWith(url: string) {
    return billingCloud(backend, { platformServiceUrl: url });
  }

  async function expectNothingChanged(c: BillingCloud, id: string, status: string) {
    expect(ok(await c.adminA('GET', `/v1/billing/subscriptions/${id}`)).status).toBe(status);
    expect(ok(await c.adminA('GET', `/v1/billing/events?subscription_id=${id}`)).items).toEqual([]);
  }

  it('answers 502 upstream_error and changes nothing when nothing listens', async () => {
    const c = await cloudWith(await deadUrl());
    try {
      const sub = await createSubscription(c.adminA);
      fails(await c.adminA('POST', `/v1/billing/subscriptions/${sub.id}/pause`), 502, 'upstream_error');
      await expectNothingChanged(c, sub.id, 'active');
      const paused = await createSubscription(c.adminA, { status: 'paused' });
      fails(await c.adminA('POST', `/v1/billing/subscriptions/${paused.id}/resume`), 502, 'upstream_error');
      await expectNothingChanged(c, paused.id, 'paused');
    } finally {
      await c.cloud.close();
    }
  });

  it('answers 502 upstream_error and changes nothing when the platform answers 500', async () => {
    const platform = await platformServer(500);
    servers.push(platform.server);
    const c = await cloudWith(platform.url);
    try {
      const sub = await createSubscription(c.adminA);
      const body = fails(
        await c.adminA('POST', `/v1/billing/subscriptions/${sub.id}/pause`),
        502,
        'upstream_error',
      );
      expect(body).toContain('500');
      await expectNothingChanged(c, sub.id, 'active');
      const paused = await createSubscription(c.adminA, { status: 'paused' });
      fails(await c.adminA('POST', `/v1/billing/subscriptions/${paused.id}/resume`), 502, 'upstream_error');
      await expectNothingChanged(c, paused.id, 'paused');
      expect(platform.seen).toHaveLength(2);
    } finally {
      await c.cloud.close();
    }
  });

  it('forwards to the platform and moves the subscription when it answers 2xx', async () => {
    const platform = await platformServer(204);
    servers.push(platform.server);
    const c = await cloudWith(platform.url);
    try {
      const sub = await createSubscription(c.adminA);
      expect(ok(await c.adminA('POST', `/v1/billing/subscriptions/${sub.id}/pause`)).status).toBe('paused');
      expect(ok(await c.adminA('POST', `/v1/billing/subscriptions/${sub.id}/resume`)).status).toBe('active');
      expect(platform.seen.map((s) => s.url)).toEqual([
        `/v1/platform/billing/subscriptions/${sub.id}/pause`,
        `/v1/platform/billing/subscriptions/${sub.id}/resume`,
      ]);
      expect(JSON.parse(platform.seen[0]!.body)).toEqual({
        tenant_id: c.a.tenant.id,
        subscription_id: sub.id,
      });
    } finally {
      await c.cloud.close();
    }
  });
});

describe('the HTTP platform adapter', () => {
  let hanging: Awaited<ReturnType<typeof platformServer>>;
  beforeAll(async () => {
    hanging = await platformServer('hang');
  });
  afterAll(() => close(hanging.server));

  it('gives up after its time-out with upstream_error', async () => {
    const platform = createHttpPlatform(hanging.url, 100);
    const started = Date.now();
    await expect(platform.forward('pause', 't', 's')).rejects.toMatchObject({
      status: 502,
      code: 'upstream_error',
    });
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
