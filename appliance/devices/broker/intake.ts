/**
 * How much a client's connection hands to aedes at once. aedes reads everything its socket has
 * buffered (`conn.read(null)`: up to 64 KB, some 230 of the bench's 256-byte messages), parses it
 * all, and reads again only once every message of that batch has been routed. With ten busy
 * publishers that is thousands of messages in flight at a time, each living across several turns
 * of the event loop: long enough for V8 to promote them, and the 64 KB read buffers they point
 * into, to the old generation, where they pile up until a full collection (some 40 MB of heap and
 * 40 MB of buffers in the MQTT benchmark, most of the broker's peak memory).
 *
 * Here a batch is at most `maxBytes`: messages are routed within a turn or two and die young, and
 * throughput is the same (the next batch is read as soon as this one is routed). A batch that
 * ends inside a large packet gets its next slice on the next turn, since aedes, which would
 * otherwise wait for the socket's next 'readable', has nothing in flight to wake it.
 *
 * Before each batch it asks `gate` (backpressure.ts) too: while a subscriber is congested, the
 * batch waits, and is read once the gate says so.
 *
 * Works on per-connection members of aedes' Client (`_parsingBatch`, `_nextBatch`) that its
 * typings do not declare; the conformance tests fail if they change.
 */
import type { Duplex } from 'node:stream';
import type { Client } from 'aedes';
import type { Backpressure } from './backpressure.ts';

interface ClientInternals {
  closed: boolean;
  /** Messages of the current batch not yet routed; aedes reads the next batch at 0. */
  _parsingBatch: number;
  _nextBatch(): void;
}

/** 16 KB, a stream's default high-water mark: about 55 of the benchmark's messages. */
export const DEFAULT_BATCH_BYTES = 16 * 1024;

/** Call it right after `aedes.handle(conn)`, before any data is read. */
export function boundIntake(
  conn: Duplex,
  client: Client,
  gate?: Backpressure | undefined,
  maxBytes = DEFAULT_BATCH_BYTES,
) {
  const inner = client as unknown as ClientInternals;
  const read = conn.read.bind(conn);

  const readRest = () => {
    if (inner.closed || inner._parsingBatch !== 0 || conn.readableLength === 0) return;
    inner._nextBatch();
  };

  conn.read = (size?: number) => {
    // aedes asks for everything (null); anything else is someone else's business.
    if (typeof size === 'number') return read(size);
    if (gate && !gate.mayRead(conn, readRest)) return null;
    if (conn.readableLength <= maxBytes) return read(size);
    const batch = read(maxBytes);
    setImmediate(readRest);
    return batch;
  };
}
