/**
 * A model's figures over a period, summed from the minutes each store's cameras synced, and the
 * documented operational thresholds on them (camera_fps, inference_latency_p99). A percentile of a
 * period cannot be rebuilt from the minutes' percentiles; the mean of the minutes' figures, each
 * weighted by the inferences it stands for, is what is answered (a busy minute counts for more).
 */
import type { ModelTotalsRow } from './store.ts';

/** Spec 3's thresholds (warning, critical). */
export const VISION_THRESHOLDS = {
  camera_fps: { direction: 'below', warning: 10, critical: 5 },
  inference_latency_p99: { direction: 'above', warning: 500, critical: 1000 },
} as const;
export type ThresholdMetric = keyof typeof VISION_THRESHOLDS;

export interface VisionAlert {
  metric: ThresholdMetric;
  severity: 'warning' | 'critical';
  camera_id: string;
  location_id: string;
  value: number;
  threshold: number;
}

const round = (value: number) => Math.round(value * 100) / 100;
const mean = (sum: number | null, weight: number | null) =>
  sum === null || !weight ? null : round(Number(sum) / Number(weight));
const n = (value: number | string | null | undefined) => Number(value ?? 0);

type Totals = Omit<ModelTotalsRow, 'camera_id' | 'location_id'>;
const SUMMED: ReadonlyArray<keyof Totals> = [
  'minutes',
  'frames_read',
  'frames_inferred',
  'frames_skipped',
  'frames_dropped',
  'detections',
  'camera_fps_sum',
  'camera_fps_minutes',
  'detection_fps_sum',
  'detection_fps_minutes',
  'inference_p50',
  'inference_p50_weight',
  'inference_p99',
  'inference_p99_weight',
  'inference_mean',
  'inference_mean_weight',
  'capture_p50',
  'capture_p50_weight',
  'capture_p95',
  'capture_p95_weight',
  'capture_p99',
  'capture_p99_weight',
];

/** The figures of one camera, or of all of them summed. */
function figures(t: Totals) {
  return {
    minutes: n(t.minutes),
    frames: {
      read: n(t.frames_read),
      skipped_by_motion: n(t.frames_skipped),
      dropped: n(t.frames_dropped),
    },
    inferences: n(t.frames_inferred),
    detections: n(t.detections),
    latency_ms: {
      p50: mean(t.inference_p50, t.inference_p50_weight),
      p99: mean(t.inference_p99, t.inference_p99_weight),
      mean: mean(t.inference_mean, t.inference_mean_weight),
    },
    capture_to_result_ms: {
      p50: mean(t.capture_p50, t.capture_p50_weight),
      p95: mean(t.capture_p95, t.capture_p95_weight),
      p99: mean(t.capture_p99, t.capture_p99_weight),
    },
    camera_fps: mean(t.camera_fps_sum, t.camera_fps_minutes),
    detection_fps: mean(t.detection_fps_sum, t.detection_fps_minutes),
  };
}

function sum(rows: ModelTotalsRow[]): Totals {
  const total = Object.fromEntries(SUMMED.map((key) => [key, 0])) as Record<keyof Totals, number>;
  for (const row of rows) for (const key of SUMMED) total[key] += n(row[key]);
  return total;
}

function level(metric: ThresholdMetric, value: number) {
  const rule = VISION_THRESHOLDS[metric];
  const past = (threshold: number) => (rule.direction === 'below' ? value < threshold : value > threshold);
  if (past(rule.critical)) return { severity: 'critical' as const, threshold: rule.critical };
  if (past(rule.warning)) return { severity: 'warning' as const, threshold: rule.warning };
  return undefined;
}

function alertsOf(camera: { camera_id: string; location_id: string } & ReturnType<typeof figures>) {
  const values: Array<[ThresholdMetric, number | null]> = [
    ['camera_fps', camera.camera_fps],
    ['inference_latency_p99', camera.latency_ms.p99],
  ];
  const alerts: VisionAlert[] = [];
  for (const [metric, value] of values) {
    const hit = value === null ? undefined : level(metric, value);
    if (hit && value !== null)
      alerts.push({ metric, ...hit, camera_id: camera.camera_id, location_id: camera.location_id, value });
  }
  return alerts;
}

/** The answer of GET /v1/vision/models/{model_id}/metrics. */
export function modelMetrics(
  modelId: string,
  window: { period: string; from: string; to: string },
  rows: ModelTotalsRow[],
) {
  const cameras = rows.map((row) => ({
    camera_id: row.camera_id,
    location_id: row.location_id,
    ...figures(row),
  }));
  return {
    model_id: modelId,
    ...window,
    ...figures(sum(rows)),
    cameras,
    alerts: cameras.flatMap(alertsOf),
  };
}
