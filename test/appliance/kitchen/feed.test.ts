import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { buildApplianceApp, createApplianceServices } from '../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const LOCATION = '01900000-0000-7000-8000-0000000000c3';
const COOK = '01900000-0000-7000-8000-000000000002';
const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

interface Received {
  at: number;
  message: { seq: number; type: string; data: { id: string; status: string } };
}

describe('kitchen feed over a real WebSocket', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let app: FastifyInstance;
  let base: string;
  let token: string;
  let burger: string;
  let fries: string;
  const sockets: WebSocket[] = [];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kitchen-feed-'));
    db = openApplianceDb(dir);
    const config = {
      ...loadApplianceConfig({
        TENANT_ID: TENANT,
        LOCATION_ID: LOCATION,
        APPLIANCE_TIMEZONE: 'America/New_York',
      }),
      logLevel: 'silent' as const,
    };
    const deps = { db, clock: createManualClock('2026-06-10T19:00:00.000Z'), newId, hasher };
    const services = createApplianceServices(config, deps);
    const { kitchen } = services;
    app = await buildApplianceApp(config, deps, services);
    kitchen.createStation({ name: 'Grill' });
    const mains = services.menu.createCategory({ name: 'Mains' });
    burger = services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 349 }).id;
    fries = services.menu.createItem({ category_id: mains.id, name: 'Fries', price_minor: 199 }).id;
    await services.auth.upsertStaff({
      id: COOK,
      email: 'bob@acme.test',
      username: 'bob',
      displayName: 'Bob',
      roles: ['staff'],
      pin: '123456',
      version: 1,
    });
    db.exec('delete from events');
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    const login = await post<{ status: { access_token: string } }>(
      '/v1/auth/login/pin',
      { identifier: 'bob', pin: '123456' },
      false,
    );
    token = login.status.access_token;
  });
  afterEach(async () => {
    for (const socket of sockets) socket.terminate();
    sockets.length = 0;
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function post<T = { data: unknown }>(path: string, body?: object, authed = true, method = 'POST') {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...(authed ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as T;
  }

  async function get<T>(path: string) {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  }

  function connect(query: string) {
    const socket = new WebSocket(`${base.replace('http', 'ws')}/v1/commerce/kds/feed?${query}`);
    sockets.push(socket);
    const received: Received[] = [];
    socket.on('message', (raw) => received.push({ at: performance.now(), message: JSON.parse(String(raw)) }));
    return { socket, received };
  }

  const opened = (socket: WebSocket) =>
    new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });

  const until = async (check: () => boolean, ms = 1000) => {
    const deadline = performance.now() + ms;
    while (!check() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  };

  /** Runs an HTTP call and reports when it returned, to time the feed against. */
  async function timed<T>(call: () => Promise<T>) {
    const result = await call();
    return { result, returnedAt: performance.now() };
  }

  it('delivers each order change to a connected screen within 100 ms of the call returning', async () => {
    const { socket, received } = connect(`access_token=${token}`);
    await opened(socket);

    const created = await timed(() =>
      post('/v1/commerce/orders', {
        order_type: 'takeout',
        items: [
          { menu_item_id: burger, quantity: 1 },
          { menu_item_id: fries, quantity: 1 },
        ],
      }),
    );
    const order = created.result.data as { id: string; items: Array<{ id: string }> };
    const sent = await timed(() => post(`/v1/commerce/orders/${order.id}/send`));
    const [station] = (await get<{ data: Array<{ id: string }> }>('/v1/commerce/kds/stations')).data;
    const board = await get<{ data: Array<{ id: string; items: Array<{ order_item_id: string }> }> }>(
      `/v1/commerce/kds/stations/${station?.id}/tickets`,
    );
    const [ticket] = board.data;
    const bumps = [];
    for (const item of ticket?.items ?? []) {
      bumps.push(
        await timed(() => post(`/v1/commerce/kds/tickets/${ticket?.id}/items/${item.order_item_id}/bump`)),
      );
    }
    await until(() => received.length >= 7);

    expect(received.map((r) => r.message.type)).toEqual([
      'order.created',
      'order.sent',
      'kds.ticket_opened',
      'order.updated',
      'kds.ticket_updated',
      'order.ready',
      'kds.ticket_updated',
    ]);
    const orderEvents = received.filter((r) => r.message.type.startsWith('order.'));
    expect(orderEvents.every((r) => r.message.data.id === order.id)).toBe(true);
    const ticketEvents = received.filter((r) => r.message.type.startsWith('kds.'));
    expect(ticketEvents.every((r) => r.message.data.id === ticket?.id)).toBe(true);
    expect(ticketEvents.map((r) => r.message.data.status)).toEqual(['open', 'open', 'done']);
    const seqs = received.map((r) => r.message.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    // The first event each call caused, timed from the moment the call returned.
    const firstOfEachCall = [received[0], received[1], received[3], received[5]];
    const latencies = [created, sent, ...bumps].map(
      (call, i) => (firstOfEachCall[i]?.at ?? Infinity) - call.returnedAt,
    );
    for (const latency of latencies) expect(latency).toBeLessThan(100);
  });

  it('shows a recall and a priority change on the screens as they happen', async () => {
    const created = await post<{ data: { id: string; items: Array<{ id: string }> } }>(
      '/v1/commerce/orders',
      { order_type: 'takeout', items: [{ menu_item_id: burger, quantity: 1 }] },
    );
    await post(`/v1/commerce/orders/${created.data.id}/send`);
    const [station] = (await get<{ data: Array<{ id: string }> }>('/v1/commerce/kds/stations')).data;
    const board = await get<{ data: Array<{ id: string }> }>(
      `/v1/commerce/kds/stations/${station?.id}/tickets`,
    );
    const ticketId = board.data[0]?.id;
    await post(`/v1/commerce/kds/tickets/${ticketId}/items/${created.data.items[0]?.id}/bump`);

    const { socket, received } = connect(`access_token=${token}`);
    await opened(socket);
    const recalled = await timed(() => post(`/v1/commerce/kds/tickets/${ticketId}/recall`));
    await until(() => received.length >= 1);
    const rushed = await timed(() =>
      post(`/v1/commerce/kds/tickets/${ticketId}/priority`, { priority: 'rush' }, true, 'PUT'),
    );
    await until(() => received.length >= 2);

    const messages = received.map((r) => r.message as Received['message'] & { data: { priority: string } });
    expect(messages.map((m) => [m.type, m.data.id, m.data.status, m.data.priority])).toEqual([
      ['kds.ticket_updated', ticketId, 'open', 'normal'],
      ['kds.ticket_updated', ticketId, 'open', 'rush'],
    ]);
    expect((received[0]?.at ?? Infinity) - recalled.returnedAt).toBeLessThan(100);
    expect((received[1]?.at ?? Infinity) - rushed.returnedAt).toBeLessThan(100);
  });

  it('replays committed events after a given seq to a reconnecting screen', async () => {
    await post('/v1/commerce/orders', {
      order_type: 'takeout',
      items: [{ menu_item_id: burger, quantity: 1 }],
    });
    const { socket, received } = connect(`access_token=${token}&after=0`);
    await opened(socket);
    await until(() => received.length >= 1);
    expect(received.map((r) => r.message.type)).toEqual(['order.created']);
  });

  it('refuses a screen without a valid token', async () => {
    for (const query of ['', 'access_token=not-a-token']) {
      const { socket } = connect(query);
      const status = await new Promise<number | undefined>((resolve) => {
        socket.once('unexpected-response', (_request, response) => resolve(response.statusCode));
        socket.once('open', () => resolve(undefined));
        socket.once('error', () => resolve(undefined));
      });
      expect(status).toBe(401);
    }
  });
});
