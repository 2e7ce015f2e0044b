/**
 * The metrics AIOps baselines, from the modules that see them: the stores' device telemetry and
 * vision model minutes as sync applies them, and each store's sync queue as it reports it. Samples
 * are offered to AIOps, which records them after the push's transaction, never inside it.
 */

import type { Fields } from '../../shared/sync/registry.ts';
import type { AiopsService, MetricSample } from '../aiops/index.ts';
import type { SyncService } from '../sync/index.ts';

const parse = (value: unknown): unknown => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
};
const object = (value: unknown) =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
const finite = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const iso = (value: unknown) => {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
};

/** A device's own metric name as a metric name AIOps accepts (lower case, digits, _ and .). */
export const metricName = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9_.]+/g, '_')
    .replace(/^[^a-z]+/, '')
    .slice(0, 128);

/** device_telemetry_minutes: each metric's minute mean, per device. */
export function telemetrySamples(rows: Fields[]): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const row of rows) {
    const at = iso(row.minute);
    if (!at || typeof row.device_id !== 'string') continue;
    for (const [name, summary] of Object.entries(object(parse(row.metrics)))) {
      const value = finite(summary) ? summary : object(summary).avg;
      const metric = metricName(name);
      if (finite(value) && metric) samples.push({ metric, subject: row.device_id, at, value });
    }
  }
  return samples;
}

/** vision_model_minutes: camera fps and inference latency p99, per camera. */
export function visionSamples(rows: Fields[]): MetricSample[] {
  const samples: MetricSample[] = [];
  for (const row of rows) {
    const at = iso(row.minute);
    if (!at || typeof row.camera_id !== 'string') continue;
    const metrics = object(parse(row.metrics));
    const p99 = object(metrics.inference_ms).p99;
    if (finite(metrics.camera_fps))
      samples.push({ metric: 'camera_fps', subject: row.camera_id, at, value: metrics.camera_fps });
    if (finite(p99))
      samples.push({ metric: 'inference_latency_p99', subject: row.camera_id, at, value: p99 });
  }
  return samples;
}

/** A push's queue report: depth and the age of its oldest pending change, per store. */
export function syncSamples(
  locationId: string,
  report: { queue_depth?: number | undefined; oldest_pending_at?: string | null | undefined },
  at: string,
): MetricSample[] {
  if (report.queue_depth === undefined) return [];
  const oldest = report.oldest_pending_at ? Date.parse(report.oldest_pending_at) : Number.NaN;
  const lag = Number.isNaN(oldest) ? 0 : Math.max(0, (Date.parse(at) - oldest) / 1000);
  return [
    { metric: 'sync_queue_depth', subject: locationId, at, value: report.queue_depth },
    { metric: 'sync_lag_seconds', subject: locationId, at, value: lag },
  ];
}

/** A store pushes every few seconds while busy: its queue is sampled once a minute at most. */
const SYNC_SAMPLE_MS = 60_000;

export function linkAiopsMetrics(sync: SyncService, aiops: AiopsService) {
  const sampled = new Map<string, number>();
  sync.observe('device_telemetry_minutes', async (_trx, scope, rows) =>
    aiops.offer(scope.tenantId, telemetrySamples(rows.map((r) => r.fields))),
  );
  sync.observe('vision_model_minutes', async (_trx, scope, rows) =>
    aiops.offer(scope.tenantId, visionSamples(rows.map((r) => r.fields))),
  );
  sync.onPushed((scope, body, at) => {
    const key = `${scope.tenantId}/${scope.locationId}`;
    const ms = Date.parse(at);
    if (ms - (sampled.get(key) ?? Number.NEGATIVE_INFINITY) < SYNC_SAMPLE_MS) return;
    sampled.set(key, ms);
    aiops.offer(scope.tenantId, syncSamples(scope.locationId, body, at));
  });
}
