/**
 * A camera's figures by the minute, and the thresholds that raise alerts on them. Each finished
 * minute becomes one vision_model_minutes row (what the cloud's model metrics sum); an alert is
 * raised when a minute crosses a threshold and cleared by the first minute back under it.
 */
import type { MinuteMetrics } from './model-metrics.ts';

export type AlertMetric = 'camera_fps' | 'inference_latency_p99' | 'detection_accuracy';
export type AlertSeverity = 'warning' | 'critical';

/** A camera's minute as vision_model_minutes carries it (what the model metrics sum). */
export interface MinuteFigures extends MinuteMetrics {
  capture_to_result_ms: { p50: number | null; p95: number | null; p99: number | null };
}

/** The capture's counters, as the pipeline's metrics() gives them (they only grow). */
export interface Counters {
  frames_read: number;
  frames_dropped: number;
  frames_skipped_by_motion: number;
  frames_inferred: number;
  detections: number;
}

const percentile = (sorted: readonly number[], p: number) =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const round = (value: number | null, places = 1) =>
  value === null ? null : Math.round(value * 10 ** places) / 10 ** places;

export const minuteOf = (ms: number) => Math.floor(ms / 60_000) * 60_000;

/** Collects one camera's samples; `close` hands back the minute's figures and starts the next. */
export function createMinuteCollector(startedAtMs: number, counters: Counters) {
  let minute = minuteOf(startedAtMs);
  let since = startedAtMs;
  let base = { ...counters };
  let inference: number[] = [];
  let latency: number[] = [];

  return {
    get minute() {
      return minute;
    },
    /** When the figures being collected started (the last close, or the start). */
    get since() {
      return since;
    },
    add(inferenceMs: number, latencyMs: number) {
      inference.push(inferenceMs);
      latency.push(latencyMs);
    },
    /** The figures from the last close (or the start) to `atMs`, with the counters as they are now. */
    close(atMs: number, now: Counters): { minute: number; figures: MinuteFigures } {
      const seconds = Math.max(1, (atMs - since) / 1000);
      const delta = (key: keyof Counters) => Math.max(0, now[key] - base[key]);
      const inf = inference.sort((a, b) => a - b);
      const lat = latency.sort((a, b) => a - b);
      const figures: MinuteFigures = {
        frames_read: delta('frames_read'),
        frames_inferred: delta('frames_inferred'),
        frames_skipped_by_motion: delta('frames_skipped_by_motion'),
        frames_dropped: delta('frames_dropped'),
        detections: delta('detections'),
        camera_fps: round(delta('frames_read') / seconds)!,
        detection_fps: round(delta('frames_inferred') / seconds)!,
        inference_ms: {
          p50: round(percentile(inf, 50)),
          p99: round(percentile(inf, 99)),
          mean: inf.length ? round(inf.reduce((s, v) => s + v, 0) / inf.length) : null,
        },
        capture_to_result_ms: {
          p50: round(percentile(lat, 50)),
          p95: round(percentile(lat, 95)),
          p99: round(percentile(lat, 99)),
        },
      };
      const closed = minute;
      minute = minuteOf(atMs);
      since = atMs;
      base = { ...now };
      inference = [];
      latency = [];
      return { minute: closed, figures };
    },
  };
}

export type FigureMetric = Exclude<AlertMetric, 'detection_accuracy'>;

export interface Threshold<M extends AlertMetric = AlertMetric> {
  metric: M;
  warning: number;
  critical: number;
  /** `below`: the value is bad when under the threshold. */
  direction: 'below' | 'above';
}

/**
 * The thresholds: camera fps under 10 / 5, inference p99 over 500 / 1000 ms. A camera set
 * to a lower `inference_fps` than 15 is held to the same shares of its own rate (two thirds and a
 * third), or a camera deliberately run at 8 fps would be in alert for ever.
 */
export function thresholdsFor(inferenceFps: number): Threshold<FigureMetric>[] {
  return [
    {
      metric: 'camera_fps',
      warning: Math.min(10, (inferenceFps * 2) / 3),
      critical: Math.min(5, inferenceFps / 3),
      direction: 'below',
    },
    { metric: 'inference_latency_p99', warning: 500, critical: 1000, direction: 'above' },
  ];
}

/** The detection accuracy thresholds: under 90% a warning, under 80% critical. */
export const ACCURACY_THRESHOLD: Threshold = {
  metric: 'detection_accuracy',
  warning: 0.9,
  critical: 0.8,
  direction: 'below',
};

export function severityOf(threshold: Threshold, value: number | null): AlertSeverity | undefined {
  if (value === null) return undefined;
  const worse = (limit: number) => (threshold.direction === 'below' ? value < limit : value > limit);
  if (worse(threshold.critical)) return 'critical';
  if (worse(threshold.warning)) return 'warning';
  return undefined;
}

export const figureOf = (metric: FigureMetric, figures: MinuteFigures) =>
  metric === 'camera_fps' ? figures.camera_fps : figures.inference_ms.p99;
