/** What the camera pipeline benchmark runs: the clip, the cameras, and how long each measure lasts. */
export interface VisionPlan {
  /** The synthetic lane clip: a held-out seed (below 10000), rendered at the camera's size and rate. */
  clip: { seed: number; seconds: number; width: number; height: number; fps: number };
  /** Camera counts measured, one fresh API process each, for each clip: the lane, then the noisy lane. */
  cameraCounts: readonly number[];
  /** The camera settings' defaults: `inference_fps` and `inference_resolution`. */
  inferenceFps: number;
  /** The edge setting `inference_batch_size` (its default). */
  maxBatch: number;
  /** Bare inference: frames decoded once from the clip, then run back to back this long per batch size. */
  baselineFrames: number;
  baselineSeconds: number;
  /** API process up, model loaded, no camera: the event loop's own cost of answering the polls. */
  idleSeconds: number;
  /** Cameras started, not measured: ffmpeg's start, the first tracks, the JIT. */
  warmupSeconds: number;
  /** The sustained window measured with the cameras running. */
  seconds: number;
  /** The parent asks the API process for its cameras' figures this often, one request at a time. */
  pollIntervalMs: number;
  /**
   * A camera measure during which the rest of the machine used more than this many cores is run
   * once more at the end, while the whole run stays within `budgetSeconds`; the quieter run is kept.
   */
  contendedCores: number;
  budgetSeconds: number;
}

export const FULL_PLAN: VisionPlan = {
  clip: { seed: 8, seconds: 120, width: 1280, height: 720, fps: 15 },
  cameraCounts: [1, 8],
  inferenceFps: 15,
  maxBatch: 4,
  baselineFrames: 64,
  baselineSeconds: 10,
  idleSeconds: 5,
  warmupSeconds: 8,
  seconds: 60,
  pollIntervalMs: 20,
  contendedCores: 0.25,
  budgetSeconds: 900,
};

export const QUICK_PLAN: VisionPlan = {
  ...FULL_PLAN,
  baselineFrames: 16,
  baselineSeconds: 3,
  idleSeconds: 2,
  warmupSeconds: 4,
  seconds: 10,
  budgetSeconds: 300,
};
