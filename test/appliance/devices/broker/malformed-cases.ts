import { once } from 'node:events';
import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { MqttClient } from 'mqtt';

/**
 * MQTT 3.1.1's normative input rules as a table of malformed packets, written byte by byte (no
 * client library writes them), and how one of them is tried on a broker over a raw socket. The
 * same table runs on both of our listeners (malformed.test.ts) and on Mosquitto
 * (scripts/bench/mqtt/conformance.ts), so the two tallies are of the same cases.
 */

const u16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);
const bytes = (value: string | Buffer) => (typeof value === 'string' ? Buffer.from(value, 'utf8') : value);
/** A length-prefixed string as it travels; a Buffer goes as it is, valid UTF-8 or not. */
const str = (value: string | Buffer) => Buffer.concat([u16(bytes(value).length), bytes(value)]);

export function remainingLength(length: number) {
  const out: number[] = [];
  let rest = length;
  do {
    let digit = rest % 128;
    rest = Math.floor(rest / 128);
    if (rest > 0) digit |= 0x80;
    out.push(digit);
  } while (rest > 0);
  return Buffer.from(out);
}

/** A fixed header (`first`: type and flags) over the body the parts make. */
export const packet = (first: number, ...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from([first]), remainingLength(body.length), body]);
};

export interface ConnectFields {
  clientId: string | Buffer;
  name?: string;
  level?: number;
  /** The connect flags as given, instead of the ones the fields imply. */
  flags?: number;
  will?: { topic: string | Buffer; qos?: number };
  username?: string | Buffer;
  password?: string;
}

export function connectPacket(fields: ConnectFields) {
  const { will, username, password } = fields;
  const implied =
    0x02 | // clean session
    (will ? 0x04 | ((will.qos ?? 0) << 3) : 0) |
    (username !== undefined ? 0x80 : 0) |
    (password !== undefined ? 0x40 : 0);
  return packet(
    0x10,
    str(fields.name ?? 'MQTT'),
    Buffer.from([fields.level ?? 4, fields.flags ?? implied]),
    u16(60),
    str(fields.clientId),
    will ? Buffer.concat([str(will.topic), str('gone')]) : Buffer.alloc(0),
    username !== undefined ? str(username) : Buffer.alloc(0),
    password !== undefined ? str(password) : Buffer.alloc(0),
  );
}

export interface PublishFields {
  topic: string | Buffer;
  qos?: number;
  dup?: boolean;
  id?: number;
  payload?: string;
}

export function publishPacket({ topic, qos = 0, dup = false, id = 1, payload = 'malformed' }: PublishFields) {
  return packet(
    0x30 | (dup ? 0x08 : 0) | (qos << 1),
    str(topic),
    qos > 0 ? u16(id) : Buffer.alloc(0),
    Buffer.from(payload),
  );
}

const subscribePacket = (filters: Array<[string | Buffer, number]>, id = 1, first = 0x82) =>
  packet(
    first,
    u16(id),
    ...filters.map(([filter, options]) => Buffer.concat([str(filter), Buffer.from([options])])),
  );

const unsubscribePacket = (filters: Array<string | Buffer>, id = 1, first = 0xa2) =>
  packet(first, u16(id), ...filters.map(str));

/** What a case's bytes are made of: the offender's client id and a topic the bystander reads. */
export interface CaseContext {
  clientId: string;
  topic: string;
}

export interface MalformedCase {
  name: string;
  /** The rule of MQTT 3.1.1 it breaks. */
  rule: string;
  /** Sent once a well-formed CONNECT was accepted; otherwise the connection's first bytes. */
  connected: boolean;
  bytes(context: CaseContext): Buffer;
  /** close: the connection is closed, nothing answered; connack-1: CONNACK 0x01, then closed. */
  expect: 'close' | 'connack-1';
}

/** Bytes that are not well-formed UTF-8 (RFC 3629), or are code points MQTT forbids. */
export const BAD_UTF8 = {
  invalid: Buffer.from([0xc3, 0x28]), // a lead byte without its continuation
  surrogate: Buffer.from([0xed, 0xa0, 0x80]), // U+D800 in CESU-8 form
  overlong: Buffer.from([0xc0, 0xaf]), // '/' in two bytes
  beyondUnicode: Buffer.from([0xf4, 0x90, 0x80, 0x80]), // U+110000
  nul: Buffer.from([0x00]),
  // Well-formed, but code points a receiver MAY refuse (MQTT 3.1.1 §1.5.3); Mosquitto does.
  control: Buffer.from([0x01]),
  nonCharacter: Buffer.from([0xef, 0xbf, 0xbf]), // U+FFFF
};

const withBytes = (topic: string, bad: Buffer) => Buffer.concat([Buffer.from(`${topic}/`), bad]);

const connectCase = (
  name: string,
  rule: string,
  fields: (context: CaseContext) => ConnectFields,
  expect: MalformedCase['expect'] = 'close',
): MalformedCase => ({
  name,
  rule,
  connected: false,
  bytes: (context) => connectPacket(fields(context)),
  expect,
});

const afterConnect = (name: string, rule: string, bytes: MalformedCase['bytes']): MalformedCase => ({
  name,
  rule,
  connected: true,
  bytes,
  expect: 'close',
});

export const MALFORMED_CASES: MalformedCase[] = [
  // CONNECT
  connectCase(
    'CONNECT with protocol level 6',
    'MQTT-3.1.2-2',
    ({ clientId }) => ({ clientId, level: 6 }),
    'connack-1',
  ),
  connectCase(
    'CONNECT with protocol level 2',
    'MQTT-3.1.2-2',
    ({ clientId }) => ({ clientId, level: 2 }),
    'connack-1',
  ),
  connectCase(
    'CONNECT naming MQTT with protocol level 3 (MQTT 3.1 is MQIsdp)',
    'MQTT-3.1.2-2',
    ({ clientId }) => ({ clientId, level: 3 }),
    'connack-1',
  ),
  connectCase('CONNECT naming another protocol', 'MQTT-3.1.2-1', ({ clientId }) => ({
    clientId,
    name: 'MQTX',
  })),
  connectCase('CONNECT with the reserved flag set', 'MQTT-3.1.2-3', ({ clientId }) => ({
    clientId,
    flags: 0x03,
  })),
  connectCase('CONNECT with a password and no user name', 'MQTT-3.1.2-22', ({ clientId }) => ({
    clientId,
    password: 'secret',
  })),
  connectCase('CONNECT with will QoS 3', 'MQTT-3.1.2-14', ({ clientId, topic }) => ({
    clientId,
    will: { topic, qos: 3 },
  })),
  connectCase('CONNECT with will retain but no will', 'MQTT-3.1.2-15', ({ clientId }) => ({
    clientId,
    flags: 0x22,
  })),
  connectCase('CONNECT with # in the will topic', 'MQTT-3.1.2-9, MQTT-4.7.1-1', ({ clientId, topic }) => ({
    clientId,
    will: { topic: `${topic}/#` },
  })),
  connectCase('CONNECT with + in the will topic', 'MQTT-3.1.2-9, MQTT-4.7.1-1', ({ clientId, topic }) => ({
    clientId,
    will: { topic: `${topic}/+` },
  })),
  connectCase('CONNECT with invalid UTF-8 in the will topic', 'MQTT-1.5.3-1', ({ clientId, topic }) => ({
    clientId,
    will: { topic: withBytes(topic, BAD_UTF8.invalid) },
  })),
  connectCase('CONNECT with invalid UTF-8 in the client id', 'MQTT-1.5.3-1', ({ clientId }) => ({
    clientId: withBytes(clientId, BAD_UTF8.invalid),
  })),
  connectCase('CONNECT with a surrogate in the client id', 'MQTT-1.5.3-1', ({ clientId }) => ({
    clientId: withBytes(clientId, BAD_UTF8.surrogate),
  })),
  connectCase('CONNECT with U+0000 in the client id', 'MQTT-1.5.3-2', ({ clientId }) => ({
    clientId: withBytes(clientId, BAD_UTF8.nul),
  })),
  connectCase('CONNECT with invalid UTF-8 in the user name', 'MQTT-1.5.3-1', ({ clientId }) => ({
    clientId,
    username: BAD_UTF8.invalid,
  })),
  {
    name: 'CONNECT with reserved header flags',
    rule: 'MQTT-2.2.2-2',
    connected: false,
    bytes: ({ clientId }) => Buffer.concat([Buffer.from([0x11]), connectPacket({ clientId }).subarray(1)]),
    expect: 'close',
  },
  {
    name: 'PUBLISH before CONNECT',
    rule: 'MQTT-3.1.0-1',
    connected: false,
    bytes: ({ topic }) => publishPacket({ topic }),
    expect: 'close',
  },
  afterConnect('a second CONNECT', 'MQTT-3.1.0-2', ({ clientId }) => connectPacket({ clientId })),

  // PUBLISH
  afterConnect('PUBLISH with invalid UTF-8 in the topic', 'MQTT-1.5.3-1', ({ topic }) =>
    publishPacket({ topic: withBytes(topic, BAD_UTF8.invalid) }),
  ),
  afterConnect('PUBLISH with a surrogate (CESU-8) in the topic', 'MQTT-1.5.3-1', ({ topic }) =>
    publishPacket({ topic: withBytes(topic, BAD_UTF8.surrogate) }),
  ),
  afterConnect('PUBLISH with an overlong encoding in the topic', 'MQTT-1.5.3-1', ({ topic }) =>
    publishPacket({ topic: withBytes(topic, BAD_UTF8.overlong) }),
  ),
  afterConnect('PUBLISH with a code point past U+10FFFF in the topic', 'MQTT-1.5.3-1', ({ topic }) =>
    publishPacket({ topic: withBytes(topic, BAD_UTF8.beyondUnicode) }),
  ),
  afterConnect('PUBLISH with U+0000 in the topic', 'MQTT-1.5.3-2', ({ topic }) =>
    publishPacket({ topic: withBytes(topic, BAD_UTF8.nul) }),
  ),
  afterConnect(
    'PUBLISH with a control character (U+0001) in the topic',
    'MQTT 3.1.1 §1.5.3 (MAY close)',
    ({ topic }) => publishPacket({ topic: withBytes(topic, BAD_UTF8.control) }),
  ),
  afterConnect(
    'PUBLISH with a non-character (U+FFFF) in the topic',
    'MQTT 3.1.1 §1.5.3 (MAY close)',
    ({ topic }) => publishPacket({ topic: withBytes(topic, BAD_UTF8.nonCharacter) }),
  ),
  afterConnect('PUBLISH with an empty topic', 'MQTT-4.7.3-1', () => publishPacket({ topic: '' })),
  afterConnect('PUBLISH with # in the topic', 'MQTT-3.3.2-2', ({ topic }) =>
    publishPacket({ topic: `${topic}/#` }),
  ),
  afterConnect('PUBLISH with + in the topic', 'MQTT-3.3.2-2', ({ topic }) =>
    publishPacket({ topic: `${topic}/+` }),
  ),
  afterConnect('PUBLISH at QoS 3', 'MQTT-3.3.1-4', ({ topic }) => publishPacket({ topic, qos: 3 })),
  afterConnect('PUBLISH at QoS 1 with packet identifier 0', 'MQTT-2.3.1-1', ({ topic }) =>
    publishPacket({ topic, qos: 1, id: 0 }),
  ),
  afterConnect('PUBLISH at QoS 2 with packet identifier 0', 'MQTT-2.3.1-1', ({ topic }) =>
    publishPacket({ topic, qos: 2, id: 0 }),
  ),
  afterConnect('PUBLISH at QoS 0 with DUP set', 'MQTT-3.3.1-2', ({ topic }) =>
    publishPacket({ topic, dup: true }),
  ),

  // SUBSCRIBE and UNSUBSCRIBE
  afterConnect('SUBSCRIBE with no topic filter', 'MQTT-3.8.3-3', () => subscribePacket([])),
  afterConnect('SUBSCRIBE with reserved header flags', 'MQTT-3.8.1-1', ({ topic }) =>
    subscribePacket([[topic, 1]], 1, 0x80),
  ),
  afterConnect('SUBSCRIBE asking QoS 3', 'MQTT-3.8.3-4', ({ topic }) => subscribePacket([[topic, 3]])),
  afterConnect('SUBSCRIBE with reserved option bits', 'MQTT-3.8.3-4', ({ topic }) =>
    subscribePacket([[topic, 0x05]]),
  ),
  afterConnect('SUBSCRIBE with packet identifier 0', 'MQTT-2.3.1-1', ({ topic }) =>
    subscribePacket([[topic, 1]], 0),
  ),
  afterConnect('SUBSCRIBE with an empty filter', 'MQTT-4.7.3-1', () => subscribePacket([['', 1]])),
  afterConnect('SUBSCRIBE with # not last', 'MQTT-4.7.1-2', () => subscribePacket([['a/#/b', 1]])),
  afterConnect('SUBSCRIBE with + inside a level', 'MQTT-4.7.1-3', () => subscribePacket([['a/b+/c', 1]])),
  afterConnect('SUBSCRIBE with invalid UTF-8 in the filter', 'MQTT-1.5.3-1', ({ topic }) =>
    subscribePacket([[withBytes(topic, BAD_UTF8.invalid), 1]]),
  ),
  afterConnect('UNSUBSCRIBE with no topic filter', 'MQTT-3.10.3-2', () => unsubscribePacket([])),
  afterConnect('UNSUBSCRIBE with reserved header flags', 'MQTT-3.10.1-1', ({ topic }) =>
    unsubscribePacket([topic], 1, 0xa0),
  ),
  afterConnect('UNSUBSCRIBE with packet identifier 0', 'MQTT-2.3.1-1', ({ topic }) =>
    unsubscribePacket([topic], 0),
  ),
  afterConnect('UNSUBSCRIBE with a surrogate in the filter', 'MQTT-1.5.3-1', ({ topic }) =>
    unsubscribePacket([withBytes(topic, BAD_UTF8.surrogate)]),
  ),

  // Framing and packet types
  afterConnect('a remaining length of five bytes', 'MQTT-2.2.3 (at most four bytes)', () =>
    Buffer.from([0x30, 0xff, 0xff, 0xff, 0xff, 0x7f]),
  ),
  afterConnect('PUBREL with reserved header flags', 'MQTT-3.6.1-1', () => packet(0x60, u16(1))),
  afterConnect('PINGREQ with reserved header flags', 'MQTT-2.2.2-2', () => Buffer.from([0xc1, 0x00])),
  afterConnect('PUBACK with a remaining length of 3', 'MQTT 3.1.1 §3.4.1 (remaining length 2)', () =>
    Buffer.from([0x40, 0x03, 0x00, 0x01, 0x00]),
  ),
  afterConnect('PINGREQ with a payload', 'MQTT 3.1.1 §3.12 (no variable header, no payload)', () =>
    Buffer.from([0xc0, 0x01, 0x00]),
  ),
  afterConnect('DISCONNECT with a payload', 'MQTT 3.1.1 §3.14 (no variable header, no payload)', () =>
    Buffer.from([0xe0, 0x01, 0x00]),
  ),
  afterConnect('packet type 0 (reserved)', 'MQTT-2.2.1 (reserved type)', () => Buffer.from([0x00, 0x00])),
  afterConnect('packet type 15 (reserved)', 'MQTT-2.2.1 (reserved type)', () => Buffer.from([0xf0, 0x00])),
  afterConnect('CONNACK from a client', 'MQTT-4.8.0-1 (a server-to-client packet)', () =>
    Buffer.from([0x20, 0x02, 0x00, 0x00]),
  ),
];

/** Where a case is tried: a port on 127.0.0.1, with a client certificate for TLS. */
export interface Target {
  port: number;
  tls?: { ca: string; cert: string; key: string } | undefined;
}

export interface Outcome {
  /** The broker closed the connection within the time allowed. */
  closed: boolean;
  /** Every byte the broker sent after the case's bytes (the CONNACK of its own CONNECT excluded). */
  answer: number[];
  /** The CONNECT that came first was refused (only for `connected` cases). */
  refused?: number[];
}

/** A raw socket to the target, connected (and through the TLS handshake); its errors are swallowed. */
export async function openSocket(target: Target) {
  const socket: Socket = target.tls
    ? connectTls({ port: target.port, host: '127.0.0.1', ...target.tls })
    : connectTcp(target.port, '127.0.0.1');
  socket.on('error', () => {});
  await once(socket, target.tls ? 'secureConnect' : 'connect');
  return socket;
}

/** Resolves with the bytes received once `count` have arrived (or the socket ended, with fewer). */
function received(socket: Socket, count: number) {
  const chunks: Buffer[] = [];
  return new Promise<Buffer>((resolve) => {
    const settle = () => {
      socket.off('data', onData);
      resolve(Buffer.concat(chunks));
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      if (Buffer.concat(chunks).length >= count) settle();
    };
    socket.on('data', onData);
    socket.once('close', settle);
  });
}

/**
 * Connects (with a well-formed CONNECT first for `connected` cases), sends the case's bytes, and
 * waits at most `closeWithinMs` for the broker to close the connection; closes it if the broker
 * did not. What the offender might have published is for the caller to look for.
 */
export async function tryCase(
  target: Target,
  malformed: MalformedCase,
  context: CaseContext,
  closeWithinMs: number,
): Promise<Outcome> {
  const socket = await openSocket(target);
  // Not events.once: it rejects on 'error', and a broker may well reset the connection.
  const closed = new Promise<boolean>((resolve) => socket.once('close', () => resolve(true)));
  try {
    if (malformed.connected) {
      const connack = received(socket, 4);
      socket.write(connectPacket({ clientId: context.clientId }));
      const silence = new Promise<Buffer>((resolve) =>
        setTimeout(resolve, closeWithinMs, Buffer.alloc(0)).unref(),
      );
      const answer = await Promise.race([connack, silence]);
      // Refused, or not answered in time: the case could not be tried.
      if (!answer.equals(Buffer.from([0x20, 0x02, 0x00, 0x00])))
        return { closed: false, answer: [], refused: [...answer] };
    }
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.write(malformed.bytes(context));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(resolve, closeWithinMs, false);
    });
    const wasClosed = await Promise.race([closed, timeout]);
    clearTimeout(timer);
    return { closed: wasClosed, answer: [...Buffer.concat(chunks)] };
  } finally {
    socket.destroy();
  }
}

/** Whether an outcome is what the case expects of a conforming broker. */
export function conforms(malformed: MalformedCase, outcome: Outcome) {
  if (outcome.refused || !outcome.closed) return false;
  const expected = malformed.expect === 'connack-1' ? [0x20, 0x02, 0x00, 0x01] : [];
  return outcome.answer.length === expected.length && outcome.answer.every((byte, i) => byte === expected[i]);
}

export interface CaseResult {
  name: string;
  rule: string;
  expect: MalformedCase['expect'];
  closed: boolean;
  answer: number[];
  /** Topics the bystander subscriber received from the offender. */
  routed: string[];
  /** The bystanders still exchanged a message after the case. */
  bystandersAlive: boolean;
  passed: boolean;
}

export interface Bystanders {
  /** Subscribed to everything the offender's topic and the publisher's topic can be. */
  subscriber: MqttClient;
  publisher: MqttClient;
  publisherTopic: string;
}

const waitUntil = async (check: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
};

/**
 * Runs cases one after the other on one broker, with two bystanders on their own connections:
 * after each case the publisher sends a marker and the subscriber must get it, and nothing else
 * (a message routed from the offender before its close reaches the subscriber before the marker).
 */
export function caseRunner(
  target: Target,
  context: CaseContext,
  bystanders: Bystanders,
  closeWithinMs = 2000,
) {
  const heard: string[] = [];
  bystanders.subscriber.on('message', (topic, payload) =>
    heard.push(topic === bystanders.publisherTopic ? `marker:${payload}` : topic),
  );
  let markers = 0;
  return async (malformed: MalformedCase): Promise<CaseResult> => {
    const from = heard.length;
    const outcome = await tryCase(target, malformed, context, closeWithinMs);
    markers += 1;
    const marker = `marker:${markers}`;
    let bystandersAlive = false;
    try {
      await bystanders.publisher.publishAsync(bystanders.publisherTopic, String(markers), { qos: 1 });
      bystandersAlive = await waitUntil(() => heard.includes(marker), 5000);
    } catch {
      bystandersAlive = false;
    }
    const routed = heard.slice(from).filter((entry) => !entry.startsWith('marker:'));
    return {
      name: malformed.name,
      rule: malformed.rule,
      expect: malformed.expect,
      closed: outcome.closed,
      answer: outcome.answer,
      routed,
      bystandersAlive,
      passed: conforms(malformed, outcome) && routed.length === 0,
    };
  };
}
