import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { loadCockpitConfig } from '../../../cloud/cockpit/config.ts';
import { backends } from '../../support/stores.ts';
import { type CockpitCloud, cockpitCloud } from './cockpit-cloud.ts';

const AUTH_TIMEOUT_MS = 300;

interface Client {
  socket: WebSocket;
  frames: Array<Record<string, unknown>>;
  closed: Promise<{ code: number; reason: string }>;
  next(type: string): Promise<Record<string, unknown>>;
}

describe.each(backends)('console feed WebSocket (%s)', (backend) => {
  let t: CockpitCloud;
  let url: string;
  const clients: Client[] = [];
  beforeAll(async () => {
    t = await cockpitCloud(backend, {
      config: { cockpit: { ...loadCockpitConfig({}), feedAuthTimeoutMs: AUTH_TIMEOUT_MS } },
    });
    await t.cloud.app.listen({ port: 0, host: '127.0.0.1' });
    url = `ws://127.0.0.1:${(t.cloud.app.server.address() as AddressInfo).port}/api/internal/cockpit/feed`;
  });
  afterAll(async () => {
    for (const client of clients) client.socket.terminate();
    await t.cloud.close();
  });

  async function connect(): Promise<Client> {
    const socket = new WebSocket(url);
    const frames: Array<Record<string, unknown>> = [];
    const waiters: Array<() => void> = [];
    socket.on('message', (data) => {
      frames.push(JSON.parse(String(data)));
      for (const wake of waiters.splice(0)) wake();
    });
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const next = async (type: string) => {
      for (;;) {
        const found = frames.find((frame) => frame.type === type);
        if (found) {
          frames.splice(frames.indexOf(found), 1);
          return found;
        }
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    const client = { socket, frames, closed, next };
    clients.push(client);
    return client;
  }

  const submit = (tenantId: string, summary: string) =>
    t.cloud.services.cockpit.approvals.submit(t.cloud.store.db, tenantId, {
      kind: 'refund',
      summary,
      payload: { amount: 900 },
      requested_by: 'support_agent',
    });

  it('streams the operator’s tenant’s frames after the auth frame, and only those', async () => {
    const client = await connect();
    client.socket.send(JSON.stringify({ type: 'auth', token: await t.operatorA.fresh() }));
    expect(await client.next('auth_ok')).toEqual({
      type: 'auth_ok',
      tenant_id: t.a.tenant.id,
      user_id: t.operatorA.id,
    });
    await submit(t.b.tenant.id, 'not yours');
    // An item submitted in a transaction that rolls back is never announced; one that commits is,
    // when its submitter announces it after the commit.
    const { approvals } = t.cloud.services.cockpit;
    await t.cloud.store.db
      .transaction()
      .execute(async (trx) => {
        await approvals.submit(trx, t.a.tenant.id, {
          kind: 'refund',
          summary: 'rolled back',
          payload: { amount: 1 },
          requested_by: 'support_agent',
        });
        throw new Error('roll back');
      })
      .catch(() => undefined);
    const mine = await submit(t.a.tenant.id, 'yours');
    const created = await client.next('approval.created');
    expect(created).toMatchObject({ approval: { id: mine.id, summary: 'yours', status: 'pending' } });
    expect(client.frames.some((frame) => JSON.stringify(frame).includes('rolled back'))).toBe(false);
    // What notify's console channel publishes reaches the console as it is.
    t.cloud.services.cockpit.feed.publish(t.b.tenant.id, { type: 'alert', title: 'B only' });
    t.cloud.services.cockpit.feed.publish(t.a.tenant.id, {
      type: 'alert',
      title: 'Freezer warm',
      severity: 'P2',
    });
    expect(await client.next('alert')).toEqual({ type: 'alert', title: 'Freezer warm', severity: 'P2' });
    const decided = await t.operatorA.call('POST', `/api/internal/cockpit/approvals/${mine.id}/approve`, {
      operator_id: '0190c2a4-0000-7000-8000-000000000001',
    });
    expect(decided.statusCode).toBe(200);
    expect(await client.next('approval.decided')).toMatchObject({
      action: 'approve',
      approval: { id: mine.id, status: 'approved' },
    });
    expect(
      client.frames.some(
        (frame) => JSON.stringify(frame).includes('B only') || JSON.stringify(frame).includes('not yours'),
      ),
    ).toBe(false);
  });

  it('closes a connection that does not authenticate in time', async () => {
    const client = await connect();
    const started = Date.now();
    expect(await client.closed).toEqual({ code: 4408, reason: 'authentication timed out' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(AUTH_TIMEOUT_MS - 50);
  });

  it('refuses other roles (4403), bad tokens and other first frames (4401)', async () => {
    const manager = await connect();
    manager.socket.send(JSON.stringify({ type: 'auth', token: await t.managerA.fresh() }));
    expect((await manager.closed).code).toBe(4403);
    const forged = await connect();
    forged.socket.send(JSON.stringify({ type: 'auth', token: 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln' }));
    expect((await forged.closed).code).toBe(4401);
    const chatty = await connect();
    chatty.socket.send(JSON.stringify({ type: 'hello' }));
    expect((await chatty.closed).code).toBe(4401);
    const garbage = await connect();
    garbage.socket.send('not json');
    expect((await garbage.closed).code).toBe(4401);
    expect(manager.frames).toEqual([]);
  });

  it('leaves other paths to their own handlers', async () => {
    // Another module's WebSocket (chat's, say) on the same server: it alone answers its path.
    const server = t.cloud.app.server;
    const other = (request: { url?: string }, socket: import('node:stream').Duplex) => {
      if (request.url !== '/api/v1/elsewhere') return;
      socket.end('HTTP/1.1 418 I am a teapot\r\nConnection: close\r\n\r\n');
    };
    server.on('upgrade', other);
    try {
      const port = (server.address() as AddressInfo).port;
      const client = new WebSocket(`ws://127.0.0.1:${port}/api/v1/elsewhere`);
      const status = await new Promise<number | string>((resolve) => {
        client.once('open', () => resolve('open'));
        client.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0));
        client.once('error', (error) => resolve(error.message));
      });
      client.terminate();
      expect(status).toBe(418);
    } finally {
      server.off('upgrade', other);
    }
  });
});
