/**
 * What a connection sends, checked before aedes parses it. Each packet's fixed header is read as
 * its bytes go by, so a packet larger than the limit closes the connection on its first bytes:
 * mqtt-packet, which has no limit of its own for MQTT 3.1.1, would buffer the whole declared
 * length (up to 256 MB, before authentication too) before looking at it. The rules of
 * packet-rules.ts are applied to the bytes they need (a PUBLISH's topic and identifier, a CONNECT,
 * SUBSCRIBE or UNSUBSCRIBE whole), which the limit bounds.
 *
 * A violation closes the connection (after CONNACK 0x01 for an unsupported protocol level) and
 * nothing of the read that carried it reaches aedes, so nothing the offending packet says is
 * routed. Like intake.ts, it works by wrapping `conn.read`, which aedes calls for every batch.
 */
import type { Duplex } from 'node:stream';
import {
  connectProblem,
  filtersProblem,
  publishHeadLength,
  publishProblem,
  type Violation,
} from './packet-rules.ts';

/**
 * 256 KiB. The largest messages our devices send are JSON status, telemetry, alerts and
 * acknowledgements the registry reads only up to 16 KiB (larger ones it skips), commands are
 * smaller still, and a screen's CONNECT carries a bearer token of a few KiB: 16 times the largest
 * useful payload leaves room for a device that batches, and keeps what one connection can make
 * the broker hold (aedes buffers a packet until it is whole) small on a store's appliance.
 */
export const DEFAULT_MAX_PACKET_BYTES = 256 * 1024;

const CONNECT = 1;
const PUBLISH = 3;
const SUBSCRIBE = 8;
const UNSUBSCRIBE = 10;
/** Packets whose remaining length MQTT 3.1.1 fixes: PUBACK, PUBREC, PUBREL, PUBCOMP; PINGREQ, DISCONNECT. */
const FIXED_LENGTHS = new Map([
  [4, 2],
  [5, 2],
  [6, 2],
  [7, 2],
  [12, 0],
  [14, 0],
]);
const CONNACK_UNACCEPTABLE_PROTOCOL = Buffer.from([0x20, 0x02, 0x00, 0x01]);

/** The packet whose body is being read. */
interface Body {
  first: number;
  length: number;
  /** Bytes of the body not seen yet; 0 between packets. */
  remaining: number;
  /** Bytes its check needs from the body's start (0: none, or checked), and those gathered so far. */
  need: number;
  parts: Buffer[];
  gathered: number;
}

const CHECKED = new Set([CONNECT, PUBLISH, SUBSCRIBE, UNSUBSCRIBE]);

/** The bytes a packet's check starts with: a PUBLISH's topic length, the others whole. */
function initialNeed(first: number, length: number) {
  const type = first >> 4;
  if (!CHECKED.has(type)) return 0;
  return type === PUBLISH ? Math.min(2, length) : length;
}

/** The check of the bytes gathered: a verdict, or (a PUBLISH's topic length read) a need for more. */
function inspect(body: Body, bytes: Buffer): { violation?: Violation | undefined; need?: number } {
  const type = body.first >> 4;
  if (type === CONNECT) return { violation: connectProblem(bytes) };
  if (type === SUBSCRIBE) return { violation: filtersProblem('SUBSCRIBE', bytes) };
  if (type === UNSUBSCRIBE) return { violation: filtersProblem('UNSUBSCRIBE', bytes) };
  const head = bytes.length >= 2 ? publishHeadLength(body.first, bytes.readUInt16BE(0)) : 0;
  if (bytes.length < head && head <= body.length) return { need: head };
  return { violation: publishProblem(body.first, bytes) };
}

/** The parts as one Buffer: a view when they lie side by side in one chunk. */
function joined(parts: Buffer[]) {
  const first = parts[0] ?? Buffer.alloc(0);
  let end = first.byteOffset + first.length;
  for (let i = 1; i < parts.length; i += 1) {
    if (parts[i]!.buffer !== first.buffer || parts[i]!.byteOffset !== end) return Buffer.concat(parts);
    end += parts[i]!.length;
  }
  return parts.length <= 1 ? first : Buffer.from(first.buffer, first.byteOffset, end - first.byteOffset);
}

/**
 * Follows the packets of one connection through the chunks it is read in; `scan` answers the
 * first violation in a chunk. Holds on to no more of a chunk than a check still needs, and, as it
 * sees every packet, allocates next to nothing for one whose checked bytes lie in one chunk.
 */
export function createPacketScanner(maxPacketBytes: number) {
  let packets = 0;
  // The fixed header being read: its first byte (-1: none yet), then the remaining length's digits.
  let first = -1;
  let digits = 0;
  let length = 0;
  const body: Body = { first: 0, length: 0, remaining: 0, need: 0, parts: [], gathered: 0 };

  /** The fixed header is whole: the packet's size and type are known, its body not yet read. */
  function headerRead(size: number): Violation | undefined {
    const type = first >> 4;
    if (size > maxPacketBytes)
      return { rule: 'maximum packet size', reason: `a packet of ${size} bytes, over ${maxPacketBytes}` };
    const fixed = FIXED_LENGTHS.get(type);
    if (fixed !== undefined && length !== fixed)
      return {
        rule: 'MQTT 3.1.1 §3',
        reason: `remaining length ${length} where the packet type has ${fixed}`,
      };
    packets += 1;
    body.first = first;
    body.length = length;
    body.remaining = length;
    body.need = initialNeed(first, length);
    body.gathered = 0;
    // An empty body is checked at once: a SUBSCRIBE or PUBLISH of length 0 is malformed.
    if (length === 0 && CHECKED.has(type)) return inspect(body, Buffer.alloc(0)).violation;
    return undefined;
  }

  function headerByte(byte: number): Violation | undefined {
    if (first === -1) {
      first = byte;
      // aedes would close too, but only once the whole packet was buffered.
      if (packets === 0 && byte >> 4 !== CONNECT)
        return { rule: 'MQTT-3.1.0-1', reason: 'a packet before CONNECT' };
      return undefined;
    }
    length += (byte & 0x7f) * 128 ** digits;
    digits += 1;
    if (byte & 0x80)
      return digits < 4
        ? undefined
        : { rule: 'MQTT-2.2.3', reason: 'a remaining length of more than four bytes' };
    const violation = headerRead(1 + digits + length);
    first = -1;
    digits = 0;
    length = 0;
    return violation;
  }

  /** Gathers what the check needs of the body's next `available` bytes, at `at`, and checks it once whole. */
  function gather(chunk: Buffer, at: number, available: number): Violation | undefined {
    // Nearly always a PUBLISH's topic and identifier lie in the chunk: checked where they are.
    if (body.gathered === 0 && body.first >> 4 === PUBLISH && available >= 2) {
      const head = publishHeadLength(body.first, chunk.readUInt16BE(at));
      if (head <= available) {
        body.need = 0;
        return publishProblem(body.first, chunk, at);
      }
    }
    let offset = 0;
    while (body.gathered < body.need && offset < available) {
      const step = Math.min(body.need - body.gathered, available - offset);
      body.parts.push(chunk.subarray(at + offset, at + offset + step));
      body.gathered += step;
      offset += step;
      if (body.gathered < body.need) return undefined;
      const bytes = joined(body.parts);
      const { violation, need = 0 } = inspect(body, bytes);
      if (violation) return violation;
      body.parts = need > 0 ? [bytes] : [];
      body.need = need;
    }
    return undefined;
  }

  return {
    scan(chunk: Buffer): Violation | undefined {
      let at = 0;
      while (at < chunk.length) {
        if (body.remaining === 0) {
          const violation = headerByte(chunk[at]!);
          at += 1;
          if (violation) return violation;
          continue;
        }
        const available = Math.min(chunk.length - at, body.remaining);
        const violation = body.need > body.gathered ? gather(chunk, at, available) : undefined;
        if (violation) return violation;
        at += available;
        body.remaining -= available;
        if (body.remaining === 0 && body.parts.length > 0) body.parts = [];
      }
      return undefined;
    },
  };
}

export interface InputGuardOptions {
  maxPacketBytes: number;
  /** Told of the violation before the connection is closed. */
  onViolation(violation: Violation): void;
}

/** Call it right after `aedes.handle(conn)`, before intake.ts's `boundIntake` and any read. */
export function guardInput(conn: Duplex, options: InputGuardOptions) {
  const read = conn.read.bind(conn);
  const scanner = createPacketScanner(options.maxPacketBytes);
  let violated = false;
  conn.read = (size?: number) => {
    if (violated) return null;
    const chunk: unknown = read(size);
    if (!Buffer.isBuffer(chunk)) return chunk;
    const violation = scanner.scan(chunk);
    if (!violation) return chunk;
    violated = true;
    options.onViolation(violation);
    if (violation.connack) conn.end(CONNACK_UNACCEPTABLE_PROTOCOL, () => conn.destroy());
    else conn.destroy();
    return null;
  };
}
