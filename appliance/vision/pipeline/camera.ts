/**
 * One camera's pipeline: its capture, the motion gate deciding which frames are worth a model run,
 * the shared detector, its own tracker, and (for a lane camera) the drive-thru analytics. The gate
 * sees every frame as it arrives; of the frames it sends on, one arriving while another is in the
 * pipeline waits, replaced by a newer one (latest wins, the older dropped), never queued.
 * Keeps the camera's figures: capture and detection rates, frames skipped by motion, inference
 * time and capture-to-result latency percentiles.
 */
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { type CaptureStatus, createCapture } from '../capture/index.ts';
import type { Detector } from '../detect/detector.ts';
import { createLaneAnalytics, type LaneEvent, type LaneZones } from '../drive-thru/lane.ts';
import { createMotionGate, shouldInfer } from '../motion/index.ts';
import { createTracker, type TrackerOptions } from '../track/index.ts';
import type { Detection, Frame, TrackedObject } from '../types.ts';
import { createLiveView, type Seen } from './live-view.ts';
import { createCounterHistory, createRecentSamples } from './recent.ts';

export interface CameraConfig {
  id: string;
  url: string;
  /** The inference resolution and rate (the camera's `inference_resolution`, `inference_fps`). */
  width: number;
  height: number;
  fps: number;
  loop?: boolean;
  /** Reported detections and new tracks need this (`min_confidence`); the tracker's second pass goes lower. */
  minConfidence: number;
  iouThreshold: number;
  tracker: Partial<TrackerOptions>;
  /** A drive-thru lane camera's zones. */
  lane?: LaneZones | undefined;
}

export interface CameraResult {
  cameraId: string;
  seq: number;
  capturedAt: number;
  /** At or above `min_confidence`: what is reported. */
  detections: Detection[];
  /** Every box down to the tracker's floor: weaker ones a verification shows as uncertain. */
  candidates: Detection[];
  tracks: TrackedObject[];
  /** The model run's own time (the batch this frame went in). */
  inferenceMs: number;
  /** From the frame leaving ffmpeg to this result. */
  latencyMs: number;
  /** Ids of the tracks the tracker ended with this frame. */
  removed: number[];
  /**
   * The frame itself, for a snapshot: valid only while the 'result' listeners run (its buffer goes
   * back to the capture's pool afterwards), so copy what you keep.
   */
  frame: Frame;
}

/** What a pipeline needs of the detector: the runtime hands it one that follows model swaps. */
export type FrameDetector = Pick<Detector, 'detect'>;

/** The tracker's second pass keeps boxes down to this. */
const LOW_FLOOR = 0.1;
/** With nothing moving and nothing tracked, look again this often anyway. */
const IDLE_RECHECK_MS = 5000;
/** With objects tracked that stopped moving (a car at the window), this often. */
const TRACKED_RECHECK_MS = 1000;
const SAMPLES = 512;
/** The span of a camera's live figures (its status on the screen). */
const RECENT_MS = 60_000;

/** The last SAMPLES values, for percentiles of recent behaviour. */
function window() {
  const values = new Float64Array(SAMPLES);
  let count = 0;
  return {
    add(value: number) {
      values[count % SAMPLES] = value;
      count += 1;
    },
    percentile(p: number) {
      const n = Math.min(count, SAMPLES);
      if (n === 0) return null;
      const sorted = Array.from(values.subarray(0, n)).sort((a, b) => a - b);
      return sorted[Math.min(n - 1, Math.floor((p / 100) * n))]!;
    },
    get count() {
      return count;
    },
  };
}

export function createCameraPipeline(
  config: CameraConfig,
  deps: { detector: FrameDetector; log: Logger; ffmpegPath?: string | undefined },
) {
  const log = deps.log.child({ cameraId: config.id });
  const events = new EventEmitter();
  const capture = createCapture({
    cameraId: config.id,
    url: config.url,
    width: config.width,
    height: config.height,
    fps: config.fps,
    loop: config.loop ?? false,
    log,
    ffmpegPath: deps.ffmpegPath,
    backoff: { initialMs: 500, maxMs: 30_000 },
    stallTimeoutMs: Math.max(5000, (4 / config.fps) * 1000),
  });
  const gate = createMotionGate();
  const tracker = createTracker({
    ...config.tracker,
    highThreshold: config.minConfidence,
    lowThreshold: LOW_FLOOR,
  });
  const lane = config.lane && createLaneAnalytics(config.lane);
  lane?.onEvent((event: LaneEvent) => events.emit('lane', event));
  const inference = window();
  const latency = window();
  const recentInference = createRecentSamples(RECENT_MS, Math.ceil(config.fps * 60) + 64);
  const drops = createCounterHistory(RECENT_MS);
  const live = createLiveView(config.id);
  let seen: Seen | undefined;
  const counts = { inferred: 0, skippedByMotion: 0, detections: 0 };
  let lastInferredAt: number | undefined;
  let lastTracks: TrackedObject[] = [];
  let lastDetectionAt: number | undefined;
  const startedAt = Date.now();
  /** Frames that must be looked at whatever the motion gate says (an order to verify now). */
  let forced = 0;

  /**
   * Every frame as it is read, before it may wait for the detector: whether it needs a model run.
   * A frame nothing moved in is done here, so it neither waits behind a detection nor pushes out
   * a frame that is waiting for one (latest-wins drops only frames the model should have seen).
   */
  function admit(frame: Frame) {
    drops.sample(frame.capturedAt, () => capture.stats().framesDropped);
    const motion = gate.check(frame);
    const recheck = lastTracks.length > 0 ? TRACKED_RECHECK_MS : IDLE_RECHECK_MS;
    if (forced === 0 && !shouldInfer(frame.capturedAt, motion, lastInferredAt, recheck)) {
      counts.skippedByMotion += 1;
      // Nothing moved since the model's last look: its boxes still fit this frame.
      live.show(frame, seen);
      return false;
    }
    lastInferredAt = frame.capturedAt;
    return true;
  }

  async function onFrame(frame: Frame) {
    // Counted down as frames are inferred, not admitted: one admitted and then dropped is not a look.
    if (forced > 0) forced -= 1;
    const result = await deps.detector.detect(frame, { floor: LOW_FLOOR, iouThreshold: config.iouThreshold });
    // Frames the motion gate skipped showed nothing moving: to the tracker they did not happen, or
    // it would carry a car that stopped onwards at its last speed through the gap.
    const { tracks, removed } = tracker.update(result.detections, counts.inferred);
    lastTracks = tracks;
    lane?.update(tracks, frame.capturedAt / 1000, removed);
    const reported = result.detections.filter((d) => d.confidence >= config.minConfidence);
    counts.inferred += 1;
    counts.detections += reported.length;
    if (reported.length > 0) lastDetectionAt = frame.capturedAt;
    inference.add(result.inferenceMs);
    recentInference.add(frame.capturedAt, result.inferenceMs);
    seen = { seq: frame.seq, capturedAt: frame.capturedAt, detections: reported, tracks };
    live.show(frame, seen);
    const latencyMs = Date.now() - frame.capturedAt;
    latency.add(latencyMs);
    const out: CameraResult = {
      cameraId: config.id,
      seq: frame.seq,
      capturedAt: frame.capturedAt,
      detections: reported,
      candidates: result.detections,
      tracks,
      inferenceMs: result.inferenceMs,
      latencyMs,
      removed,
      frame,
    };
    events.emit('result', out);
  }

  capture.onFrame(
    (frame) => onFrame(frame).catch((error: unknown) => log.warn({ err: error }, 'frame not processed')),
    admit,
  );
  capture.on('status', (change) => events.emit('status', change));

  return {
    id: config.id,
    start: () => capture.start(),
    stop() {
      live.close('stopped');
      return capture.stop();
    },
    on(event: 'result' | 'status' | 'lane', listener: (payload: never) => void) {
      events.on(event, listener as (...args: unknown[]) => void);
    },
    get status(): CaptureStatus {
      return capture.status;
    },
    laneStatus: (at = Date.now()) => lane?.status(at / 1000),
    /** The lane's record of a tracked car (its zones and times), for a lane camera. */
    laneCar: (trackId: number) => lane?.car(trackId),
    /**
     * The next `frames` frames' results, each inferred whatever the motion gate says: a still tray
     * at the pickup window is looked at now rather than at the next periodic re-check. Rejects
     * when the camera delivers none in `timeoutMs` (it is offline or stalled).
     */
    inspect(frames: number, timeoutMs: number, onResult?: (result: CameraResult) => void) {
      forced = Math.max(forced, frames);
      return new Promise<CameraResult[]>((resolve, reject) => {
        const results: CameraResult[] = [];
        const listener = (result: CameraResult) => {
          onResult?.(result);
          results.push(result);
          if (results.length < frames) return;
          finish();
          resolve(results);
        };
        const timer = setTimeout(() => {
          finish();
          reject(
            new Error(`camera ${config.id} gave ${results.length} of ${frames} frames in ${timeoutMs} ms`),
          );
        }, timeoutMs);
        const finish = () => {
          clearTimeout(timer);
          events.off('result', listener);
        };
        events.on('result', listener);
      });
    },
    /**
     * `use` run on the next frame the capture hands over, with what the model saw as of it; see
     * live-view.ts for the buffer's loan.
     */
    nextFrame: live.next,
    /** A recent frame's view (the newest without `seq`): its size and the model's boxes then. */
    frameView: live.view,
    /** The figures a camera's status shows, cheap enough to ask every second. */
    liveFigures(at = Date.now()) {
      const stats = capture.stats();
      return {
        status: capture.status,
        fps: stats.fps,
        lastFrameAt: stats.lastFrameAt,
        framesDroppedLastMinute: drops.increase(at, stats.framesDropped),
        inferenceLastMinute: recentInference.percentiles(at),
      };
    },
    metrics() {
      const stats = capture.stats();
      const seconds = Math.max(1, (Date.now() - startedAt) / 1000);
      return {
        camera_id: config.id,
        status: capture.status,
        camera_fps: stats.fps,
        detection_fps: counts.inferred / seconds,
        frames_read: stats.framesRead,
        frames_dropped: stats.framesDropped,
        frames_skipped_by_motion: counts.skippedByMotion,
        frames_inferred: counts.inferred,
        detections: counts.detections,
        inference_latency_ms: { p50: inference.percentile(50), p99: inference.percentile(99) },
        capture_to_result_ms: {
          p50: latency.percentile(50),
          p95: latency.percentile(95),
          p99: latency.percentile(99),
        },
        last_detection: lastDetectionAt === undefined ? null : new Date(lastDetectionAt).toISOString(),
      };
    },
  };
}

export type CameraPipeline = ReturnType<typeof createCameraPipeline>;
