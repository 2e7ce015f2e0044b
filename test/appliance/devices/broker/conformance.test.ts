import { type IConnackPacket, type Packet, parser } from 'mqtt-packet';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectPacket, EMPTY_ID_PERSISTENT_CONNECT, rawClient } from './raw-client.ts';
import { inbox, type Pki, sleep, startTestBroker, type TestBroker, testPki, waitFor } from './support.ts';

let pki: Pki;
let rig: TestBroker | undefined;
beforeAll(async () => {
  pki = await testPki();
});
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

describe('MQTT-3.1.3-8: an empty client id needs a clean session', () => {
  it('answers CONNACK 2 (identifier rejected) and closes, for clean session false', async () => {
    rig = await startTestBroker(pki);
    const client = await rawClient(rig.broker.tcpPort!);
    client.sendBytes(EMPTY_ID_PERSISTENT_CONNECT);
    const connack = (await client.take('connack')) as IConnackPacket;
    expect(connack.returnCode).toBe(2);
    expect(await client.closed).toBe(true);
  });

  it('assigns an id when the session is clean', async () => {
    rig = await startTestBroker(pki);
    const client = await rawClient(rig.broker.tcpPort!);
    client.send(connectPacket('', true));
    expect(((await client.take('connack')) as IConnackPacket).returnCode).toBe(0);
    client.close();
  });
});

describe('overlapping subscriptions (MQTT 3.1.1 §3.3.5)', () => {
  it.each([
    ['QoS 0 first', [['a/+/c', 0] as const, ['a/b/#', 1] as const]],
    ['QoS 1 first', [['a/b/#', 1] as const, ['a/+/c', 0] as const]],
  ])('deliver a message once, at the highest granted QoS (%s)', async (_name, subscriptions) => {
    rig = await startTestBroker(pki);
    const subscriber = await rig.tcpClient('overlap-sub');
    for (const [filter, qos] of subscriptions) await subscriber.subscribeAsync(filter, { qos });
    const seen = inbox(subscriber);
    const publisher = await rig.tcpClient('overlap-pub');
    await publisher.publishAsync('a/b/c', 'one', { qos: 1 });
    await publisher.publishAsync('a/b/c', 'two', { qos: 2 });
    await seen.next(2);
    await sleep(100);
    expect(seen.messages.map(({ payload, qos }) => [payload, qos])).toEqual([
      ['one', 1],
      ['two', 1], // capped at the granted QoS 1, not passed on at the published 2
    ]);
  });
});

describe('a slow or frozen subscriber', () => {
  const PAYLOAD = Buffer.alloc(32 * 1024, 'x');
  const MESSAGES = 300;

  async function floodWithFrozenSubscriber(rigUnderTest: TestBroker) {
    const frozen = await rawClient(rigUnderTest.broker.tcpPort!, { read: false });
    frozen.send(connectPacket('frozen', true));
    frozen.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'load/#', qos: 1 }] });
    await waitFor(() => rigUnderTest.find('developer client connected: no identity, no ACL').length > 0);
    await sleep(50);
    const healthy = await rigUnderTest.tcpClient('healthy');
    await healthy.subscribeAsync('load/#', { qos: 1 });
    const seen = inbox(healthy);
    const publisher = await rigUnderTest.tcpClient('publisher');
    const started = Date.now();
    await Promise.all(
      Array.from({ length: MESSAGES }, (_, i) =>
        publisher.publishAsync(`load/${i % 10}`, PAYLOAD, { qos: 1 }),
      ),
    );
    await seen.next(MESSAGES, 10_000);
    return { frozen, elapsed: Date.now() - started, seen };
  }

  it('is cut when its queue passes the bound, and the others get everything at once', async () => {
    rig = await startTestBroker(pki, { maxQueuedPerClient: 50, drainTimeoutMs: 60_000 });
    const { frozen, elapsed, seen } = await floodWithFrozenSubscriber(rig);
    expect(seen.messages).toHaveLength(MESSAGES);
    expect(elapsed).toBeLessThan(10_000);
    // The frozen socket reads nothing, so it never sees the close: the broker's log tells.
    await waitFor(() => rig!.find('client disconnected').some((line) => line.clientId === 'frozen'));
    frozen.close();
    expect(rig.find('slow subscriber disconnected')).toMatchObject([
      { clientId: 'frozen', reason: 'queue limit reached' },
    ]);
  });

  it('is sent QoS 0 no faster than it reads: past the bound the broker drops QoS 0 for it, and keeps it connected', async () => {
    rig = await startTestBroker(pki, { drainTimeoutMs: 60_000 });
    const lagging = await rawClient(rig.broker.tcpPort!, { read: false });
    lagging.send(connectPacket('lagging', true));
    lagging.send({ cmd: 'subscribe', messageId: 1, subscriptions: [{ topic: 'load/#', qos: 0 }] });
    await waitFor(() => rig!.find('developer client connected: no identity, no ACL').length > 0);
    await sleep(50);
    const publisher = await rig.tcpClient('publisher');
    // 12.5 MB at QoS 0 for a client that reads nothing: more than the kernel's buffers and the
    // broker's 1 MB bound together, less than the 16 MB that would cut it.
    const FLOOD = 400;
    for (let i = 0; i < FLOOD; i += 1) await publisher.publishAsync(`load/${i}`, PAYLOAD, { qos: 0 });
    await sleep(300);

    const topics: string[] = [];
    const incoming = parser({ protocolVersion: 4 });
    incoming.on('packet', (packet: Packet) => {
      if (packet.cmd === 'publish') topics.push(packet.topic);
    });
    lagging.socket.on('data', (chunk: Buffer) => incoming.parse(chunk));
    await waitFor(() => rig!.find('QoS 0 messages dropped: the client fell behind').length > 0, 10_000);
    const [drops] = rig.find('QoS 0 messages dropped: the client fell behind');
    expect(drops).toMatchObject({ clientId: 'lagging', dropped: expect.any(Number) });
    await waitFor(() => topics.length + (drops!.dropped as number) >= FLOOD, 10_000);
    // Every message was either delivered or counted as dropped, the first ones delivered in order.
    expect(topics.length + (drops!.dropped as number)).toBe(FLOOD);
    expect(topics.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => `load/${i}`));
    // Caught up, it is sent everything again, and it was never cut.
    await publisher.publishAsync('load/after', 'small', { qos: 0 });
    await waitFor(() => topics.includes('load/after'));
    expect(rig.find('slow subscriber disconnected')).toEqual([]);
    lagging.close();
  });

  it('is cut when it does not drain within drainTimeout, without stalling the others meanwhile', async () => {
    rig = await startTestBroker(pki, { drainTimeoutMs: 5_000 });
    const { frozen, elapsed, seen } = await floodWithFrozenSubscriber(rig);
    // Everything reached the healthy subscriber while the frozen one was still connected.
    expect(seen.messages).toHaveLength(MESSAGES);
    expect(elapsed).toBeLessThan(5_000);
    expect(rig.find('client disconnected').some((line) => line.clientId === 'frozen')).toBe(false);
    await waitFor(() => rig!.find('client disconnected').some((line) => line.clientId === 'frozen'), 10_000);
    frozen.close();
    const errors = rig.find('client error; connection closed').filter((line) => line.clientId === 'frozen');
    expect(errors.map((line) => line.reason)).toContain('drain timeout');
  });
});
