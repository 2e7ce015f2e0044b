import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import pino from 'pino';
import { type BrokerOptions, startBroker } from '../../../../appliance/devices/broker/index.ts';
import { createDeviceCa, type DeviceCa, type IssuedCert } from '../../../support/device-certs.ts';

export const STORE = '01900000-0000-7000-8000-0000000000c3';
export const OTHER_STORE = '01900000-0000-7000-8000-0000000000c4';

export interface LogLine {
  level: number;
  msg: string;
  clientId?: string;
  topic?: string;
  reason?: string;
  [key: string]: unknown;
}

/** A pino logger whose lines a test can read back. */
export function capturedLog() {
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(JSON.parse(line) as LogLine) });
  return { log, lines, find: (msg: string) => lines.filter((line) => line.msg === msg) };
}

/** One CA and server certificate per test file: key generation is the slow part. */
export async function testPki() {
  const ca = await createDeviceCa();
  const server = await ca.server();
  return { ca, server };
}

export type Pki = Awaited<ReturnType<typeof testPki>>;

/** A broker on free ports (TCP and TLS) in a fresh data directory; `restart` keeps the directory. */
export async function startTestBroker(pki: Pki, options: Partial<BrokerOptions> = {}) {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'appliance-broker-'));
  const captured = capturedLog();
  const start = (ports: { tcp: number; tls: number }) =>
    startBroker({
      locationId: STORE,
      dataDir,
      log: captured.log,
      tcp: { host: '127.0.0.1', port: ports.tcp },
      tls: {
        host: '127.0.0.1',
        port: ports.tls,
        key: pki.server.key,
        cert: pki.server.cert,
        ca: pki.ca.cert,
      },
      ...options,
    });
  let broker = await start({ tcp: 0, tls: 0 });
  const clients: MqttClient[] = [];
  return {
    get broker() {
      return broker;
    },
    dataDir,
    ...captured,
    /** Closes the broker and starts it again on the same ports and the same directory. */
    async restart() {
      const ports = { tcp: broker.tcpPort ?? 0, tls: broker.tlsPort ?? 0 };
      await broker.close();
      broker = await start(ports);
    },
    /** An mqtt.js client over TLS with a certificate; closed by `close()`. */
    async tlsClient(cert: IssuedCert, clientId: string, extra: IClientOptions = {}) {
      const client = await connectAsync(
        `mqtts://127.0.0.1:${broker.tlsPort}`,
        {
          ca: pki.ca.cert,
          cert: cert.cert,
          key: cert.key,
          clientId,
          protocolVersion: 4,
          reconnectPeriod: 0,
          connectTimeout: 5000,
          ...extra,
        },
        false,
      );
      clients.push(client);
      return client;
    },
    async tcpClient(clientId: string, extra: IClientOptions = {}) {
      const client = await connectAsync(
        `mqtt://127.0.0.1:${broker.tcpPort}`,
        {
          clientId,
          protocolVersion: 4,
          reconnectPeriod: 0,
          ...extra,
        },
        false,
      );
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.endAsync(true).catch(() => {})));
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type TestBroker = Awaited<ReturnType<typeof startTestBroker>>;

/** Collects what a client receives; `next(n)` waits for n messages in all. */
export function inbox(client: MqttClient) {
  const messages: Array<{ topic: string; payload: string; qos: number; retain: boolean }> = [];
  client.on('message', (topic, payload, packet) =>
    messages.push({ topic, payload: payload.toString(), qos: packet.qos, retain: packet.retain }),
  );
  return {
    messages,
    async next(count: number, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${messages.length}`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return messages;
    },
  };
}

/** The SUBACK return codes for `filters` (mqtt.js rejects a SUBACK with any 0x80; this reads it anyway). */
export async function grants(client: MqttClient, filters: string[], qos: 0 | 1 | 2 = 0): Promise<number[]> {
  try {
    const granted = await client.subscribeAsync(filters, { qos });
    return granted.map((grant) => grant.qos);
  } catch (error) {
    const packet = (error as { packet?: { granted?: number[] } }).packet;
    if (!packet?.granted) throw error;
    return packet.granted;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function waitFor(check: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}

export type { DeviceCa };
