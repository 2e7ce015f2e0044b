import type { Socket } from 'node:net';
import type { Client } from 'aedes';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_PACKET_BYTES } from '../../../../appliance/devices/broker/input-guard.ts';
import { connectPacket, openSocket, publishPacket, type Target } from './malformed-cases.ts';
import { inbox, type Pki, STORE, startTestBroker, type TestBroker, testPki, waitFor } from './support.ts';

let pki: Pki;
let rig: TestBroker | undefined;
const sockets: Socket[] = [];
beforeAll(async () => {
  pki = await testPki();
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await rig?.close();
  rig = undefined;
});

const DEVICE = 'fridge-big';
/** The largest remaining length MQTT can declare: 268,435,455 bytes (256 MB). */
const HUGE_LENGTH = [0xff, 0xff, 0xff, 0x7f];
const CONNACK_OK = Buffer.from([0x20, 0x02, 0x00, 0x00]);

async function targetOf(transport: 'tcp' | 'tls'): Promise<Target> {
  if (transport === 'tcp') return { port: rig!.broker.tcpPort! };
  const cert = await pki.ca.device('sensor', STORE, DEVICE);
  return { port: rig!.broker.tlsPort!, tls: { ca: pki.ca.cert, cert: cert.cert, key: cert.key } };
}

/** `promise`, or a failure naming what did not happen within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string) {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function open(target: Target) {
  const socket = await openSocket(target);
  sockets.push(socket);
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now())));
  return { socket, closed };
}

/** Connects with a well-formed CONNECT and waits for CONNACK 0. */
async function connected(target: Target) {
  const opened = await open(target);
  const connack = new Promise<Buffer>((resolve) => opened.socket.once('data', resolve));
  opened.socket.write(connectPacket({ clientId: DEVICE }));
  expect(await within(connack, 2000, 'CONNACK')).toEqual(CONNACK_OK);
  return opened;
}

/**
 * Writes `header`, then zeros 64 KiB at a time as fast as the socket takes them, until the broker
 * closes it or `upTo` bytes are written: answers how many were written, and when it closed.
 */
async function stream(opened: Awaited<ReturnType<typeof open>>, header: number[], upTo: number) {
  const { socket, closed } = opened;
  const started = performance.now();
  let isClosed = false;
  void closed.then(() => (isClosed = true));
  socket.write(Buffer.from(header));
  const chunk = Buffer.alloc(64 * 1024);
  let written = 0;
  while (!isClosed && written < upTo) {
    written += chunk.length;
    if (!socket.write(chunk))
      await new Promise((resolve) => {
        socket.once('drain', resolve);
        void closed.then(resolve);
      });
  }
  return { written, closedAfterMs: (await within(closed, 2000, 'the close')) - started };
}

describe('the maximum packet size', () => {
  it.each(['tcp', 'tls'] as const)(
    'cuts a connection declaring a 256 MB PUBLISH on its fixed header, before any of it is buffered (%s)',
    async (transport) => {
      rig = await startTestBroker(pki);
      const parsers: Array<{ _list: { length: number } }> = [];
      rig.broker.aedes.on('client', (client: Client) =>
        parsers.push((client as unknown as { _parser: (typeof parsers)[number] })._parser),
      );
      const opened = await connected(await targetOf(transport));
      const { written, closedAfterMs } = await stream(opened, [0x30, ...HUGE_LENGTH], 64 * 1024 * 1024);
      // Closed within a second (some 20 ms here), having taken no more than the kernel's socket
      // buffers hold (some 4 MB over TCP, 200 KB over TLS here) of the 64 MB it would have sent.
      expect(closedAfterMs).toBeLessThan(1000);
      expect(written).toBeLessThan(16 * 1024 * 1024);
      // aedes' parser was handed none of it.
      expect(parsers.map((parser) => parser._list.length)).toEqual([0]);
      expect(rig.find('protocol violation; connection closed')).toMatchObject([
        {
          clientId: DEVICE,
          transport,
          rule: 'maximum packet size',
          reason: `a packet of 268435460 bytes, over ${DEFAULT_MAX_PACKET_BYTES}`,
        },
      ]);
    },
  );

  it('cuts a connection declaring a 256 MB CONNECT, before authentication', async () => {
    rig = await startTestBroker(pki);
    const { written, closedAfterMs } = await stream(
      await open(await targetOf('tcp')),
      [0x10, ...HUGE_LENGTH],
      64 * 1024 * 1024,
    );
    expect(closedAfterMs).toBeLessThan(1000);
    expect(written).toBeLessThan(16 * 1024 * 1024);
    expect(rig.find('protocol violation; connection closed')).toMatchObject([
      { clientId: null, rule: 'maximum packet size' },
    ]);
  });

  it.each(['tcp', 'tls'] as const)(
    'passes a packet of exactly the limit (256 KiB by default) and cuts one a byte over (%s)',
    async (transport) => {
      rig = await startTestBroker(pki);
      const board = await rig.tcpClient('size-board');
      await board.subscribeAsync('edge/#', { qos: 2 });
      const seen = inbox(board);
      const topic = `edge/sensor/${STORE}/${DEVICE}/telemetry`;
      // A QoS 0 PUBLISH: 1 byte of type, 3 of remaining length, 2 + topic, payload.
      const payloadFor = (size: number) => 'x'.repeat(size - 1 - 3 - 2 - topic.length);
      const atLimit = publishPacket({ topic, payload: payloadFor(DEFAULT_MAX_PACKET_BYTES) });
      expect(atLimit.length).toBe(DEFAULT_MAX_PACKET_BYTES);

      const { socket, closed } = await connected(await targetOf(transport));
      socket.write(atLimit);
      await seen.next(1, 2000);
      expect(seen.messages[0]?.payload.length).toBe(payloadFor(DEFAULT_MAX_PACKET_BYTES).length);
      socket.write(publishPacket({ topic, payload: payloadFor(DEFAULT_MAX_PACKET_BYTES + 1) }));
      await within(closed, 2000, 'the close');
      await waitFor(() => rig!.find('protocol violation; connection closed').length === 1);
      expect(seen.messages).toHaveLength(1);
    },
  );

  it('is the one the broker is given', async () => {
    rig = await startTestBroker(pki, { maxPacketBytes: 16 * 1024 });
    const { socket, closed } = await connected(await targetOf('tcp'));
    socket.write(publishPacket({ topic: 'big', payload: 'x'.repeat(16 * 1024) }));
    await within(closed, 2000, 'the close');
    expect(rig.find('protocol violation; connection closed')).toMatchObject([
      { reason: `a packet of ${16 * 1024 + 9} bytes, over ${16 * 1024}` },
    ]);
  });
});
