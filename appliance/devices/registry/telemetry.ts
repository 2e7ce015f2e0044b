/**
 * Telemetry: every sample kept for APPLIANCE_TELEMETRY_RETENTION_DAYS, and one summary per device
 * and finished minute written to the synced device_telemetry_minutes table, so the cloud's volume
 * does not follow a sensor's reporting rate. Periods read back as the cloud's telemetry endpoint
 * answers: per-metric count, min, max, mean, last and a bounded series of points.
 */
import type { Clock } from '../../../shared/clock.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import type { ChangeLog } from '../../db/change-log.ts';
import type { ApplianceDatabase } from '../../db/index.ts';
import type { DeviceStore, SampleRow } from './store.ts';

export const TELEMETRY_PERIODS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type TelemetryPeriod = keyof typeof TELEMETRY_PERIODS;

/** Points per metric in an answer, whatever the period. */
export const POINTS_PER_METRIC = 60;
const MINUTE = 60_000;
/** How far back a summary pass looks when it has none to start after (a first start). */
const LOOKBACK_MS = 2 * 3_600_000;

/** One metric over a stretch of time: a sample is a stretch of one. */
interface Stat {
  count: number;
  min: number;
  max: number;
  sum: number;
  last: number;
}

export interface MetricSummary {
  count: number;
  min: number;
  max: number;
  avg: number;
  last: number;
  last_at: string;
  points: Array<{ at: string; value: number }>;
}

interface Bucket {
  atMs: number;
  samples: number;
  stats: Record<string, Stat>;
}

const numbers = (metrics: string): Array<[string, number]> =>
  Object.entries(JSON.parse(metrics) as Record<string, unknown>).filter(
    (entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]),
  );

const sampleBucket = (row: SampleRow): Bucket => ({
  atMs: row.at_ms,
  samples: 1,
  stats: Object.fromEntries(
    numbers(row.metrics).map(([name, v]) => [name, { count: 1, min: v, max: v, sum: v, last: v }]),
  ),
});

function merge(into: Stat | undefined, add: Stat): Stat {
  if (!into) return { ...add };
  return {
    count: into.count + add.count,
    min: Math.min(into.min, add.min),
    max: Math.max(into.max, add.max),
    sum: into.sum + add.sum,
    last: add.last,
  };
}

/** Buckets in time order → per-metric summary with POINTS_PER_METRIC slices of the period. */
export function aggregate(buckets: Bucket[], fromMs: number, periodMs: number) {
  const sliceMs = periodMs / POINTS_PER_METRIC;
  const totals = new Map<string, { stat: Stat; lastAt: number; slices: Map<number, Stat> }>();
  for (const bucket of buckets) {
    const slice = Math.min(POINTS_PER_METRIC - 1, Math.max(0, Math.floor((bucket.atMs - fromMs) / sliceMs)));
    for (const [name, stat] of Object.entries(bucket.stats)) {
      const entry = totals.get(name);
      if (!entry) {
        totals.set(name, { stat, lastAt: bucket.atMs, slices: new Map([[slice, stat]]) });
        continue;
      }
      entry.stat = merge(entry.stat, stat);
      entry.lastAt = bucket.atMs;
      entry.slices.set(slice, merge(entry.slices.get(slice), stat));
    }
  }
  const metrics: Record<string, MetricSummary> = {};
  for (const [name, { stat, lastAt, slices }] of [...totals].sort(([a], [b]) => a.localeCompare(b))) {
    metrics[name] = {
      count: stat.count,
      min: stat.min,
      max: stat.max,
      avg: stat.sum / stat.count,
      last: stat.last,
      last_at: new Date(lastAt).toISOString(),
      points: [...slices]
        .sort(([a], [b]) => a - b)
        .map(([slice, s]) => ({
          at: new Date(fromMs + slice * sliceMs).toISOString(),
          value: s.sum / s.count,
        })),
    };
  }
  return metrics;
}

/** A minute's samples of one device as the summary row's metrics. */
function summarise(samples: SampleRow[]) {
  const stats: Record<string, Stat> = {};
  for (const sample of samples)
    for (const [name, stat] of Object.entries(sampleBucket(sample).stats))
      stats[name] = merge(stats[name], stat);
  return Object.fromEntries(
    Object.entries(stats).map(([name, s]) => [
      name,
      { count: s.count, min: s.min, max: s.max, avg: s.sum / s.count, last: s.last },
    ]),
  );
}

type SummaryMetrics = ReturnType<typeof summarise>;

const minuteBucket = (row: { minute: string; samples: number; metrics: string }): Bucket => ({
  atMs: Date.parse(row.minute),
  samples: row.samples,
  stats: Object.fromEntries(
    Object.entries(JSON.parse(row.metrics) as SummaryMetrics).map(([name, s]) => [
      name,
      { count: s.count, min: s.min, max: s.max, sum: s.avg * s.count, last: s.last },
    ]),
  ),
});

export interface TelemetryDeps {
  db: ApplianceDatabase;
  store: DeviceStore;
  changes: ChangeLog;
  clock: Clock;
  newId: IdGenerator;
  locationId: string;
}

export function createTelemetry(deps: TelemetryDeps) {
  const { db, store, changes, clock } = deps;
  const minutesOf = db.prepare<[string, string], { minute: string; samples: number; metrics: string }>(
    'select minute, samples, metrics from device_telemetry_minutes where device_id = ? and minute >= ? order by minute',
  );

  /** Writes a summary of each finished minute not summarised yet; answers how many. */
  function summarize(): number {
    const endMs = Math.floor(clock.now().getTime() / MINUTE) * MINUTE;
    const newest = store.newestMinute();
    const fromMs = newest ? Date.parse(newest) + MINUTE : store.oldestSample(endMs - LOOKBACK_MS);
    if (fromMs === undefined || fromMs >= endMs) return 0;
    const groups = new Map<string, SampleRow[]>();
    for (const sample of store.samplesBetween(fromMs, endMs)) {
      const key = `${sample.device_id}\n${Math.floor(sample.at_ms / MINUTE) * MINUTE}`;
      groups.set(key, [...(groups.get(key) ?? []), sample]);
    }
    let written = 0;
    db.transaction(() => {
      for (const [key, samples] of groups) {
        const [deviceId, minuteMs] = key.split('\n') as [string, string];
        const row = {
          id: deps.newId(),
          device_id: deviceId,
          location_id: deps.locationId,
          minute: new Date(Number(minuteMs)).toISOString(),
          samples: samples.length,
          metrics: JSON.stringify(summarise(samples)),
        };
        if (!store.insertMinute(row)) continue;
        changes.recordChange({
          table: 'device_telemetry_minutes',
          rowId: row.id,
          operation: 'insert',
          version: 1,
        });
        written += 1;
      }
    })();
    return written;
  }

  /**
   * A device's telemetry over a period. An hour is read sample by sample; longer periods from the
   * minute summaries plus the samples of the minutes not summarised yet, so a week costs 10,080
   * rows rather than every sample.
   */
  function query(deviceId: string, period: TelemetryPeriod) {
    const to = clock.now();
    const periodMs = TELEMETRY_PERIODS[period];
    const fromMs = to.getTime() - periodMs;
    let buckets: Bucket[];
    if (period === '1h') buckets = store.samplesOf(deviceId, fromMs).map(sampleBucket);
    else {
      const minutes = minutesOf.all(deviceId, new Date(Math.ceil(fromMs / MINUTE) * MINUTE).toISOString());
      const after = minutes.length > 0 ? Date.parse(minutes.at(-1)!.minute) + MINUTE : fromMs;
      buckets = [...minutes.map(minuteBucket), ...store.samplesOf(deviceId, after).map(sampleBucket)];
    }
    const samples = buckets.reduce((n, bucket) => n + bucket.samples, 0);
    return {
      device_id: deviceId,
      period,
      from: new Date(fromMs).toISOString(),
      to: to.toISOString(),
      samples,
      metrics: aggregate(buckets, fromMs, periodMs),
    };
  }

  return { summarize, query };
}

export type Telemetry = ReturnType<typeof createTelemetry>;
