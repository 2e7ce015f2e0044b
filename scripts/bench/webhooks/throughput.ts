/**
 * Throughput: every endpoint healthy, N events appended as fast as the store takes them (several
 * per transaction) while the worker sends; deliveries per second from the first append to the last
 * delivery the receiver accepted. The store must then hold every delivery as a success.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { round } from '../lib/load.ts';
import { census, type StatementFigures } from './census.ts';
import type { BenchCloud } from './cloud.ts';
import type { WebhookPlan } from './plan.ts';
import { type ReceiverControl, stamp } from './receiver-control.ts';

export interface ThroughputMeasurement {
  events: number;
  endpoints: number;
  deliveries: number;
  delivered: number;
  /** Requests beyond one per delivery. */
  duplicates: number;
  append_seconds: number;
  /** First append to the last delivery's arrival at the receiver. */
  seconds: number;
  /** First append to the store having recorded every attempt (the worker commits after sending). */
  recorded_seconds: number | null;
  deliveries_per_sec: number;
  /** Deliveries per second in each tenth of the run: a slowdown as the tables grow shows here. */
  deliveries_per_sec_by_tenth: number[];
  timed_out: boolean;
  /** The database statements of the run (appends included), heaviest first. */
  statements: { totals: ReturnType<typeof census.totals>; top: StatementFigures[] };
}

const RECORDING_TIMEOUT_MS = 30_000;

async function successes(cloud: BenchCloud) {
  const row = await cloud.store.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('tenant_id', '=', cloud.tenantId)
    .where('status', '=', 'success')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Waits for the store to hold every delivery as sent; answers when it did, or undefined. */
async function recorded(cloud: BenchCloud, deliveries: number) {
  const deadline = performance.now() + RECORDING_TIMEOUT_MS;
  for (;;) {
    const stored = await successes(cloud);
    if (stored >= deliveries) return { stored, at: stamp() };
    if (performance.now() > deadline) return { stored, at: undefined };
    await sleep(20);
  }
}

function byTenth(arrivals: number[], from: number, to: number) {
  const width = (to - from) / 10;
  const counts = Array.from({ length: 10 }, () => 0);
  for (const at of arrivals) counts[Math.min(9, Math.max(0, Math.floor((at - from) / width)))]! += 1;
  return counts.map((count) => round(count / (width / 1000), 0));
}

export async function measureThroughput(
  cloud: BenchCloud,
  receiver: ReceiverControl,
  plan: WebhookPlan,
  clockOffset: number,
  problems: string[],
): Promise<ThroughputMeasurement> {
  await receiver.reset();
  const deliveries = plan.throughputEvents * plan.endpoints;
  census.reset();
  cloud.services.webhooks.worker.start();
  const started = stamp();
  for (let i = 0; i < plan.throughputEvents; i += plan.throughputEventsPerTransaction) {
    const count = Math.min(plan.throughputEventsPerTransaction, plan.throughputEvents - i);
    await cloud.append(Array.from({ length: count }, cloud.orderEvent));
  }
  const appended = stamp();
  const { stats, timedOut } = await receiver.until(
    (s) => s.ok_deliveries >= deliveries,
    plan.throughputTimeoutSeconds * 1000,
  );
  const finished = timedOut ? stamp() : stats.last_ok_at - clockOffset;
  const statements = { totals: census.totals(deliveries), top: census.top(deliveries) };
  const store = await recorded(cloud, deliveries);
  const records = await receiver.records();
  const firsts = new Map<string, number>();
  records.delivery.forEach((id, i) => {
    if (records.status[i] === 200 && !firsts.has(id)) firsts.set(id, records.t[i]! - clockOffset);
  });
  const stored = await successes(cloud);
  if (timedOut) problems.push(`throughput: ${stats.ok_deliveries} of ${deliveries} delivered in time`);
  else if (stored !== deliveries)
    problems.push(`throughput: ${stored} of ${deliveries} deliveries stored as sent`);
  const seconds = (finished - started) / 1000;
  return {
    events: plan.throughputEvents,
    endpoints: plan.endpoints,
    deliveries,
    delivered: stats.ok_deliveries,
    duplicates: records.t.length - firsts.size,
    append_seconds: round((appended - started) / 1000, 2),
    seconds: round(seconds, 2),
    recorded_seconds: store.at === undefined ? null : round((store.at - started) / 1000, 2),
    deliveries_per_sec: round(stats.ok_deliveries / seconds, 0),
    deliveries_per_sec_by_tenth: byTenth([...firsts.values()], started, finished),
    timed_out: timedOut,
    statements,
  };
}
