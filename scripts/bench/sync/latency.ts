/**
 * Online: the appliance's real sync worker (createApplianceSync, as appliance/app.ts wires it) runs
 * while single orders are written one at a time, as a till would. Each outbox row's latency is from
 * its write (`occurred_at`) to the moment the store recorded the cloud's answer (`pushed_at`), both
 * stamped by the appliance's own clock: what the worker's sync_latency_seconds observes, per change.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Registry } from 'prom-client';
import { createApplianceSync } from '../../../appliance/sync/index.ts';
import { round } from '../lib/load.ts';
import { type BenchAppliance, unanswered } from './appliance.ts';
import { type CloudRequests, type MeasureContext, observed } from './observe.ts';
import { createMenu, newOrder } from './seed.ts';

export interface LatencyMeasurement {
  writes: number;
  changes: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** Acknowledgements the worker's sync_latency_seconds histogram counted. */
  histogram_count: number;
  /** How long the worker took to stop (it waits for its open wait request). */
  stop_seconds: number;
  cloud: CloudRequests;
}

const DRAINED_TIMEOUT_MS = 60_000;

async function until(done: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await sleep(10);
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;

function latencies(app: BenchAppliance, afterSeq: number) {
  const rows = app.db
    .prepare('select occurred_at, pushed_at from outbox where seq > ? and pushed_at is not null')
    .all(afterSeq) as Array<{ occurred_at: string; pushed_at: string }>;
  return rows.map((row) => Date.parse(row.pushed_at) - Date.parse(row.occurred_at)).sort((a, b) => a - b);
}

async function histogramCount(registry: Registry) {
  const metric = await registry.getSingleMetric('sync_latency_seconds')?.get();
  // The +Inf bucket counts every observation.
  return metric?.values.find((value) => value.labels.le === '+Inf')?.value ?? 0;
}

/** Writes the orders at a till's pace, then waits until the cloud has answered every change. */
async function writeAtTillPace(context: MeasureContext, app: BenchAppliance, menu: string[]) {
  const [low, high] = context.plan.latencyGapMs;
  for (let i = 0; i < context.plan.latencyWrites; i++) {
    await sleep(low + Math.random() * (high - low));
    await app.services.orders.create(newOrder(menu, i));
  }
  await until(() => unanswered(app.db) === 0, DRAINED_TIMEOUT_MS, 'the outbox draining');
}

type Worker = NonNullable<ReturnType<typeof createApplianceSync>>;

async function whileRunning(
  context: MeasureContext,
  app: BenchAppliance,
  worker: Worker,
  registry: Registry,
) {
  const menu = createMenu(app.services, 3).map((item) => item.id);
  await until(() => worker.online && unanswered(app.db) === 0, DRAINED_TIMEOUT_MS, 'the first round');
  const { seq } = app.db.prepare('select coalesce(max(seq), 0) as seq from outbox').get() as { seq: number };
  const { cloud } = await observed(context, 'online_latency', () => writeAtTillPace(context, app, menu));
  const sorted = latencies(app, seq);
  return {
    writes: context.plan.latencyWrites,
    changes: sorted.length,
    p50_ms: percentile(sorted, 0.5),
    p99_ms: percentile(sorted, 0.99),
    max_ms: sorted.at(-1) ?? 0,
    histogram_count: await histogramCount(registry),
    cloud,
  };
}

export async function measureLatency(
  context: MeasureContext,
  app: BenchAppliance,
): Promise<LatencyMeasurement> {
  const registry = new Registry();
  const deps = { db: app.db, changes: app.services.changes, clock: app.clock };
  const worker = createApplianceSync(app.config, deps, { registry });
  if (!worker) throw new Error('the appliance has no sync configured');
  worker.start();
  let measured: Omit<LatencyMeasurement, 'stop_seconds'>;
  const stopping = { started: 0 };
  try {
    measured = await whileRunning(context, app, worker, registry);
  } finally {
    stopping.started = performance.now();
    await worker.stop();
  }
  return { ...measured, stop_seconds: round((performance.now() - stopping.started) / 1000, 2) };
}
