/** What the bench asks the API process over IPC, and what it answers. */

export interface Percentiles {
  count: number;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

export interface InitRequest {
  op: 'init';
  /** The model's path without extension (models/vehicles). */
  model: string;
  maxBatch: number;
}

export interface InitReply {
  pid: number;
  port: number;
  /** Threads that appeared with the detector: its worker and whatever onnxruntime started in it. */
  detector_tids: number[];
  model: { name: string; version: string; input_size: number; classes: string[] };
}

export interface BaselineRequest {
  op: 'baseline';
  file: string;
  width: number;
  height: number;
  frames: number;
  /** One frame of the clip in this many is taken, so the frames show the whole clip. */
  step: number;
  seconds: number;
  maxBatch: number;
}

/** Bare inference on decoded frames through the detector, at one batch size. */
export interface InferenceFigures {
  batch: number;
  frames: number;
  seconds: number;
  frames_per_second: number;
  /** onnxruntime's run for the whole batch (the model alone). */
  inference_ms_per_batch: Percentiles;
  /** The same shared by the frames of its batch. */
  inference_ms_per_frame: number | null;
  /** Letterboxing and decoding in the worker, per frame. */
  pre_ms_per_frame: number | null;
  post_ms_per_frame: number | null;
  /** From the request to the answer: queueing, the copy to the worker and back, and the run. */
  round_trip_ms: Percentiles;
}

export interface BaselineReply {
  frames_decoded: number;
  /** Every how many frames of the clip one was taken. */
  frame_step: number;
  batch_1: InferenceFigures;
  batch_n: InferenceFigures;
  /** The motion gate's check on these frames, on this thread. */
  motion_check_ms: Percentiles;
}

export interface CameraSpec {
  id: string;
  url: string;
}

export interface StartRequest {
  op: 'start';
  cameras: CameraSpec[];
  width: number;
  height: number;
  fps: number;
  /** Camera i starts i × this after the first. */
  staggerMs: number;
}

export interface CameraWindow {
  id: string;
  status: string;
  /** Status changes during the window (offline and back: a restarted ffmpeg). */
  status_changes: number;
  frames_read: number;
  frames_dropped: number;
  frames_skipped_by_motion: number;
  frames_inferred: number;
  detections: number;
  capture_to_result_ms: Percentiles;
}

export interface DetectorWindow {
  frames: number;
  batches: number;
  mean_batch: number | null;
  inference_ms_per_batch: Percentiles;
  /** Sums over the window's batches, ms. */
  inference_ms_total: number;
  pre_ms_total: number;
  post_ms_total: number;
  /** From the camera's request to its answer: waiting for the worker, the copies, the run. */
  round_trip_ms: Percentiles;
}

export interface WindowReply {
  seconds: number;
  event_loop_delay_ms: Percentiles;
  cameras: CameraWindow[];
  capture_to_result_ms: Percentiles;
  detector: DetectorWindow;
  /** On the event loop, from the detector's answer to the camera's result: tracker, lane, emit. */
  after_detection_ms: Percentiles;
  lane_events: Record<string, number>;
  http_requests_served: number;
  warnings: number;
  last_warnings: string[];
}

export type ApiRequest =
  | InitRequest
  | BaselineRequest
  | StartRequest
  | { op: 'mark' }
  | { op: 'collect' }
  | { op: 'stop' };
