/**
 * MQTT 3.1.1's rules on what a client sends that mqtt-packet and aedes leave unchecked, as pure
 * functions over a packet's raw bytes. They must see the bytes: mqtt-packet decodes every string
 * leniently (ill-formed UTF-8 becomes U+FFFD), so after parsing an invalid topic can no longer be
 * told from a valid one. Already enforced by the libraries, and so not here: header flag bits and
 * QoS 3 (MQTT-2.2.2-2, MQTT-3.3.1-4), CONNECT's reserved flag and will flags without a will
 * (MQTT-3.1.2-3, -13, -15), SUBSCRIBE's option bits and QoS, empty topics and filters, wildcards in
 * a PUBLISH topic or misplaced in a filter, a second CONNECT. Packets before CONNECT, which aedes
 * refuses too, input-guard.ts refuses on their first byte, so that they are never buffered.
 */
import { isUtf8 } from 'node:buffer';

export interface Violation {
  /** The rule broken, as MQTT 3.1.1 numbers it where it does. */
  rule: string;
  reason: string;
  /** Answered with this CONNACK return code before the connection is closed. */
  connack?: 1;
}

const violation = (rule: string, reason: string): Violation => ({ rule, reason });
const malformed = (what: string) => violation('MQTT-4.8.0-1 (malformed)', `${what} runs past its packet`);

/** Reads a packet body front to back; undefined once a field would run past its end. */
class Fields {
  private at = 0;
  constructor(private readonly body: Buffer) {}

  get left() {
    return this.body.length - this.at;
  }

  byte() {
    if (this.left < 1) return undefined;
    this.at += 1;
    return this.body[this.at - 1];
  }

  u16() {
    if (this.left < 2) return undefined;
    this.at += 2;
    return this.body.readUInt16BE(this.at - 2);
  }

  /** A length-prefixed string or binary field, as bytes. */
  prefixed() {
    const length = this.u16();
    if (length === undefined || this.left < length) return undefined;
    this.at += length;
    return this.body.subarray(this.at - length, this.at);
  }
}

/** Printable ASCII, as topics and ids nearly always are: nothing more to look at. A loop: it runs per PUBLISH. */
function printable(bytes: Buffer, start: number, end: number) {
  for (let i = start; i < end; i += 1) if (bytes[i]! < 0x20 || bytes[i]! >= 0x7f) return false;
  return true;
}

const isNonCharacter = (cp: number) => (cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) === 0xfffe;
const isControl = (cp: number) => cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);

/**
 * Why a UTF-8 string field is refused, or undefined. MUST (MQTT-1.5.3-1, -2): well-formed UTF-8
 * (no surrogates, overlong forms or code points past U+10FFFF) and no U+0000. MAY, and Mosquitto
 * does, as we do: no control characters and no non-characters, which no topic or id of ours has
 * and which would only reach logs and screens.
 */
export function stringProblem(bytes: Buffer, field: string): Violation | undefined {
  if (printable(bytes, 0, bytes.length)) return undefined;
  if (bytes.includes(0)) return violation('MQTT-1.5.3-2', `U+0000 in the ${field}`);
  if (!isUtf8(bytes)) return violation('MQTT-1.5.3-1', `ill-formed UTF-8 in the ${field}`);
  for (const char of bytes.toString('utf8')) {
    const cp = char.codePointAt(0)!;
    if (isControl(cp)) return violation('MQTT 3.1.1 §1.5.3', `a control character in the ${field}`);
    if (isNonCharacter(cp)) return violation('MQTT 3.1.1 §1.5.3', `a non-character in the ${field}`);
  }
  return undefined;
}

/** The protocol names we speak and the level each goes with: MQTT 3.1.1, and 3.1 before it. */
const PROTOCOL_LEVELS = new Map([
  ['MQTT', 4],
  ['MQIsdp', 3],
]);

function willProblem(fields: Fields, flags: number): Violation | undefined {
  if ((flags & 0x18) === 0x18) return violation('MQTT-3.1.2-14', 'will QoS 3');
  const topic = fields.prefixed();
  if (!topic || !fields.prefixed()) return malformed('CONNECT’s will');
  const problem = stringProblem(topic, 'will topic');
  if (problem) return problem;
  // The will is published as it is: its topic is a topic name, with a name's rules.
  if (topic.length === 0) return violation('MQTT-4.7.3-1', 'an empty will topic');
  if (topic.includes(0x23) || topic.includes(0x2b))
    return violation('MQTT-3.1.2-9, MQTT-4.7.1-1', 'a wildcard in the will topic');
  return undefined;
}

/** CONNECT, whole: an unsupported protocol level is answered CONNACK 0x01 (MQTT-3.1.2-2). */
export function connectProblem(body: Buffer): Violation | undefined {
  const fields = new Fields(body);
  const name = fields.prefixed();
  const level = fields.byte();
  const flags = fields.byte();
  if (!name || level === undefined || flags === undefined || fields.u16() === undefined)
    return malformed('CONNECT');
  const protocol = name.toString('latin1');
  const expected = PROTOCOL_LEVELS.get(protocol);
  if (expected === undefined) return violation('MQTT-3.1.2-1', `protocol name "${protocol}"`);
  // The top bit marks a bridge, which aedes accepts; the level is the rest.
  if ((level & 0x7f) !== expected)
    return { ...violation('MQTT-3.1.2-2', `protocol level ${level} for ${protocol}`), connack: 1 };
  const hasWill = flags & 0x04;
  const hasPassword = flags & 0x40;
  const hasUser = flags & 0x80;
  if (hasPassword && !hasUser) return violation('MQTT-3.1.2-22', 'a password without a user name');
  const clientId = fields.prefixed();
  if (!clientId) return malformed('CONNECT’s client id');
  const problem = stringProblem(clientId, 'client id') ?? (hasWill ? willProblem(fields, flags) : undefined);
  if (problem) return problem;
  if (hasUser) {
    const user = fields.prefixed();
    if (!user) return malformed('CONNECT’s user name');
    const userProblem = stringProblem(user, 'user name');
    if (userProblem) return userProblem;
  }
  if (hasPassword && !fields.prefixed()) return malformed('CONNECT’s password');
  return fields.left === 0
    ? undefined
    : violation('MQTT-4.8.0-1 (malformed)', 'bytes after CONNECT’s fields');
}

/** How many bytes of a PUBLISH body `publishProblem` needs: its topic, and its identifier past QoS 0. */
export function publishHeadLength(first: number, topicLength: number) {
  return 2 + topicLength + ((first >> 1) & 3 ? 2 : 0);
}

/**
 * PUBLISH, from its fixed header's first byte and its body, which starts at `at` in `bytes` with
 * at least `publishHeadLength` bytes: read where it lies, as this runs for every message.
 */
export function publishProblem(first: number, bytes: Buffer, at = 0): Violation | undefined {
  const qos = (first >> 1) & 3;
  if (qos === 0 && first & 0x08) return violation('MQTT-3.3.1-2', 'DUP set on a QoS 0 PUBLISH');
  if (bytes.length < at + 2) return malformed('PUBLISH’s topic');
  const end = at + 2 + bytes.readUInt16BE(at);
  if (bytes.length < end) return malformed('PUBLISH’s topic');
  const problem = printable(bytes, at + 2, end)
    ? undefined
    : stringProblem(bytes.subarray(at + 2, end), 'topic');
  if (problem || qos === 0) return problem;
  if (bytes.length < end + 2) return malformed('PUBLISH’s packet identifier');
  return bytes.readUInt16BE(end) === 0
    ? violation('MQTT-2.3.1-1', 'packet identifier 0 on a QoS 1 or 2 PUBLISH')
    : undefined;
}

/** SUBSCRIBE (options byte after each filter) or UNSUBSCRIBE, whole. */
export function filtersProblem(kind: 'SUBSCRIBE' | 'UNSUBSCRIBE', body: Buffer): Violation | undefined {
  const fields = new Fields(body);
  const id = fields.u16();
  if (id === undefined) return malformed(`${kind}’s packet identifier`);
  if (id === 0) return violation('MQTT-2.3.1-1', `packet identifier 0 on ${kind}`);
  if (fields.left === 0)
    return violation(
      kind === 'SUBSCRIBE' ? 'MQTT-3.8.3-3' : 'MQTT-3.10.3-2',
      `${kind} without a topic filter`,
    );
  while (fields.left > 0) {
    const filter = fields.prefixed();
    if (!filter || (kind === 'SUBSCRIBE' && fields.byte() === undefined))
      return malformed(`${kind}’s filter`);
    const problem = stringProblem(filter, 'topic filter');
    if (problem) return problem;
  }
  return undefined;
}
