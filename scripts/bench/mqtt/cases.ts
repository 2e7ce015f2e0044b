/**
 * One case of the MQTT benchmark against one broker: the subscriber and the publishers connect
 * afresh, the publishers send, the bench waits until every message sent has arrived (or none has
 * for `quietMs`), and the subscriber's counts, the broker's memory and everybody's CPU are read.
 */
import { round } from '../lib/load.ts';
import type { LoadProcess } from './control.ts';
import type { MqttPlan } from './plan.ts';
import { cpuMeter, rssPeak, syscallMeter } from './proc.ts';
import type {
  Progress,
  PublisherRequest,
  PublisherSpec,
  PublishMode,
  PublishResult,
  QoS,
  SubscriberRequest,
  SubscriberSpec,
  SubscriberStats,
} from './protocol.ts';
import type { Percentiles } from './stats.ts';

export const CASE_NAMES = [
  'qos0-saturated',
  'qos1-saturated',
  'qos1-saturated-1-in-flight',
  'qos0-paced',
  'qos1-paced',
  'qos1-slow-subscriber',
] as const;
export type CaseName = (typeof CASE_NAMES)[number];

export interface CaseDefinition {
  name: CaseName | 'warm-up';
  qos: QoS;
  mode: PublishMode;
  /** false: the subscriber keeps a persistent session. */
  clean: boolean;
  /** Messages per second the subscriber handles; null: as fast as it can. */
  subscriberRate: number | null;
}

export function caseDefinitions(plan: MqttPlan): CaseDefinition[] {
  const saturated: PublishMode = { kind: 'saturated', seconds: plan.saturatedSeconds, window: plan.window };
  const paced: PublishMode = { kind: 'paced', seconds: plan.pacedSeconds, rate: plan.pacedRate };
  const fast = { clean: true, subscriberRate: null };
  return [
    { name: 'qos0-saturated', qos: 0, mode: saturated, ...fast },
    { name: 'qos1-saturated', qos: 1, mode: saturated, ...fast },
    // Each publisher awaits its PUBACK before the next: the publishers cannot outrun the route.
    { name: 'qos1-saturated-1-in-flight', qos: 1, mode: { ...saturated, window: 1 }, ...fast },
    { name: 'qos0-paced', qos: 0, mode: paced, ...fast },
    { name: 'qos1-paced', qos: 1, mode: paced, ...fast },
    {
      // Last: its persistent session stays on the broker afterwards.
      name: 'qos1-slow-subscriber',
      qos: 1,
      mode: { kind: 'burst', perPublisher: plan.slowBurstPerPublisher, window: plan.window },
      clean: false,
      subscriberRate: plan.slowSubscriberRate,
    },
  ];
}

export const warmUp = (plan: MqttPlan): CaseDefinition => ({
  name: 'warm-up',
  qos: 1,
  mode: { kind: 'saturated', seconds: plan.warmupSeconds, window: plan.window },
  clean: true,
  subscriberRate: null,
});

export interface LoadRig {
  publishers: LoadProcess<PublisherRequest>;
  subscriber: LoadProcess<SubscriberRequest>;
  /** The subscriber's clock minus the publishers' (ms), subtracted from every latency. */
  clockCorrection: number;
}

/** The peaks of a Node broker's `process.memoryUsage()` (MB). */
export interface HeapPeak {
  heap_total_mb: number;
  heap_used_mb: number;
  external_mb: number;
  array_buffers_mb: number;
}

export interface BrokerUnderTest {
  pid: number;
  publishers: PublisherSpec[];
  subscriber: SubscriberSpec;
  /** What the broker logged since `mark()`: warnings by message, and its heap if it tells. */
  log: {
    mark(): number;
    since(mark: number): { warnings: Record<string, number>; memory: HeapPeak | null };
  };
}

export interface CaseMeasurement {
  case: CaseName | 'warm-up';
  qos: QoS;
  mode: PublishMode;
  subscriber_session: 'clean' | 'persistent';
  subscriber_rate: number | null;
  publishing: {
    seconds: number;
    sent: number;
    sent_per_sec: number;
    errors: number;
    first_error: string | null;
    /** Paced: how late messages left on their schedule. */
    late_ms: Percentiles | null;
  };
  delivery: {
    received: number;
    unique: number;
    lost: number;
    lost_percent: number;
    gaps: number;
    duplicates: number;
    out_of_order: number;
    stale: number;
    lost_by_publisher: Record<string, number>;
    /** Unique messages over the time from the first send to the last arrival. */
    delivered_per_sec: number;
    /** From the publishers' last send to the last arrival. */
    drain_ms: number;
    /** complete: every message sent arrived; quiet: none arrived for quietMs; timeout. */
    ended: 'complete' | 'quiet' | 'timeout';
    disconnects: number;
    reconnects: number;
    latency_ms: Percentiles;
  };
  cpu_percent: Record<string, number>;
  broker_rss_peak_mb: number;
  /** Our broker: the peaks of its V8 heap and of memory outside it (Buffers) during the case. */
  broker_heap_peak: HeapPeak | null;
  /** The broker's read and write system calls during the case (/proc/<pid>/io), and writes per message delivered. */
  broker_syscalls: { reads: number; writes: number; writes_per_message: number | null } | null;
  /** Set when the case ran twice because other processes took CPU: the outside load of the run not kept. */
  other_run: { others_cpu_percent: number } | null;
  /** Warnings our broker logged (Mosquitto: every log line) during the case, by message. */
  broker_log: Record<string, number>;
}

const POLL_MS = 50;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

function hardLimitMs(definition: CaseDefinition, plan: MqttPlan) {
  const { mode } = definition;
  if (mode.kind === 'burst') {
    const total = mode.perPublisher * plan.publishers;
    return (total / (definition.subscriberRate ?? plan.pacedRate)) * 3000 + 30_000;
  }
  return mode.seconds * 1000 + 60_000;
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string) {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until `expected` unique messages arrived, or none arrived for `quietMs`, or `deadline`. */
async function arrivals(rig: LoadRig, expected: number, quietMs: number, deadline: number) {
  let last = -1;
  let changedAt = performance.now();
  for (;;) {
    const { unique } = await rig.subscriber.request<Progress>({ op: 'progress' });
    if (unique >= expected) return 'complete' as const;
    const now = performance.now();
    if (unique !== last) {
      last = unique;
      changedAt = now;
    }
    if (now - changedAt >= quietMs) return 'quiet' as const;
    if (now >= deadline) return 'timeout' as const;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function measurement(
  definition: CaseDefinition,
  published: PublishResult,
  stats: SubscriberStats,
  ended: CaseMeasurement['delivery']['ended'],
  correction: number,
): Omit<
  CaseMeasurement,
  'cpu_percent' | 'broker_rss_peak_mb' | 'broker_heap_peak' | 'broker_syscalls' | 'broker_log' | 'other_run'
> {
  const sent = sum(published.sent);
  const seconds = (published.ended_at - published.started_at) / 1000;
  const lastArrival = stats.last_arrival - correction;
  const { received, unique, lost, gaps, duplicates, out_of_order, stale, lost_by_publisher } = stats;
  return {
    case: definition.name,
    qos: definition.qos,
    mode: definition.mode,
    subscriber_session: definition.clean ? 'clean' : 'persistent',
    subscriber_rate: definition.subscriberRate,
    publishing: {
      seconds: round(seconds, 3),
      sent,
      sent_per_sec: round(sent / seconds, 0),
      errors: published.errors,
      first_error: published.first_error,
      late_ms: published.late_ms,
    },
    delivery: {
      received,
      unique,
      lost,
      lost_percent: sent === 0 ? 0 : round((lost / sent) * 100, 2),
      gaps,
      duplicates,
      out_of_order,
      stale,
      lost_by_publisher,
      delivered_per_sec: unique === 0 ? 0 : round(unique / ((lastArrival - published.started_at) / 1000), 0),
      drain_ms: unique === 0 ? 0 : round(Math.max(0, lastArrival - published.ended_at), 1),
      ended,
      disconnects: stats.disconnects,
      reconnects: stats.reconnects,
      latency_ms: stats.latency_ms,
    },
  };
}

/** Publishes and waits for the arrivals, with the broker's memory and everybody's CPU meanwhile. */
async function publishAndDrain(
  rig: LoadRig,
  broker: BrokerUnderTest,
  definition: CaseDefinition,
  plan: MqttPlan,
  runId: number,
) {
  const { publishers, subscriber } = rig;
  const cpu = cpuMeter({
    broker: broker.pid,
    publishers: publishers.pid,
    subscriber: subscriber.pid,
    bench: process.pid,
  });
  const stopRss = rssPeak(broker.pid);
  const syscalls = syscallMeter(broker.pid);
  try {
    const limit = hardLimitMs(definition, plan);
    const deadline = performance.now() + limit;
    const request: PublisherRequest = {
      op: 'publish',
      runId,
      qos: definition.qos,
      size: plan.messageBytes,
      mode: definition.mode,
    };
    const published = await withTimeout(publishers.request<PublishResult>(request), limit, 'publishing');
    const ended = await arrivals(rig, sum(published.sent), plan.quietMs, deadline);
    return { published, ended, syscalls: syscalls(), cpuPercent: cpu(), rssPeakMb: stopRss() };
  } finally {
    stopRss();
  }
}

export async function runCase(
  rig: LoadRig,
  broker: BrokerUnderTest,
  definition: CaseDefinition,
  plan: MqttPlan,
  runId: number,
): Promise<CaseMeasurement> {
  const { publishers, subscriber, clockCorrection } = rig;
  try {
    await subscriber.request({
      op: 'connect',
      subscriber: broker.subscriber,
      qos: definition.qos,
      clean: definition.clean,
      ratePerSecond: definition.subscriberRate,
      reconnectMs: plan.reconnectMs,
    });
    await publishers.request({ op: 'connect', publishers: broker.publishers });
    await subscriber.request({ op: 'start', runId, clockCorrection });
    const mark = broker.log.mark();
    const { published, ended, syscalls, cpuPercent, rssPeakMb } = await publishAndDrain(
      rig,
      broker,
      definition,
      plan,
      runId,
    );
    const stats = await subscriber.request<SubscriberStats>({ op: 'stats', sent: published.sent });
    const logged = broker.log.since(mark);
    return {
      ...measurement(definition, published, stats, ended, clockCorrection),
      cpu_percent: cpuPercent,
      broker_rss_peak_mb: rssPeakMb,
      broker_heap_peak: logged.memory,
      broker_syscalls: syscalls && {
        ...syscalls,
        writes_per_message: stats.unique === 0 ? null : round(syscalls.writes / stats.unique, 2),
      },
      broker_log: logged.warnings,
      other_run: null,
    };
  } finally {
    await Promise.all([
      publishers.request({ op: 'disconnect' }).catch(() => {}),
      subscriber.request({ op: 'disconnect' }).catch(() => {}),
    ]);
  }
}

/** About how long a case takes, connections and drain included. */
export function expectedSeconds(definition: CaseDefinition, plan: MqttPlan) {
  const { mode } = definition;
  if (mode.kind !== 'burst') return mode.seconds + 3;
  return (mode.perPublisher * plan.publishers) / (definition.subscriberRate ?? plan.pacedRate) + 5;
}
