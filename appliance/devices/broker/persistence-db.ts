/**
 * The broker's own SQLite file: sessions, subscriptions, QoS 1/2 messages in flight or queued for
 * offline clients, retained messages and wills. Kept apart from the store's database so the
 * broker's write rate never queues behind order commits, and its schema has no migrations to share.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import Database from 'better-sqlite3';
import { topicMatches } from '../../../shared/mqtt/topics.ts';

export const BROKER_DB_FILE = 'mqtt.sqlite';

/** A packet as aedes hands it over; only these fields are read here, the rest is kept as is. */
export interface StoredPacket {
  cmd?: string;
  topic?: string;
  payload?: Buffer | Uint8Array | string;
  qos?: number;
  retain?: boolean;
  dup?: boolean;
  messageId?: number | undefined;
  brokerId?: string | undefined;
  brokerCounter?: number;
  clientId?: string;
  [key: string]: unknown;
}

const SCHEMA = `
create table if not exists retained (topic text primary key, packet blob not null);
create table if not exists subscriptions (
  client_id text not null, topic text not null, record blob not null, primary key (client_id, topic));
create table if not exists outgoing (
  seq integer primary key autoincrement, client_id text not null, broker_id text,
  broker_counter integer, message_id integer, packet blob not null);
create index if not exists outgoing_by_message on outgoing (client_id, message_id);
create index if not exists outgoing_by_counter on outgoing (client_id, broker_id, broker_counter);
create table if not exists incoming (
  client_id text not null, message_id integer not null, packet blob not null,
  primary key (client_id, message_id));
create table if not exists wills (client_id text primary key, broker_id text not null, packet blob not null);
`;

export function openBrokerDb(dataDir: string) {
  mkdirSync(dataDir, { recursive: true });
  const db = new Database(join(dataDir, BROKER_DB_FILE));
  // An acknowledged QoS 1/2 message must survive a power cut, as an acknowledged order does.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('busy_timeout = 5000');
  db.exec(SCHEMA);
  return db;
}

export type BrokerDb = ReturnType<typeof openBrokerDb>;

export interface OutgoingRow {
  seq: number;
  message_id: number | null;
  packet: Buffer;
}

/** Every statement prepared once, named for what it does. */
export function brokerStatements(db: BrokerDb) {
  const firstByMessage =
    'select seq from outgoing where client_id = ? and message_id = ? and broker_id is not ? order by seq limit 1';
  return {
    allRetained: db.prepare('select topic, packet from retained order by rowid'),
    putRetained: db.prepare(
      'insert into retained (topic, packet) values (?, ?) on conflict (topic) do update set packet = excluded.packet',
    ),
    deleteRetained: db.prepare('delete from retained where topic = ?'),
    allSubscriptions: db.prepare('select client_id, topic, record from subscriptions order by rowid'),
    putSubscription: db.prepare(
      `insert into subscriptions (client_id, topic, record) values (?, ?, ?)
       on conflict (client_id, topic) do update set record = excluded.record`,
    ),
    deleteSubscription: db.prepare('delete from subscriptions where client_id = ? and topic = ?'),
    deleteSubscriptions: db.prepare('delete from subscriptions where client_id = ?'),
    enqueue: db.prepare(
      'insert into outgoing (client_id, broker_id, broker_counter, message_id, packet) values (?, ?, ?, null, ?)',
    ),
    setMessageId: db.prepare(
      `update outgoing set message_id = ? where seq = (select seq from outgoing
       where client_id = ? and broker_id = ? and broker_counter = ? order by seq limit 1)`,
    ),
    replaceByMessageId: db.prepare(
      `update outgoing set broker_id = ?, broker_counter = ?, message_id = ?, packet = ?
       where seq = (${firstByMessage})`,
    ),
    outgoingByMessage: db.prepare(
      'select seq, message_id, packet from outgoing where client_id = ? and message_id = ? order by seq limit 1',
    ),
    deleteOutgoing: db.prepare('delete from outgoing where seq = ?'),
    queuedByClient: db.prepare('select client_id, count(*) as queued from outgoing group by client_id'),
    lastQueued: db.prepare('select max(seq) as seq from outgoing where client_id = ?'),
    queuedPage: db.prepare(
      `select seq, message_id, packet from outgoing
       where seq > ? and seq <= ? and client_id = ? order by seq limit ?`,
    ),
    putIncoming: db.prepare(
      `insert into incoming (client_id, message_id, packet) values (?, ?, ?)
       on conflict (client_id, message_id) do update set packet = excluded.packet`,
    ),
    getIncoming: db.prepare('select packet from incoming where client_id = ? and message_id = ?'),
    deleteIncoming: db.prepare('delete from incoming where client_id = ? and message_id = ?'),
    deleteIncomingOf: db.prepare('delete from incoming where client_id = ?'),
    putWill: db.prepare(
      `insert into wills (client_id, broker_id, packet) values (?, ?, ?)
       on conflict (client_id) do update set broker_id = excluded.broker_id, packet = excluded.packet`,
    ),
    getWill: db.prepare('select packet from wills where client_id = ?'),
    deleteWill: db.prepare('delete from wills where client_id = ?'),
    allWills: db.prepare('select broker_id, packet from wills order by rowid'),
  };
}

/**
 * Packets are stored with V8's structured serialization: Buffers, strings, MQTT 5 properties and
 * `undefined` fields all come back as they went in. Functions (aedes keeps write callbacks on its
 * packets) are not part of a packet and are left out.
 */
export function encodePacket(packet: object): Buffer {
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(packet)) if (typeof value !== 'function') plain[key] = value;
  return serialize(plain);
}

export const decodePacket = (blob: Buffer) => deserialize(blob) as StoredPacket;

/**
 * The copy aedes-packet's `new Packet(original)` makes (no broker given): the routing fields only,
 * and no packet identifier for QoS > 0, since each receiver gets its own.
 */
export function packetCopy(original: StoredPacket): StoredPacket {
  const copy: StoredPacket = {};
  for (const key of ['clientId', 'nl', 'properties', 'messageExpiry'])
    if (Object.hasOwn(original, key)) copy[key] = original[key];
  copy.cmd = original.cmd || 'publish';
  copy.brokerId = original.brokerId || undefined;
  copy.brokerCounter = original.brokerCounter || 0;
  copy.topic = original.topic;
  copy.payload = original.payload || Buffer.alloc(0);
  copy.qos = original.qos || 0;
  copy.retain = original.retain || false;
  copy.dup = original.dup || false;
  if (copy.qos > 0 || copy.cmd !== 'publish') copy.messageId = undefined;
  return copy;
}

/** `+` and `#` in the first level do not match `$` topics (MQTT-4.7.2-1). */
export function matches(filter: string, topic: string) {
  if (topic.startsWith('$') && (filter.startsWith('+') || filter.startsWith('#'))) return false;
  return topicMatches(filter, topic);
}

/** The order aedes' own trie answers in: per level `#`, then the end, then a word, then `+`. */
const rank = (filter: string) => [...filter.split('/').map((l) => (l === '#' ? 0 : l === '+' ? 3 : 2)), 1];
export function byRank(a: { topic: string }, b: { topic: string }) {
  const ra = rank(a.topic);
  const rb = rank(b.topic);
  for (let i = 0; i < Math.min(ra.length, rb.length); i += 1) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
  return ra.length - rb.length;
}
