/**
 * Device telemetry as both sides read it back: the appliance from its samples and minute
 * summaries, the cloud from the minute summaries the store syncs up. A sample is a stretch of
 * one; a minute summary is a stretch of many; both merge into per-metric count, min, max, mean,
 * last and a bounded series of points, so the two endpoints answer alike.
 */

export const TELEMETRY_PERIODS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type TelemetryPeriod = keyof typeof TELEMETRY_PERIODS;

/** Points per metric in an answer, whatever the period: each is the mean of its slice of time. */
export const POINTS_PER_METRIC = 60;

/** One metric over a stretch of time. */
export interface Stat {
  count: number;
  min: number;
  max: number;
  sum: number;
  last: number;
}

/** A stretch of time (one sample, or a minute) and its metrics. */
export interface Bucket {
  atMs: number;
  samples: number;
  stats: Record<string, Stat>;
}

/** How one metric of a minute is written in device_telemetry_minutes.metrics. */
export interface MinuteMetric {
  count: number;
  min: number;
  max: number;
  avg: number;
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

const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function isMinuteMetric(value: unknown): value is MinuteMetric {
  if (typeof value !== 'object' || value === null) return false;
  const m = value as Record<string, unknown>;
  return finite(m.count) && m.count > 0 && finite(m.min) && finite(m.max) && finite(m.avg) && finite(m.last);
}

/**
 * A stored row's metrics as stats: a finite number is one sample, a minute summary is its
 * stretch; anything else (text, null, a malformed summary) is not a measurement and is skipped.
 */
export function bucketOf(atMs: number, samples: number, metrics: string | Record<string, unknown>): Bucket {
  const parsed = typeof metrics === 'string' ? (JSON.parse(metrics) as Record<string, unknown>) : metrics;
  const stats: Record<string, Stat> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (finite(value)) stats[name] = { count: 1, min: value, max: value, sum: value, last: value };
    else if (isMinuteMetric(value))
      stats[name] = {
        count: value.count,
        min: value.min,
        max: value.max,
        sum: value.avg * value.count,
        last: value.last,
      };
  }
  return { atMs, samples, stats };
}

export function mergeStat(into: Stat | undefined, add: Stat): Stat {
  if (!into) return { ...add };
  return {
    count: into.count + add.count,
    min: Math.min(into.min, add.min),
    max: Math.max(into.max, add.max),
    sum: into.sum + add.sum,
    last: add.last,
  };
}

/** Buckets of one stretch (a minute's samples) as the metrics of its summary row. */
export function summarise(buckets: Bucket[]): Record<string, MinuteMetric> {
  const stats: Record<string, Stat> = {};
  for (const bucket of buckets)
    for (const [name, stat] of Object.entries(bucket.stats)) stats[name] = mergeStat(stats[name], stat);
  return Object.fromEntries(
    Object.entries(stats).map(([name, s]) => [
      name,
      { count: s.count, min: s.min, max: s.max, avg: s.sum / s.count, last: s.last },
    ]),
  );
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
      entry.stat = mergeStat(entry.stat, stat);
      entry.lastAt = bucket.atMs;
      entry.slices.set(slice, mergeStat(entry.slices.get(slice), stat));
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
