import assert from 'node:assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SqlitePersistence } from '../../../../appliance/devices/broker/persistence.ts';

const require = createRequire(import.meta.url);

interface NodeTestContext {
  assert: typeof assert;
  plan(count: number): void;
  diagnostic(message: string): void;
}
type AbstractSuite = (options: {
  test: (name: string, fn: (t: NodeTestContext) => Promise<void>) => void;
  persistence: () => SqlitePersistence;
  testAsync: boolean;
}) => void;

const dirs: string[] = [];
const freshPersistence = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mqtt-persistence-'));
  dirs.push(dir);
  return new SqlitePersistence(dir);
};

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * aedes-persistence's own conformance suite, written for node:test, run here unchanged: its `t`
 * is given node's assert, and plan/diagnostic (bookkeeping only) are no-ops.
 */
describe('aedes-persistence abstract suite on SQLite', () => {
  const abstract = require('aedes-persistence/abstract.js') as AbstractSuite;
  const context: NodeTestContext = { assert, plan: () => {}, diagnostic: () => {} };
  abstract({
    test: (name, fn) => it(name, () => fn(context)),
    persistence: freshPersistence,
    testAsync: true,
  });
});

describe('SQLite persistence across a reopen', () => {
  it('keeps retained messages, subscriptions, queued and incoming packets, and wills', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mqtt-persistence-'));
    dirs.push(dir);
    const broker = { id: 'broker-a' };
    const first = new SqlitePersistence(dir);
    await first.setup(broker);
    const client = { id: 'kds-1' };
    await first.storeRetained({
      cmd: 'publish',
      topic: 'a/status',
      payload: Buffer.from('up'),
      qos: 0,
      retain: true,
    });
    await first.addSubscriptions(client, [{ topic: 'a/cmd', qos: 1 }]);
    await first.outgoingEnqueueCombi([{ clientId: client.id }], {
      cmd: 'publish',
      topic: 'a/cmd',
      payload: Buffer.from('reboot'),
      qos: 1,
      brokerId: 'broker-a',
      brokerCounter: 7,
    });
    await first.incomingStorePacket(client, {
      cmd: 'publish',
      topic: 'a/alert',
      payload: 'hot',
      qos: 2,
      messageId: 9,
    });
    await first.putWill(client, { topic: 'a/status', payload: Buffer.from('gone'), qos: 0, retain: true });
    await first.destroy();

    const second = new SqlitePersistence(dir);
    await second.setup({ id: 'broker-b' });
    const retained = await second.createRetainedStream('a/+').toArray();
    expect(retained.map((p) => p.payload.toString())).toEqual(['up']);
    expect(await second.subscriptionsByTopic('a/cmd')).toMatchObject([
      { clientId: 'kds-1', topic: 'a/cmd', qos: 1 },
    ]);
    const queued = await second.outgoingStream(client).toArray();
    expect(queued.map((p) => p.payload.toString())).toEqual(['reboot']);
    expect((await second.incomingGetPacket(client, { messageId: 9 })).payload).toBe('hot');
    const wills = await second.streamWill({ 'broker-b': Date.now() }).toArray();
    expect(wills.map((w) => w.clientId)).toEqual(['kds-1']);
    await second.destroy();
  });
});

describe('clearing an acknowledged message', () => {
  const queuedPacket = (counter: number) => ({
    cmd: 'publish',
    topic: 'a/cmd',
    payload: Buffer.from(`m${counter}`),
    qos: 1,
    brokerId: 'broker-a',
    brokerCounter: counter,
  });

  it('answers at once for a client with nothing queued, and finds what was queued before a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mqtt-persistence-'));
    dirs.push(dir);
    const client = { id: 'kds-2' };
    const first = new SqlitePersistence(dir);
    await first.setup({ id: 'broker-a' });
    expect(await first.outgoingClearMessageId(client, { messageId: 1 })).toBeUndefined();
    await first.outgoingEnqueueCombi([{ clientId: client.id }], queuedPacket(1));
    await first.outgoingEnqueueCombi([{ clientId: client.id }], queuedPacket(2));
    await first.outgoingUpdate(client, { ...queuedPacket(1), messageId: 11 });
    await first.destroy();

    const second = new SqlitePersistence(dir);
    await second.setup({ id: 'broker-b' });
    await second.outgoingUpdate(client, { ...queuedPacket(2), messageId: 12 });
    const cleared = await second.outgoingClearMessageId(client, { messageId: 11 });
    expect(cleared?.payload?.toString()).toBe('m1');
    expect((await second.outgoingClearMessageId(client, { messageId: 12 }))?.payload?.toString()).toBe('m2');
    expect(await second.outgoingStream(client).toArray()).toEqual([]);
    await second.destroy();
  });

  it('waits for an enqueue asked for just before it', async () => {
    const persistence = freshPersistence();
    await persistence.setup({ id: 'broker-a' });
    const client = { id: 'kds-3' };
    const enqueued = persistence.outgoingEnqueueCombi([{ clientId: client.id }], queuedPacket(1));
    const updated = persistence.outgoingUpdate(client, { ...queuedPacket(1), messageId: 5 });
    const cleared = persistence.outgoingClearMessageId(client, { messageId: 5 });
    await Promise.all([enqueued, updated]);
    expect((await cleared)?.payload?.toString()).toBe('m1');
    await persistence.destroy();
  });
});

describe('replaying a long queue', () => {
  it('yields every message queued when asked, in order, page after page; later ones come live', async () => {
    const persistence = freshPersistence();
    await persistence.setup({ id: 'broker-a' });
    const client = { id: 'kds-4' };
    const packet = (counter: number) => ({
      cmd: 'publish',
      topic: 'a/cmd',
      payload: Buffer.from(`m${counter}`),
      qos: 1,
      brokerId: 'broker-a',
      brokerCounter: counter,
    });
    for (let counter = 1; counter <= 200; counter += 1)
      await persistence.outgoingEnqueueCombi([{ clientId: client.id }], packet(counter));
    const stream = persistence.outgoingStream(client);
    await persistence.outgoingEnqueueCombi([{ clientId: client.id }], packet(201));
    const replayed = (await stream.toArray()).map((p) => p.payload.toString());
    expect(replayed).toEqual(Array.from({ length: 200 }, (_, i) => `m${i + 1}`));
    await persistence.destroy();
  });
});
