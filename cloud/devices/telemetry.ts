/**
 * Device telemetry: samples recorded as the fleet link receives them, read back per period as
 * per-metric aggregates and a bounded series of points.
 */
import { type DeviceContext, nowIso, requireDevice } from './context.ts';
import * as queries from './store-commands.ts';
import type { DeviceTelemetryRow } from './tables.ts';

export const TELEMETRY_PERIODS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type TelemetryPeriod = keyof typeof TELEMETRY_PERIODS;

/** Points per metric in an answer, whatever the period: each is the mean of its slice of time. */
export const POINTS_PER_METRIC = 60;
/** Samples read per answer at most (the newest): the period's aggregates come from these. */
export const MAX_SAMPLES = 10_000;

const INSERT_CHUNK = 500;

export interface TelemetrySample {
  at: Date | string;
  metrics: Record<string, unknown>;
}

interface MetricSummary {
  count: number;
  min: number;
  max: number;
  avg: number;
  last: number;
  last_at: string;
  points: Array<{ at: string; value: number }>;
}

/** Per-metric aggregates over samples in time order; only finite numbers count. */
export function aggregate(rows: Array<{ at: string; metrics: string }>, from: Date, periodMs: number) {
  const sliceMs = periodMs / POINTS_PER_METRIC;
  const metrics = new Map<
    string,
    { summary: MetricSummary; sum: number; slices: Map<number, [number, number]> }
  >();
  for (const row of rows) {
    const slice = Math.min(
      POINTS_PER_METRIC - 1,
      Math.floor((Date.parse(row.at) - from.getTime()) / sliceMs),
    );
    for (const [name, value] of Object.entries(JSON.parse(row.metrics) as Record<string, unknown>)) {
      if (typeof value !== 'number' || !Number.isFinite(value)) continue;
      let entry = metrics.get(name);
      if (!entry) {
        const summary = {
          count: 0,
          min: value,
          max: value,
          avg: 0,
          last: value,
          last_at: row.at,
          points: [],
        };
        entry = { summary, sum: 0, slices: new Map() };
        metrics.set(name, entry);
      }
      const { summary } = entry;
      summary.count += 1;
      summary.min = Math.min(summary.min, value);
      summary.max = Math.max(summary.max, value);
      summary.last = value;
      summary.last_at = row.at;
      entry.sum += value;
      const [sliceSum, sliceCount] = entry.slices.get(slice) ?? [0, 0];
      entry.slices.set(slice, [sliceSum + value, sliceCount + 1]);
    }
  }
  const result: Record<string, MetricSummary> = {};
  for (const [name, { summary, sum, slices }] of [...metrics].sort(([a], [b]) => a.localeCompare(b))) {
    summary.avg = sum / summary.count;
    summary.points = [...slices]
      .sort(([a], [b]) => a - b)
      .map(([slice, [sliceSum, sliceCount]]) => ({
        at: new Date(from.getTime() + slice * sliceMs).toISOString(),
        value: sliceSum / sliceCount,
      }));
    result[name] = summary;
  }
  return result;
}

export function createTelemetry(context: DeviceContext) {
  const db = context.store.db;
  return {
    /** Stores a device's samples (the fleet link calls this); last_seen_at follows the newest. */
    async recordTelemetry(tenantId: string, deviceId: string, samples: TelemetrySample[]) {
      await requireDevice(context, tenantId, deviceId);
      if (samples.length === 0) return 0;
      const rows: DeviceTelemetryRow[] = samples.map((sample) => ({
        id: context.newId(),
        tenant_id: tenantId,
        device_id: deviceId,
        at: new Date(sample.at).toISOString(),
        metrics: JSON.stringify(sample.metrics),
      }));
      const newest = rows
        .map((row) => row.at)
        .sort()
        .at(-1)!;
      await db.transaction().execute(async (trx) => {
        // Chunks keep each statement under SQLite's limit of bound parameters.
        for (let start = 0; start < rows.length; start += INSERT_CHUNK)
          await queries.insertTelemetry(trx, rows.slice(start, start + INSERT_CHUNK));
        await queries.touchDevice(trx, tenantId, deviceId, newest);
      });
      return rows.length;
    },

    async telemetryFor(tenantId: string, deviceId: string, period: TelemetryPeriod) {
      await requireDevice(context, tenantId, deviceId);
      const to = context.clock.now();
      const from = new Date(to.getTime() - TELEMETRY_PERIODS[period]);
      const window = { from: from.toISOString(), to: nowIso(context) };
      const rows = await queries.telemetry(db, tenantId, deviceId, window, MAX_SAMPLES + 1);
      const truncated = rows.length > MAX_SAMPLES;
      const used = truncated ? rows.slice(1) : rows;
      return {
        device_id: deviceId,
        period,
        from: window.from,
        to: window.to,
        samples: used.length,
        truncated,
        metrics: aggregate(used, from, TELEMETRY_PERIODS[period]),
      };
    },
  };
}
