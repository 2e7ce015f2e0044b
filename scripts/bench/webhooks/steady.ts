/**
 * Latency at a steady rate: one event per transaction on a fixed grid (as orders arrive from
 * stores), each making one delivery per endpoint. A delivery's latency runs from just after its
 * event's commit returned (stamped here, where the worker runs too) to the receiver getting its
 * first attempt (stamped there, corrected by the clocks' offset). With some endpoints failing or
 * hanging, the healthy ones are measured alone: isolation.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { round } from '../lib/load.ts';
import { census, type StatementFigures } from './census.ts';
import type { Behaviour, BenchCloud } from './cloud.ts';
import type { WebhookPlan } from './plan.ts';
import { type ReceiverControl, type ReceiverRecords, stamp } from './receiver-control.ts';
import { type Percentiles, percentiles } from './stats.ts';

export interface SteadyMeasurement {
  events_per_sec: number;
  measured_seconds: number;
  events: number;
  endpoints: Record<Behaviour, number>;
  /** What the healthy endpoints were offered, and what reached them in the measured window. */
  healthy: {
    deliveries: number;
    delivered: number;
    duplicates: number;
    offered_per_sec: number;
    deliveries_per_sec: number;
    latency_ms: Percentiles;
    /** Commit to the attempt's start (wake-up, lane, queue), then its start to arrival (mark, sign, send). */
    commit_to_attempt_ms: Percentiles;
    attempt_to_arrival_ms: Percentiles;
  };
  /** Requests the failing (500) and hanging endpoints got meanwhile. */
  failing_requests: number;
  hanging_requests: number;
  /** Appends that started later than their slot on the grid by more than 50 ms. */
  late_appends: number;
  timed_out: boolean;
  /** The database statements of the run (appends included), heaviest first, per delivery made. */
  statements: { totals: ReturnType<typeof census.totals>; top: StatementFigures[] };
}

const DRAIN_TIMEOUT_MS = 60_000;

interface Appended {
  commits: Map<string, number>;
  measured: Set<string>;
  windowStart: number;
  windowEnd: number;
  late: number;
}

/** Appends on the grid; events of the warm-up are sent but not measured. */
async function appendSteadily(cloud: BenchCloud, plan: WebhookPlan): Promise<Appended> {
  const interval = 1000 / plan.eventsPerSecond;
  const warmup = plan.warmupSeconds * plan.eventsPerSecond;
  const total = warmup + plan.steadySeconds * plan.eventsPerSecond;
  const result: Appended = { commits: new Map(), measured: new Set(), windowStart: 0, windowEnd: 0, late: 0 };
  const origin = performance.now();
  for (let k = 0; k < total; k++) {
    const slot = origin + k * interval;
    const wait = slot - performance.now();
    if (wait > 0) await sleep(wait);
    else if (wait < -50) result.late += 1;
    if (k === warmup) result.windowStart = stamp();
    const event = cloud.orderEvent();
    result.commits.set(event.id, await cloud.append([event]));
    if (k >= warmup) result.measured.add(event.id);
  }
  result.windowEnd = stamp();
  return result;
}

function sample(values: Iterable<number>) {
  return percentiles([...values]);
}

/** When each delivery's first attempt started, by event and endpoint, from the attempt log. */
async function attemptStarts(cloud: BenchCloud) {
  const rows = await cloud.store.db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_deliveries as d', 'd.id', 'a.delivery_id')
    .innerJoin('webhook_subscriptions as s', 's.id', 'd.webhook_id')
    .select(['d.event_id', 's.url', 'a.started_at'])
    .where('a.tenant_id', '=', cloud.tenantId)
    .where('a.attempt', '=', 1)
    .execute();
  return new Map(
    rows.map((row) => [`${row.event_id} ${endpointOfUrl(row.url)}`, Date.parse(row.started_at)]),
  );
}

const endpointOfUrl = (url: string) => Number(url.slice(url.lastIndexOf('/') + 1));

function firstArrivals(records: ReceiverRecords, healthy: Set<number>, clockOffset: number) {
  const firsts = new Map<string, number>();
  let duplicates = 0;
  records.t.forEach((t, i) => {
    if (!healthy.has(records.endpoint[i]!)) return;
    const key = `${records.event[i]} ${records.endpoint[i]}`;
    if (firsts.has(key)) duplicates += 1;
    else firsts.set(key, t - clockOffset);
  });
  return { firsts, duplicates };
}

export async function measureSteady(
  cloud: BenchCloud,
  receiver: ReceiverControl,
  plan: WebhookPlan,
  behaviours: Behaviour[],
  clockOffset: number,
): Promise<SteadyMeasurement> {
  await receiver.reset();
  const healthy = new Set(behaviours.flatMap((behaviour, i) => (behaviour === 'ok' ? [i] : [])));
  census.reset();
  cloud.services.webhooks.worker.start();
  const appended = await appendSteadily(cloud, plan);
  const expected = appended.commits.size * healthy.size;
  const { timedOut } = await receiver.until((s) => s.ok_deliveries >= expected, DRAIN_TIMEOUT_MS);
  const made = appended.commits.size * behaviours.length;
  const statements = { totals: census.totals(made), top: census.top(made) };
  const records = await receiver.records();
  const { firsts, duplicates } = firstArrivals(records, healthy, clockOffset);
  const starts = await attemptStarts(cloud);

  const latencies: number[] = [];
  const toAttempt: number[] = [];
  const toArrival: number[] = [];
  let inWindow = 0;
  for (const [key, arrived] of firsts) {
    const eventId = key.slice(0, key.indexOf(' '));
    if (arrived >= appended.windowStart && arrived <= appended.windowEnd) inWindow += 1;
    if (!appended.measured.has(eventId)) continue;
    const committed = appended.commits.get(eventId)!;
    latencies.push(arrived - committed);
    const started = starts.get(key);
    if (started === undefined) continue;
    toAttempt.push(started - committed);
    toArrival.push(arrived - started);
  }
  const windowSeconds = (appended.windowEnd - appended.windowStart) / 1000;
  const count = (behaviour: Behaviour) => behaviours.filter((b) => b === behaviour).length;
  const requestsTo = (behaviour: Behaviour) =>
    records.endpoint.filter((endpoint) => behaviours[endpoint] === behaviour).length;
  return {
    events_per_sec: plan.eventsPerSecond,
    measured_seconds: round(windowSeconds, 2),
    events: appended.commits.size,
    endpoints: { ok: count('ok'), fail: count('fail'), hang: count('hang') },
    healthy: {
      deliveries: expected,
      delivered: firsts.size,
      duplicates,
      offered_per_sec: plan.eventsPerSecond * healthy.size,
      deliveries_per_sec: round(inWindow / windowSeconds, 0),
      latency_ms: sample(latencies),
      commit_to_attempt_ms: sample(toAttempt),
      attempt_to_arrival_ms: sample(toArrival),
    },
    failing_requests: requestsTo('fail'),
    hanging_requests: requestsTo('hang'),
    late_appends: appended.late,
    timed_out: timedOut,
    statements,
  };
}
