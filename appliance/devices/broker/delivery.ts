/**
 * How messages leave the broker for one client, where aedes 1.x is looser than we need.
 *
 * 1. Overlapping subscriptions (`a/+/c` at QoS 0 and `a/b/#` at QoS 1): aedes calls each matching
 *    subscription's deliverer, keeps the first and drops the rest, so the message goes out at the
 *    QoS of whichever fired first. MQTT 3.1.1 (3.3.5) wants the highest granted QoS, capped by the
 *    publish's own. Here one deliverer per message, at min(published, highest granted).
 * 2. A frozen subscriber: aedes holds the broker's delivery slot (mqemitter `concurrency`) until
 *    the client's socket drains, so one client that stops reading stalls everybody once the slots
 *    run out, until `drainTimeout` cuts it. Here the slot is released as soon as the message is
 *    handed to the client; what the client has not read yet is bounded per client (packets written
 *    past the socket's high-water mark, and bytes), and a client over the bound is cut at once. One
 *    that stops draining is cut after `drainTimeout` by aedes itself. A persistent session loses
 *    nothing by the cut: unacknowledged QoS 1/2 messages stay queued on disk for its return.
 *
 * 3. QoS 0 to a client that does not keep up: past `qos0DropBytes` unread, dropped, not queued.
 *
 * All work on per-connection members of aedes' Client (deliver0, deliverQoS, waitForDrain, conn,
 * subscriptions) that its typings do not declare; the conformance tests fail if they change.
 */
import type { Duplex } from 'node:stream';
import type { Client } from 'aedes';
import { topicMatches } from '../../../shared/mqtt/topics.ts';

type Callback = (error?: Error | null) => void;

interface DeliveredPacket {
  topic: string;
  qos: 0 | 1 | 2;
  brokerId?: string | null;
  brokerCounter?: number;
}

interface ClientInternals {
  conn: Duplex;
  subscriptions: Record<string, { qos: number }>;
  deliver0(packet: DeliveredPacket, done: Callback): void;
  deliverQoS(packet: DeliveredPacket, done: Callback): void;
  waitForDrain(done: (error?: Error | null, client?: unknown) => void): void;
}

export interface DeliveryLimits {
  /**
   * Bytes waiting in the connection's buffer past which QoS 0 messages to it are dropped rather
   * than queued (at most once allows it; Mosquitto does the same past its queue limit): a reader
   * slower than its publishers would otherwise have the broker hold what it cannot take.
   */
  qos0DropBytes: number;
  /** Told when a run of QoS 0 drops starts, and with how many the run dropped when it ends. */
  onQos0Drops(dropped: number): void;
  /** Packets written while the connection is over its high-water mark, before it is cut. */
  maxQueued: number;
  /** Bytes waiting in the connection's buffer, before it is cut. */
  maxQueuedBytes: number;
  /** Told once, when the client is cut for falling behind. */
  onCut(reason: string): void;
}

const noop = () => {};

/** The highest QoS granted to any of the client's subscriptions matching the topic. */
function grantedQos(subscriptions: ClientInternals['subscriptions'], topic: string): number | undefined {
  let granted: number | undefined;
  for (const filter in subscriptions) {
    if (topic.startsWith('$') && (filter.startsWith('+') || filter.startsWith('#'))) continue;
    if (!topicMatches(filter, topic)) continue;
    granted = Math.max(granted ?? 0, subscriptions[filter]!.qos);
  }
  return granted;
}

/** Installs the rules on a client; call it right after `aedes.handle`, before any subscription. */
export function guardDelivery(client: Client, limits: DeliveryLimits) {
  const inner = client as unknown as ClientInternals;
  const { deliver0, deliverQoS } = inner;
  const waitForDrain = inner.waitForDrain.bind(inner);
  const delivered = new Map<string, number>();

  function firstTime(packet: DeliveredPacket) {
    // Retained messages sent on SUBSCRIBE carry no broker id and are never duplicates.
    if (!packet.brokerId || packet.brokerCounter === undefined) return true;
    if ((delivered.get(packet.brokerId) ?? 0) >= packet.brokerCounter) return false;
    delivered.set(packet.brokerId, packet.brokerCounter);
    return true;
  }

  let droppedRun = 0;
  const endOfDrops = () => {
    limits.onQos0Drops(droppedRun);
    droppedRun = 0;
  };

  // Each subscription gets its own copy of the packet, so setting its QoS here is safe.
  function deliver(packet: DeliveredPacket, done: Callback) {
    setImmediate(done);
    if (!firstTime(packet)) return;
    const granted = grantedQos(inner.subscriptions, packet.topic);
    if (granted !== undefined) packet.qos = Math.min(packet.qos, granted) as DeliveredPacket['qos'];
    if (packet.qos !== 0) return deliverQoS(packet, noop);
    if (inner.conn.writableLength > limits.qos0DropBytes) {
      if (droppedRun === 0) inner.conn.once('drain', endOfDrops);
      droppedRun += 1;
      return;
    }
    deliver0(packet, noop);
  }
  inner.deliver0 = deliver;
  inner.deliverQoS = deliver;

  let waiting = 0;
  let cut = false;
  inner.waitForDrain = (done) => {
    const overCount = waiting >= limits.maxQueued;
    const overBytes = inner.conn.writableLength > limits.maxQueuedBytes;
    if (overCount || overBytes) {
      const reason = overCount ? 'queue limit reached' : 'byte limit reached';
      if (!cut) limits.onCut(reason);
      cut = true;
      inner.conn.destroy(new Error(`slow subscriber cut: ${reason}`));
      setImmediate(done, new Error('connection closed'), client);
      return;
    }
    waiting += 1;
    waitForDrain((error, who) => {
      waiting -= 1;
      done(error, who);
    });
  };
}
