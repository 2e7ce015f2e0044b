/**
 * An aedes 1.x persistence (the async interface of aedes-persistence 11, checked by its abstract
 * suite) on the appliance's disk, so sessions, subscriptions, QoS 1/2 messages and retained
 * messages survive a broker restart or a power cut.
 *
 * Every write is committed (WAL, synchronous=FULL) before its promise resolves, and aedes acts on a
 * message only after that. Writes arriving in one turn of the event loop share one commit (group
 * commit), and reads go through the same queue, so a read always sees the writes asked before it.
 * Subscriptions and retained messages are mirrored in memory too: aedes looks them up on every
 * publish and subscribe, and the store's broker holds few of them. So is how many messages each
 * client has queued: aedes asks to clear one at every PUBACK, and a client with none queued (every
 * clean session) is answered at once rather than by a read in the commit queue.
 */
import { Readable } from 'node:stream';
import { createGroupCommit } from '../../db/index.ts';
import {
  type BrokerDb,
  brokerStatements,
  byRank,
  decodePacket,
  encodePacket,
  matches,
  type OutgoingRow,
  openBrokerDb,
  packetCopy,
  type StoredPacket,
} from './persistence-db.ts';

interface ClientRef {
  id: string;
}
interface BrokerRef {
  id: string;
}
interface SubscriptionInput {
  topic: string;
  qos: number;
  rh?: number;
  rap?: boolean;
  nl?: boolean;
  subscriptionIdentifier?: number;
}
type SubscriptionRecord = Omit<SubscriptionInput, 'topic'>;

/** Queued messages read from disk at a time when a client's queue is replayed. */
const QUEUE_PAGE = 64;

const payloadLength = (packet: StoredPacket) => packet.payload?.length ?? 0;

export class SqlitePersistence {
  readonly #db: BrokerDb;
  readonly #sql: ReturnType<typeof brokerStatements>;
  readonly #commit: <T>(work: () => T) => Promise<T>;
  readonly #retained = new Map<string, StoredPacket>();
  readonly #subscriptions = new Map<string, Map<string, SubscriptionRecord>>();
  /** Rows in `outgoing` per client, counting enqueues asked for and not yet committed. */
  readonly #queued = new Map<string, number>();
  #broker: BrokerRef | undefined;
  #destroyed = false;

  constructor(dataDir: string) {
    this.#db = openBrokerDb(dataDir);
    this.#sql = brokerStatements(this.#db);
    this.#commit = createGroupCommit(this.#db);
    for (const row of this.#sql.allRetained.all() as Array<{ topic: string; packet: Buffer }>)
      this.#retained.set(row.topic, decodePacket(row.packet));
    type SubRow = { client_id: string; topic: string; record: Buffer };
    for (const row of this.#sql.allSubscriptions.all() as SubRow[])
      this.#clientSubscriptions(row.client_id).set(row.topic, decodePacket(row.record) as SubscriptionRecord);
    for (const row of this.#sql.queuedByClient.all() as Array<{ client_id: string; queued: number }>)
      this.#queued.set(row.client_id, row.queued);
  }

  get broker() {
    return this.#broker;
  }

  async setup(broker: BrokerRef) {
    this.#broker = broker;
  }

  #clientSubscriptions(clientId: string) {
    let stored = this.#subscriptions.get(clientId);
    if (!stored) {
      stored = new Map();
      this.#subscriptions.set(clientId, stored);
    }
    return stored;
  }

  async storeRetained(packet: StoredPacket) {
    const topic = packet.topic ?? '';
    const copy = { ...packet };
    if (payloadLength(copy) === 0) {
      this.#retained.delete(topic);
      await this.#commit(() => this.#sql.deleteRetained.run(topic));
      return;
    }
    this.#retained.set(topic, copy);
    const blob = encodePacket(copy);
    await this.#commit(() => this.#sql.putRetained.run(topic, blob));
  }

  createRetainedStreamCombi(patterns: string[]) {
    const retained = [...this.#retained];
    return Readable.from(
      patterns.flatMap((pattern) => retained.filter(([topic]) => matches(pattern, topic)).map(([, p]) => p)),
    );
  }

  createRetainedStream(pattern: string) {
    return this.createRetainedStreamCombi([pattern]);
  }

  async addSubscriptions(client: ClientRef, subs: SubscriptionInput[]) {
    const stored = this.#clientSubscriptions(client.id);
    const writes: Array<[string, Buffer]> = [];
    for (const { topic, subscriptionIdentifier, ...rest } of subs) {
      const record: SubscriptionRecord = { qos: rest.qos, rh: rest.rh, rap: rest.rap, nl: rest.nl };
      if (subscriptionIdentifier !== undefined) record.subscriptionIdentifier = subscriptionIdentifier;
      stored.set(topic, record);
      writes.push([topic, encodePacket(record)]);
    }
    await this.#commit(() => {
      for (const [topic, blob] of writes) this.#sql.putSubscription.run(client.id, topic, blob);
    });
  }

  async removeSubscriptions(client: ClientRef, topics: string[]) {
    const stored = this.#subscriptions.get(client.id);
    if (!stored) return;
    for (const topic of topics) stored.delete(topic);
    if (stored.size === 0) this.#subscriptions.delete(client.id);
    await this.#commit(() => {
      for (const topic of topics) this.#sql.deleteSubscription.run(client.id, topic);
    });
  }

  async subscriptionsByClient(client: ClientRef) {
    const stored = this.#subscriptions.get(client.id);
    return stored ? [...stored].map(([topic, record]) => ({ topic, ...record })) : [];
  }

  async countOffline() {
    let subsCount = 0;
    for (const stored of this.#subscriptions.values())
      for (const record of stored.values()) if (record.qos > 0) subsCount += 1;
    return { subsCount, clientsCount: this.#subscriptions.size };
  }

  /** Persistent QoS > 0 subscriptions matching a topic: whose messages are queued on disk. */
  async subscriptionsByTopic(topic: string) {
    const found = [];
    for (const [clientId, stored] of this.#subscriptions) {
      for (const [filter, { qos, rh, rap, nl }] of stored)
        if (qos > 0 && matches(filter, topic)) found.push({ clientId, topic: filter, qos, rh, rap, nl });
    }
    return found.sort(byRank);
  }

  async cleanSubscriptions(client: ClientRef) {
    if (!this.#subscriptions.delete(client.id)) return;
    await this.#commit(() => this.#sql.deleteSubscriptions.run(client.id));
  }

  async outgoingEnqueue(sub: { clientId: string }, packet: StoredPacket) {
    await this.outgoingEnqueueCombi([sub], packet);
  }

  async outgoingEnqueueCombi(subs: Array<{ clientId: string }>, packet: StoredPacket) {
    if (subs.length === 0) return;
    const copy = packetCopy(packet);
    const blob = encodePacket(copy);
    // Counted before the commit, so a clear asked meanwhile waits in the queue for the row.
    for (const { clientId } of subs) this.#countQueued(clientId, 1);
    try {
      await this.#commit(() => {
        for (const { clientId } of subs)
          this.#sql.enqueue.run(clientId, copy.brokerId ?? null, copy.brokerCounter ?? null, blob);
      });
    } catch (error) {
      for (const { clientId } of subs) this.#countQueued(clientId, -1);
      throw error;
    }
  }

  #countQueued(clientId: string, change: number) {
    const queued = (this.#queued.get(clientId) ?? 0) + change;
    if (queued > 0) this.#queued.set(clientId, queued);
    else this.#queued.delete(clientId);
  }

  /**
   * Records the packet identifier a queued message was sent with, or replaces the entry with that
   * identifier (a PUBREL taking the place of its PUBLISH), as the memory persistence does.
   */
  async outgoingUpdate(client: ClientRef, packet: StoredPacket) {
    const messageId = packet.messageId ?? null;
    const brokerId = packet.brokerId ?? null;
    const counter = packet.brokerCounter ?? null;
    const blob = encodePacket(packet);
    await this.#commit(() => {
      if (
        brokerId !== null &&
        this.#sql.setMessageId.run(messageId, client.id, brokerId, counter).changes > 0
      )
        return;
      const replaced = this.#sql.replaceByMessageId.run(
        brokerId,
        counter,
        messageId,
        blob,
        client.id,
        messageId,
        brokerId,
      );
      if (replaced.changes === 0) throw new Error('no such packet');
    });
  }

  async outgoingClearMessageId(client: ClientRef, packet: StoredPacket) {
    const messageId = packet?.messageId;
    if (typeof messageId !== 'number' || !this.#queued.has(client.id)) return undefined;
    const row = await this.#commit(() => {
      const found = this.#sql.outgoingByMessage.get(client.id, messageId) as OutgoingRow | undefined;
      if (found) this.#sql.deleteOutgoing.run(found.seq);
      return found;
    });
    if (!row) return undefined;
    // Only once committed: a count too high costs a read, one too low would keep a row forever.
    this.#countQueued(client.id, -1);
    return fromOutgoing(row);
  }

  /**
   * The client's queue as it stands now, oldest first (what is queued later reaches the client
   * live), read a page at a time: a device back from a long absence may have thousands waiting,
   * which aedes sends only as fast as the client reads. A message acknowledged meanwhile is skipped.
   */
  outgoingStream(client: ClientRef) {
    const sql = this.#sql;
    const commit = this.#commit;
    const last = commit(() => (sql.lastQueued.get(client.id) as { seq: number | null }).seq);
    return Readable.from(
      (async function* () {
        const until = await last;
        let after = 0;
        while (until !== null) {
          const page = () => sql.queuedPage.all(after, until, client.id, QUEUE_PAGE) as OutgoingRow[];
          const rows = await commit(page);
          for (const row of rows) yield fromOutgoing(row);
          if (rows.length < QUEUE_PAGE) return;
          after = rows[rows.length - 1]!.seq;
        }
      })(),
    );
  }

  async incomingStorePacket(client: ClientRef, packet: StoredPacket) {
    const copy = packetCopy(packet);
    copy.messageId = packet.messageId;
    const blob = encodePacket(copy);
    await this.#commit(() => this.#sql.putIncoming.run(client.id, packet.messageId, blob));
  }

  async incomingGetPacket(client: ClientRef, packet: StoredPacket) {
    const row = await this.#commit(
      () => this.#sql.getIncoming.get(client.id, packet.messageId) as { packet: Buffer } | undefined,
    );
    if (!row) throw new Error('no such packet');
    return decodePacket(row.packet);
  }

  async incomingDelPacket(client: ClientRef, packet: StoredPacket) {
    await this.#commit(() => {
      if (this.#sql.deleteIncoming.run(client.id, packet.messageId).changes === 0)
        throw new Error('no such packet');
    });
  }

  async cleanIncoming(client: ClientRef) {
    await this.#commit(() => this.#sql.deleteIncomingOf.run(client.id));
  }

  async putWill(client: ClientRef, packet: StoredPacket) {
    const brokerId = this.#broker?.id ?? '';
    packet.brokerId = brokerId;
    packet.clientId = client.id;
    const blob = encodePacket(packet);
    await this.#commit(() => this.#sql.putWill.run(client.id, brokerId, blob));
  }

  async getWill(client: ClientRef) {
    const row = await this.#commit(() => this.#sql.getWill.get(client.id) as { packet: Buffer } | undefined);
    return row ? decodePacket(row.packet) : undefined;
  }

  async delWill(client: ClientRef) {
    const row = await this.#commit(() => {
      const found = this.#sql.getWill.get(client.id) as { packet: Buffer } | undefined;
      if (found) this.#sql.deleteWill.run(client.id);
      return found;
    });
    return row ? decodePacket(row.packet) : undefined;
  }

  /** Wills left by brokers that are not alive: after a restart, every will of the last run. */
  streamWill(brokers: Record<string, unknown> = {}) {
    const rows = this.#commit(() => this.#sql.allWills.all() as Array<{ broker_id: string; packet: Buffer }>);
    return Readable.from(
      (async function* () {
        for (const row of await rows) if (!brokers[row.broker_id]) yield decodePacket(row.packet);
      })(),
    );
  }

  getClientList(topic: string) {
    const clients = [...this.#subscriptions].filter(([, stored]) => stored.has(topic)).map(([id]) => id);
    return Readable.from(clients);
  }

  /** Waits for the writes already asked for, then closes the file. */
  async destroy() {
    if (this.#destroyed) throw new Error('destroyed called twice!');
    this.#destroyed = true;
    await this.#commit(() => undefined);
    this.#db.close();
  }
}

function fromOutgoing(row: OutgoingRow) {
  const packet = decodePacket(row.packet);
  if (row.message_id !== null) packet.messageId = row.message_id;
  return packet;
}

export const createSqlitePersistence = (dataDir: string) => new SqlitePersistence(dataDir);
