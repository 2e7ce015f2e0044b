/**
 * How a connection's packets reach its socket. mqtt-packet writes a PUBLISH as six small writes
 * (header, length, topic length, topic, packet id, payload), each a Writable entry with objects of
 * its own, and corks the socket until the next tick. A busy broker then pays the stream machinery
 * six times a packet, and a subscriber that falls behind has six entries a packet waiting in its
 * socket's buffer: objects that outlive a young-generation collection and stay until a full one.
 *
 * Here the writes of one turn of the event loop are gathered and handed to the socket once after
 * the turn (`setImmediate`), as one Buffer of their exact size: one entry, one TLS record and one
 * system call per connection and turn. A write is answered as the socket would answer it (false
 * while it needs to drain, so aedes' flow control and the limits of delivery.ts still see a full
 * socket); anything but a plain chunk (a callback, an encoding) goes through in order after the
 * pending bytes, and `end` sends them first.
 *
 * Works on the connection's own `write`, `end`, `cork` and `uncork`; call it right after
 * `aedes.handle(conn)`, before anything is written.
 */
import type { Writable } from 'node:stream';
import { writeToStream } from 'mqtt-packet';

/**
 * mqtt-packet otherwise builds, on its first packet, a 2-byte Buffer for each of the 65,536
 * packet identifiers: some 6 MB of heap for the life of the process, to save an allocation a
 * packet that dies young anyway. Set for every user of mqtt-packet in the process (mqtt.js too).
 */
writeToStream.cacheNumbers = false;

/** Pending bytes past which a turn's writes are handed over at once rather than after it. */
export const FLUSH_BYTES = 64 * 1024;

type WriteCallback = (error?: Error | null) => void;
type Write = (chunk: unknown, encoding?: unknown, callback?: WriteCallback) => boolean;

/** The parts as one Buffer of their exact size (small ones from Node's shared pool). */
function joined(parts: Array<Buffer | string>, bytes: number) {
  if (parts.length === 1 && typeof parts[0] !== 'string') return parts[0]!;
  const out = Buffer.allocUnsafe(bytes);
  let at = 0;
  for (const part of parts) at += typeof part === 'string' ? out.write(part, at) : part.copy(out, at);
  return out;
}

export function coalesceWrites(conn: Writable) {
  const write = conn.write.bind(conn) as Write;
  const end = conn.end.bind(conn) as (...args: unknown[]) => Writable;
  const parts: Array<Buffer | string> = [];
  let pending = 0;
  let scheduled = false;

  const flush = () => {
    scheduled = false;
    if (parts.length === 0) return;
    const chunk = joined(parts, pending);
    parts.length = 0;
    pending = 0;
    if (!conn.destroyed) write(chunk);
  };

  conn.write = ((chunk: unknown, encoding?: unknown, callback?: WriteCallback) => {
    const plain = encoding === undefined && callback === undefined;
    if (!plain || (typeof chunk !== 'string' && !Buffer.isBuffer(chunk)) || conn.destroyed) {
      flush();
      return write(chunk, encoding, callback);
    }
    parts.push(chunk);
    pending += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (pending >= FLUSH_BYTES) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    return !conn.writableNeedDrain;
  }) as Writable['write'];

  conn.end = ((...args: unknown[]) => {
    flush();
    return end(...args);
  }) as Writable['end'];

  // The turn's writes already go out as one; corking would only hold them past it.
  conn.cork = () => {};
  conn.uncork = () => {};
}
