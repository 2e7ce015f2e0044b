/**
 * The API process's cameras: one `createCameraPipeline` per camera, configured as a drive-thru lane
 * camera with the settings' defaults, sharing one detector. Each camera's detector is the shared
 * one wrapped to note every answer's timings (the pipeline code is not touched), and each result's
 * latency, so a window of the run can be measured from a mark to a collect.
 */
import type { Logger } from 'pino';
import type { DetectionResult, Detector } from '../../../appliance/vision/detect/detector.ts';
import type { LaneEvent, LaneZones } from '../../../appliance/vision/drive-thru/lane.ts';
import {
  type CameraPipeline,
  type CameraResult,
  createCameraPipeline,
} from '../../../appliance/vision/pipeline/camera.ts';
import { CAMERA_DEFAULTS, DRIVE_THRU_DEFAULTS } from '../../../appliance/vision/settings/index.ts';
import { trackerOptionsFromSettings } from '../../../appliance/vision/track/index.ts';
import { QUEUE_ZONES, zonesFor } from '../../vision/world/layout.ts';
import type { CameraWindow, DetectorWindow, StartRequest } from './protocol.ts';
import { percentiles, Samples } from './stats.ts';

type Metrics = ReturnType<CameraPipeline['metrics']>;

interface Camera {
  pipeline: CameraPipeline;
  /** Its figures at the window's mark: the pipeline's counters run from its start. */
  marked: Metrics;
  statusChanges: number;
  latency: Samples;
  /** When its detector last answered, to time what the pipeline does after. */
  answeredAt: number;
}

/** The synthetic world's lane as its camera is configured (test/appliance/vision/support/world-lane.ts). */
const laneOf = (width: number, height: number): LaneZones => ({
  zones: zonesFor(width, height),
  queue: QUEUE_ZONES,
  menu: 'menu',
  pay: 'pay',
  pickup: 'pickup',
  bay: 'bay',
  bypass: 'bypass',
});

function detectorTimings() {
  const timings = {
    frames: 0,
    batches: 0,
    inference: 0,
    pre: 0,
    post: 0,
    perBatch: new Samples(),
    roundTrip: new Samples(),
  };
  return {
    /** A batch's times are shared by its frames: each frame adds its share. */
    add(result: DetectionResult) {
      timings.frames += 1;
      timings.batches += 1 / result.batch;
      timings.inference += result.inferenceMs / result.batch;
      timings.pre += result.preMs / result.batch;
      timings.post += result.postMs / result.batch;
      timings.perBatch.push(result.inferenceMs);
      timings.roundTrip.push(result.totalMs);
    },
    clear() {
      Object.assign(timings, { frames: 0, batches: 0, inference: 0, pre: 0, post: 0 });
      timings.perBatch.clear();
      timings.roundTrip.clear();
    },
    window(): DetectorWindow {
      const batches = Math.round(timings.batches);
      return {
        frames: timings.frames,
        batches,
        mean_batch: batches > 0 ? Number((timings.frames / batches).toFixed(2)) : null,
        inference_ms_per_batch: percentiles(timings.perBatch.view()),
        inference_ms_total: Math.round(timings.inference),
        pre_ms_total: Math.round(timings.pre),
        post_ms_total: Math.round(timings.post),
        round_trip_ms: percentiles(timings.roundTrip.view()),
      };
    },
  };
}

/** The shared detector as one camera sees it, noting each answer. */
function noting(detector: Detector, onAnswer: (result: DetectionResult) => void): Detector {
  return {
    get manifest() {
      return detector.manifest;
    },
    detect: async (frame, options) => {
      const result = await detector.detect(frame, options);
      onAnswer(result);
      return result;
    },
    swap: (next) => detector.swap(next),
    close: () => detector.close(),
  };
}

export function createCameraRig(detector: Detector, log: Logger) {
  const cameras: Camera[] = [];
  const timings = detectorTimings();
  const latency = new Samples();
  const afterDetection = new Samples();
  let laneEvents: Record<string, number> = {};
  const vehicle = detector.manifest.classes.indexOf('vehicle');

  function add(request: StartRequest, id: string, url: string) {
    const tracker = trackerOptionsFromSettings({
      fps: request.fps,
      min_confidence: CAMERA_DEFAULTS.min_confidence,
      track_timeout_seconds: DRIVE_THRU_DEFAULTS.track_timeout_seconds,
      min_track_length: DRIVE_THRU_DEFAULTS.min_track_length,
      vehicleClasses: vehicle >= 0 ? [vehicle] : [],
    });
    let camera: Camera | undefined;
    const shared = noting(detector, (result) => {
      timings.add(result);
      if (camera) camera.answeredAt = performance.now();
    });
    const pipeline = createCameraPipeline(
      {
        id,
        url,
        width: request.width,
        height: request.height,
        fps: request.fps,
        loop: true,
        minConfidence: CAMERA_DEFAULTS.min_confidence,
        iouThreshold: CAMERA_DEFAULTS.iou_threshold,
        tracker,
        lane: laneOf(request.width, request.height),
      },
      { detector: shared, log },
    );
    camera = {
      pipeline,
      marked: pipeline.metrics(),
      statusChanges: 0,
      latency: new Samples(),
      answeredAt: 0,
    };
    const self = camera;
    pipeline.on('result', (result: CameraResult) => {
      afterDetection.push(performance.now() - self.answeredAt);
      latency.push(result.latencyMs);
      self.latency.push(result.latencyMs);
    });
    pipeline.on('status', () => {
      self.statusChanges += 1;
    });
    pipeline.on('lane', (event: LaneEvent) => {
      laneEvents[event.kind] = (laneEvents[event.kind] ?? 0) + 1;
    });
    cameras.push(camera);
    return pipeline;
  }

  function cameraWindow(camera: Camera): CameraWindow {
    const now = camera.pipeline.metrics();
    const since = (key: keyof Metrics) => (now[key] as number) - (camera.marked[key] as number);
    return {
      id: now.camera_id,
      status: now.status,
      status_changes: camera.statusChanges,
      frames_read: since('frames_read'),
      frames_dropped: since('frames_dropped'),
      frames_skipped_by_motion: since('frames_skipped_by_motion'),
      frames_inferred: since('frames_inferred'),
      detections: since('detections'),
      capture_to_result_ms: percentiles(camera.latency.view(), 1),
    };
  }

  return {
    /** Starts the cameras `staggerMs` apart, so their frames do not all arrive at the same instant. */
    start(request: StartRequest) {
      request.cameras.forEach(({ id, url }, i) => {
        const pipeline = add(request, id, url);
        setTimeout(() => pipeline.start(), i * request.staggerMs);
      });
    },
    metrics: () => cameras.map((camera) => camera.pipeline.metrics()),
    get count() {
      return cameras.length;
    },
    mark() {
      for (const camera of cameras) {
        camera.marked = camera.pipeline.metrics();
        camera.statusChanges = 0;
        camera.latency.clear();
      }
      timings.clear();
      latency.clear();
      afterDetection.clear();
      laneEvents = {};
    },
    collect() {
      return {
        cameras: cameras.map(cameraWindow),
        capture_to_result_ms: percentiles(latency.view(), 1),
        detector: timings.window(),
        after_detection_ms: percentiles(afterDetection.view(), 3),
        lane_events: laneEvents,
      };
    },
    async stop() {
      await Promise.all(cameras.map((camera) => camera.pipeline.stop()));
    },
  };
}
