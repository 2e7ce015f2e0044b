import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { type ConsoleFrame, createConsoleFeed } from '../../../cloud/cockpit/feed.ts';
import { newId } from '../../../shared/ids.ts';
import { bearer, signedInUser, type TestCloud, twoTenantCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { appliancePusher, orderFields } from './fleet-cloud.ts';

type Frame = Record<string, unknown>;

interface Client {
  frames: Frame[];
  closed: Promise<number>;
  /** The first frame not taken yet that matches; waits for it. */
  next(match: (frame: Frame) => boolean): Promise<Frame>;
  socket: WebSocket;
}

describe.each(backends)('the console feed for the fleet console (%s)', (backend) => {
  let cloud: TestCloud;
  let world: Awaited<ReturnType<typeof twoTenantCloud>>;
  let url: string;
  const tokens = { adminA: '', staffA: '', adminB: '' };
  const clients: Client[] = [];

  beforeAll(async () => {
    world = await twoTenantCloud(backend);
    cloud = world.cloud;
    await cloud.app.listen({ port: 0, host: '127.0.0.1' });
    url = `ws://127.0.0.1:${(cloud.app.server.address() as AddressInfo).port}/api/internal/cockpit/feed`;
    const sign = async (tenantId: string, email: string, roles: string[]) =>
      (await signedInUser(cloud, tenantId, email, roles)).token;
    tokens.adminA = await sign(world.a.tenant.id, 'admin@alpha.test', ['tenant_admin']);
    tokens.staffA = await sign(world.a.tenant.id, 'staff@alpha.test', ['staff']);
    tokens.adminB = await sign(world.b.tenant.id, 'admin@bravo.test', ['tenant_admin']);
  });
  afterAll(async () => {
    for (const client of clients) client.socket.terminate();
    await cloud.close();
  });

  async function connect(token: string): Promise<Client> {
    const socket = new WebSocket(url);
    const frames: Frame[] = [];
    const waiters: Array<() => void> = [];
    socket.on('message', (data) => {
      frames.push(JSON.parse(String(data)));
      for (const wake of waiters.splice(0)) wake();
    });
    const closed = new Promise<number>((resolve) => socket.on('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.send(JSON.stringify({ type: 'auth', token }));
    const next = async (match: (frame: Frame) => boolean) => {
      for (;;) {
        const found = frames.find(match);
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
  const ofType = (type: string) => (frame: Frame) => frame.type === type;
  const post = (token: string, url: string, payload: Record<string, unknown>) =>
    cloud.app.inject({ method: 'POST', url, payload, headers: bearer(token) });

  it('admits a tenant administrator to its own tenant’s frames and still refuses a staff member', async () => {
    const admin = await connect(tokens.adminA);
    expect(await admin.next(ofType('auth_ok'))).toMatchObject({ tenant_id: world.a.tenant.id });
    const staff = await connect(tokens.staffA);
    expect(await staff.closed).toBe(4403);
    expect(staff.frames).toEqual([]);
  });

  it('tells the console of an alert as it fires and as it is acknowledged', async () => {
    const admin = await connect(tokens.adminA);
    const other = await connect(tokens.adminB);
    await admin.next(ofType('auth_ok'));
    await other.next(ofType('auth_ok'));
    const raised = await post(tokens.adminA, '/api/v1/alerts/ingest', {
      source: 'edge_metrics',
      severity: 'P3',
      title: 'Freezer warm',
      service: 'appliance',
      environment: 'production',
    });
    expect(raised.statusCode, raised.body).toBe(201);
    const alertId = raised.json().data.id as string;
    expect(await admin.next(ofType('alert'))).toEqual({ type: 'alert', alert_id: alertId, status: 'firing' });
    const acknowledged = await post(tokens.adminA, `/api/v1/alerts/${alertId}/acknowledge`, {
      user_id: 'admin@alpha.test',
    });
    expect(acknowledged.statusCode, acknowledged.body).toBe(200);
    expect(await admin.next(ofType('alert'))).toEqual({
      type: 'alert',
      alert_id: alertId,
      status: 'acknowledged',
    });
    await cloud.services.alerting.settled();
    expect(other.frames.filter((frame) => frame.alert_id === alertId)).toEqual([]);
  });

  it('tells the console of a store whose appliance pushed', async () => {
    const admin = await connect(tokens.adminA);
    await admin.next(ofType('auth_ok'));
    const { credential } = await cloud.services.sync.provisionAppliance(world.a.tenant.id, {
      location_id: world.a.location.id,
    });
    const at = cloud.clock.now().toISOString();
    await appliancePusher(cloud, credential)([{ table: 'orders', fields: orderFields(newId(), at) }]);
    expect(await admin.next(ofType('store'))).toEqual({ type: 'store', location_id: world.a.location.id });
  });

  it('tells the console of a catalog publication as it reaches the brand’s stores', async () => {
    const admin = await connect(tokens.adminA);
    await admin.next(ofType('auth_ok'));
    const created = await post(tokens.adminA, '/v1/commerce/menu/categories', {
      brand_id: world.a.brand.id,
      name: 'Burgers',
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().data.publication.id as string;
    const step = { type: 'publication', id, brand_id: world.a.brand.id, stores_total: 1 };
    expect(await admin.next(ofType('publication'))).toMatchObject({
      ...step,
      state: 'publishing',
      stores_written: 0,
    });
    // The rest of a burst comes as its newest frame when the second's window ends.
    expect(await admin.next(ofType('publication'))).toMatchObject({
      ...step,
      state: 'published',
      stores_written: 1,
    });
  });
});

describe('throttled console frames', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends the first at once and only the newest of the rest when the window ends', () => {
    vi.useFakeTimers();
    const feed = createConsoleFeed();
    const heard: Array<[string, ConsoleFrame]> = [];
    feed.subscribe((tenantId, frame) => heard.push([tenantId, frame]));
    const store = (n: number) => ({ type: 'store', location_id: 'l1', n });
    feed.publishThrottled('t1', 'store:l1', store(1), 5000);
    feed.publishThrottled('t1', 'store:l1', store(2), 5000);
    feed.publishThrottled('t1', 'store:l1', store(3), 5000);
    feed.publishThrottled('t1', 'store:l2', { type: 'store', location_id: 'l2' }, 5000);
    expect(heard.map(([, frame]) => frame)).toEqual([store(1), { type: 'store', location_id: 'l2' }]);
    vi.advanceTimersByTime(5000);
    expect(heard.at(-1)).toEqual(['t1', store(3)]);
    expect(heard).toHaveLength(3);
    // The frame that ended the window opened another: nothing came in it, so nothing goes.
    vi.advanceTimersByTime(10_000);
    expect(heard).toHaveLength(3);
    feed.publishThrottled('t1', 'store:l1', store(4), 5000);
    expect(heard).toHaveLength(4);
    feed.publishThrottled('t1', 'store:l1', store(5), 5000);
    feed.close();
    vi.advanceTimersByTime(5000);
    expect(heard).toHaveLength(4);
  });
});
