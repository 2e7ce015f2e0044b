/**
 * A model's figures over a period, from the per-camera minutes the appliance writes
 * (vision_model_minutes). Counters add up; rates are over the minutes that had the camera running;
 * a latency percentile over many minutes is each minute's percentile weighted by its inferences
 * (the samples themselves stay at the store), which is exact for steady minutes and close otherwise.
 */

export interface MinuteMetrics {
  frames_read: number;
  frames_inferred: number;
  frames_skipped_by_motion: number;
  frames_dropped: number;
  detections: number;
  camera_fps: number;
  detection_fps: number;
  inference_ms: { p50: number | null; p99: number | null; mean: number | null };
}

export interface MinuteOfCamera {
  camera_id: string;
  model_version: string;
  minute: string;
  metrics: Record<string, unknown>;
}

const COUNTERS = [
  'frames_read',
  'frames_inferred',
  'frames_skipped_by_motion',
  'frames_dropped',
  'detections',
] as const;

const round = (value: number, places = 1) => Math.round(value * 10 ** places) / 10 ** places;

function summarise(rows: readonly MinuteOfCamera[]) {
  const totals = Object.fromEntries(COUNTERS.map((key) => [key, 0])) as Record<
    (typeof COUNTERS)[number],
    number
  >;
  let p50 = 0;
  let p99 = 0;
  let weight = 0;
  let fps = 0;
  let detectionFps = 0;
  for (const row of rows) {
    const m = row.metrics as Partial<MinuteMetrics>;
    for (const key of COUNTERS) totals[key] += Number(m[key] ?? 0);
    fps += Number(m.camera_fps ?? 0);
    detectionFps += Number(m.detection_fps ?? 0);
    const inferred = Number(m.frames_inferred ?? 0);
    if (inferred > 0 && m.inference_ms?.p50 != null && m.inference_ms.p99 != null) {
      p50 += m.inference_ms.p50 * inferred;
      p99 += m.inference_ms.p99 * inferred;
      weight += inferred;
    }
  }
  const n = rows.length;
  return {
    minutes: n,
    ...totals,
    camera_fps: n ? round(fps / n) : null,
    detection_fps: n ? round(detectionFps / n) : null,
    inference_latency_ms: {
      p50: weight ? round(p50 / weight) : null,
      p99: weight ? round(p99 / weight) : null,
    },
  };
}

/** The whole model's figures and each camera's. */
export function summariseMinutes(rows: readonly MinuteOfCamera[]) {
  const byCamera = new Map<string, MinuteOfCamera[]>();
  for (const row of rows) byCamera.set(row.camera_id, [...(byCamera.get(row.camera_id) ?? []), row]);
  const whole = summarise(rows);
  return {
    ...whole,
    // Rates of the model as a whole are the cameras' added together, per minute.
    camera_fps: whole.camera_fps === null ? null : round(whole.camera_fps * byCamera.size),
    detection_fps: whole.detection_fps === null ? null : round(whole.detection_fps * byCamera.size),
    cameras: [...byCamera].map(([camera_id, minutes]) => ({
      camera_id,
      model_versions: [...new Set(minutes.map((m) => m.model_version))],
      ...summarise(minutes),
    })),
  };
}
