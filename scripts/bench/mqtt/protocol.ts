/**
 * What the bench asks of its load processes (publishers.ts, subscriber.ts) over their IPC channel,
 * and what they answer. Times are ms on each process's own wall clock (payload.ts `stamp`).
 */
import type { Percentiles } from './stats.ts';

export interface ClientSpec {
  url: string;
  clientId: string;
  /** Client certificate and the CA that signed the broker's: the TLS variant only. */
  tls?: { ca: string; cert: string; key: string } | undefined;
}

export interface PublisherSpec extends ClientSpec {
  topic: string;
}

export interface SubscriberSpec extends ClientSpec {
  filter: string;
}

export type QoS = 0 | 1;

export type PublishMode =
  /** Each publisher sends as fast as its window allows for `seconds`. */
  | { kind: 'saturated'; seconds: number; window: number }
  /** Each publisher sends `perPublisher` messages as fast as its window allows. */
  | { kind: 'burst'; perPublisher: number; window: number }
  /** `rate` messages per second in all, each on its slot of an even schedule. */
  | { kind: 'paced'; seconds: number; rate: number };

export type PublisherRequest =
  | { op: 'now' }
  | { op: 'connect'; publishers: PublisherSpec[] }
  | { op: 'publish'; runId: number; qos: QoS; size: number; mode: PublishMode }
  | { op: 'disconnect' };

export interface PublishResult {
  /** Per publisher: messages written to the socket (QoS 0) or acknowledged by the broker (QoS 1). */
  sent: number[];
  errors: number;
  first_error: string | null;
  started_at: number;
  ended_at: number;
  /** Paced: how far behind its slot each message left (the scheduler's own lateness). */
  late_ms: Percentiles | null;
}

export type SubscriberRequest =
  | { op: 'now' }
  | {
      op: 'connect';
      subscriber: SubscriberSpec;
      qos: QoS;
      /** false: a persistent session, kept by the broker while the subscriber is away. */
      clean: boolean;
      /** Handles at most this many messages per second, and reads no faster (a slow screen). */
      ratePerSecond: number | null;
      /** 0: a lost connection stays lost. */
      reconnectMs: number;
    }
  /** Counts from zero for the messages of `runId`; `clockCorrection` is subscriber minus publisher clock. */
  | { op: 'start'; runId: number; clockCorrection: number }
  | { op: 'progress' }
  | { op: 'stats'; sent: number[] }
  | { op: 'disconnect' };

export interface Progress {
  unique: number;
  last_arrival: number;
}

export interface SubscriberStats {
  received: number;
  unique: number;
  duplicates: number;
  /** Messages of an earlier case (a persistent session's redeliveries); not counted otherwise. */
  stale: number;
  /** Arrived after a later message of the same publisher. */
  out_of_order: number;
  /** Sent and never received. */
  lost: number;
  /** Runs of consecutive lost messages (a drop policy loses runs, a race single ones). */
  gaps: number;
  lost_by_publisher: Record<string, number>;
  first_arrival: number;
  last_arrival: number;
  /** From the send stamp to arrival, with the clock correction applied. */
  latency_ms: Percentiles;
  /** Connections lost (closed by the broker or the network) while the case ran. */
  disconnects: number;
  reconnects: number;
}
