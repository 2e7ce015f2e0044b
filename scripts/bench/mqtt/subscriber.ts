/**
 * The benchmark's subscriber, in a process of its own (forked by the bench, asked over IPC, see
 * protocol.ts): one mqtt.js client on the store's telemetry filter. It counts every message of the
 * current case by publisher and sequence number (lost, duplicated, out of order) and its latency
 * from the send stamp. A slow subscriber handles messages at a fixed rate and, as mqtt.js reads the
 * next packet only once the last is handled, reads no faster: the broker's queue for it grows.
 */
import { connectAsync, type MqttClient } from 'mqtt';
import { clientOptions, noDelay } from './clients.ts';
import { serveRequests } from './control.ts';
import { decodeMessage, stamp } from './payload.ts';
import type { Progress, SubscriberRequest, SubscriberStats } from './protocol.ts';
import { percentiles, Samples } from './stats.ts';

/** Which sequence numbers of one publisher arrived (a byte each, grown as they come). */
class Seen {
  bytes = new Uint8Array(1024);
  highest = -1;

  has(sequence: number) {
    return sequence < this.bytes.length && this.bytes[sequence] === 1;
  }

  add(sequence: number) {
    if (sequence >= this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, sequence + 1));
      grown.set(this.bytes);
      this.bytes = grown;
    }
    this.bytes[sequence] = 1;
    this.highest = Math.max(this.highest, sequence);
  }
}

class Tally {
  received = 0;
  unique = 0;
  duplicates = 0;
  stale = 0;
  outOfOrder = 0;
  firstArrival = 0;
  lastArrival = 0;
  disconnects = 0;
  reconnects = 0;
  readonly latencies = new Samples();
  readonly seen = new Map<number, Seen>();

  constructor(
    readonly runId: number,
    readonly clockCorrection: number,
  ) {}

  record(payload: Buffer) {
    const arrival = stamp();
    const head = decodeMessage(payload);
    if (!head || head.runId !== this.runId) {
      this.stale += 1;
      return;
    }
    this.received += 1;
    if (this.firstArrival === 0) this.firstArrival = arrival;
    this.lastArrival = arrival;
    let seen = this.seen.get(head.publisher);
    if (!seen) {
      seen = new Seen();
      this.seen.set(head.publisher, seen);
    }
    if (seen.has(head.sequence)) {
      this.duplicates += 1;
      return;
    }
    if (head.sequence < seen.highest) this.outOfOrder += 1;
    seen.add(head.sequence);
    this.unique += 1;
    this.latencies.push(arrival - head.sentAt - this.clockCorrection);
  }

  stats(sent: number[]): SubscriberStats {
    let lost = 0;
    let gaps = 0;
    const lostByPublisher: Record<string, number> = {};
    sent.forEach((count, publisher) => {
      const seen = this.seen.get(publisher);
      let missing = 0;
      for (let sequence = 0; sequence < count; sequence += 1) {
        if (seen?.has(sequence)) continue;
        if (sequence === 0 || seen?.has(sequence - 1)) gaps += 1;
        missing += 1;
      }
      lost += missing;
      if (missing > 0) lostByPublisher[String(publisher)] = missing;
    });
    return {
      received: this.received,
      unique: this.unique,
      duplicates: this.duplicates,
      stale: this.stale,
      out_of_order: this.outOfOrder,
      lost,
      gaps,
      lost_by_publisher: lostByPublisher,
      first_arrival: this.firstArrival,
      last_arrival: this.lastArrival,
      latency_ms: percentiles(this.latencies.view()),
      disconnects: this.disconnects,
      reconnects: this.reconnects,
    };
  }
}

let client: MqttClient | undefined;
let tally = new Tally(-1, 0);

/** Calls `done` when the last message handled is `1 / rate` s old: a steady `rate` per second. */
function throttle(rate: number) {
  let nextFree = 0;
  return (done: () => void) => {
    const now = performance.now();
    nextFree = Math.max(nextFree, now) + 1000 / rate;
    const wait = nextFree - now;
    if (wait < 1) done();
    else setTimeout(done, wait);
  };
}

async function connect(request: Extract<SubscriberRequest, { op: 'connect' }>) {
  await disconnect();
  const { subscriber, qos, clean, ratePerSecond, reconnectMs } = request;
  const options = clientOptions(subscriber, { clean, reconnectPeriod: reconnectMs });
  const connected = noDelay(await connectAsync(subscriber.url, options, false));
  const pace = ratePerSecond ? throttle(ratePerSecond) : undefined;
  connected.handleMessage = (packet, done) => {
    tally.record(packet.payload as Buffer);
    if (pace) pace(() => done());
    else done();
  };
  connected.on('error', () => {}); // a cut shows as 'close'
  // A failed reconnection attempt closes too: only a connection that was up counts as lost.
  let up = true;
  connected.on('connect', () => {
    up = true;
  });
  connected.on('close', () => {
    if (up && client === connected) tally.disconnects += 1;
    up = false;
  });
  connected.on('reconnect', () => {
    tally.reconnects += 1;
  });
  client = connected;
  const granted = await connected.subscribeAsync(subscriber.filter, { qos });
  if (granted.some((grant) => grant.qos !== qos))
    throw new Error(`subscription to ${subscriber.filter} granted ${JSON.stringify(granted)}`);
}

async function disconnect() {
  const closing = client;
  client = undefined;
  await closing?.endAsync(true).catch(() => {});
}

const progress = (): Progress => ({ unique: tally.unique, last_arrival: tally.lastArrival });

serveRequests<SubscriberRequest>(async (request) => {
  switch (request.op) {
    case 'now':
      return stamp();
    case 'connect':
      return connect(request);
    case 'start':
      tally = new Tally(request.runId, request.clockCorrection);
      return undefined;
    case 'progress':
      return progress();
    case 'stats':
      return tally.stats(request.sent);
    case 'disconnect':
      return disconnect();
  }
});
