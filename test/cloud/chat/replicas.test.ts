/**
 * Two cloud replicas on one store, relaying through a real Redis (127.0.0.1:6379): a message posted
 * on one reaches the member sockets the other holds, incident frames too, and console frames reach
 * the other's console feed. Nothing crosses tenants.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConsoleFrame } from '../../../cloud/cockpit/index.ts';
import { createTestCloud, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { type ChatUser, type Client, chatUser, connect, ok, sleep } from './chat-cloud.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';

async function listening(cloud: TestCloud) {
  await cloud.app.listen({ port: 0, host: '127.0.0.1' });
  const address = cloud.app.server.address();
  return `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/api/v1/chat/ws`;
}

describe.each(backends)('chat and console frames across two replicas (%s)', (backend) => {
  let redis: Redis;
  let one: TestCloud;
  let two: TestCloud;
  let wsOne: string;
  let wsTwo: string;
  let ann: ChatUser;
  let bob: ChatUser;
  let zed: ChatUser;
  let tenants: { a: string; b: string };
  const clients: Client[] = [];

  beforeAll(async () => {
    redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect().catch((error: unknown) => {
      throw new Error(`These tests need Redis at ${REDIS_URL}`, { cause: error });
    });
    const relayNamespace = `test-${randomBytes(6).toString('hex')}`;
    const config = { rateLimit: false };
    one = await createTestCloud(backend, { config });
    // The first replica relays too: it is rebuilt on the same store with the Redis.
    const first = one;
    one = await createTestCloud(backend, {
      config,
      replicaOf: { store: first.store, redis, relayNamespace },
    });
    two = await createTestCloud(backend, {
      config,
      replicaOf: { store: first.store, redis, relayNamespace },
    });
    two.clock.set(one.clock.now());
    // `first` only created the store; it must outlive both replicas.
    afterAllClose.push(() => first.close());
    wsOne = await listening(one);
    wsTwo = await listening(two);
    const a = await seedTenant(one.services, 'alpha');
    const b = await seedTenant(one.services, 'bravo');
    tenants = { a: a.tenant.id, b: b.tenant.id };
    ann = await chatUser(one, a.tenant.id, 'ann@alpha.test', ['manager']);
    bob = await chatUser(one, a.tenant.id, 'bob@alpha.test', ['staff']);
    zed = await chatUser(one, b.tenant.id, 'zed@bravo.test', ['manager']);
  });
  const afterAllClose: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const client of clients) client.close();
    await two?.close();
    await one?.close();
    for (const close of afterAllClose) await close();
    await redis?.quit();
  });

  const open = async (url: string, user: ChatUser) => {
    const client = await connect(url, user);
    clients.push(client);
    return client;
  };

  it('delivers a message posted on one replica to the member sockets the other holds', async () => {
    const room = ok(
      await ann.call('POST', '/channels', { type: 'private', name: 'Line', member_user_ids: [bob.id] }),
      201,
    );
    const [bobOnTwo, annOnOne, zedOnTwo] = await Promise.all([
      open(wsTwo, bob),
      open(wsOne, ann),
      open(wsTwo, zed),
    ]);
    const sent = ok(
      await ann.call('POST', `/channels/${room.id}/messages`, { content: 'fryer 2 is down' }),
      201,
    );
    const isIt = (f: { type: string; message?: unknown }) =>
      f.type === 'message' && (f.message as { id: string }).id === sent.id;
    expect(await bobOnTwo.frame(isIt, 'the message on replica two')).toMatchObject({ channel_id: room.id });
    await annOnOne.frame(isIt, 'the message on replica one');
    await sleep(200);
    // Each socket got it once (the replica that stored it does not hear its own relay back).
    expect(bobOnTwo.frames.filter(isIt)).toHaveLength(1);
    expect(annOnOne.frames.filter(isIt)).toHaveLength(1);
    expect(zedOnTwo.frames.some((f) => f.type === 'message')).toBe(false);
  });

  it('sends an incident frame to the members on every replica, never to another tenant', async () => {
    const [bobOnTwo, zedOnTwo] = await Promise.all([open(wsTwo, bob), open(wsTwo, zed)]);
    await one.services.chat.broadcastIncident(tenants.a, { incident_id: 'inc-relay', status: 'open' });
    expect(await bobOnTwo.frame((f) => f.type === 'incident', 'incident frame')).toMatchObject({
      incident_id: 'inc-relay',
    });
    await sleep(200);
    expect(zedOnTwo.frames.some((f) => f.type === 'incident')).toBe(false);
  });

  it('carries console frames to the other replica’s feed, with their tenant', async () => {
    const heard: Array<[string, ConsoleFrame]> = [];
    const stop = two.services.cockpit.feed.subscribe((tenantId, frame) => heard.push([tenantId, frame]));
    try {
      one.services.cockpit.feed.publish(tenants.b, { type: 'alert', title: 'Walk-in cooler warm' });
      await expect.poll(() => heard.length).toBe(1);
      expect(heard[0]).toEqual([tenants.b, { type: 'alert', title: 'Walk-in cooler warm' }]);
    } finally {
      stop();
    }
  });
});
