/** How long each footprint measure lasts and how big its load is. */
export interface FootprintPlan {
  /** From the program's ready line to the first sample: start-up's garbage collected, timers run once. */
  settleSeconds: number;
  /** The idle window sampled. */
  idleSeconds: number;
  /** The broker burst: fridge sensors, QoS 1 messages each, messages outstanding per sensor. */
  burst: { devices: number; perDevice: number; window: number };
  /** Sampled on after the burst's last acknowledgement: what the broker still holds. */
  afterBurstSeconds: number;
  cameras: number;
  /** Cameras running before the window: ffmpeg's start, the model's first batches, the JIT. */
  cameraWarmupSeconds: number;
  cameraSeconds: number;
  /** The cloud under load: autocannon's connections over the window, and a store's sync beside it. */
  cloudLoadSeconds: number;
  cloudConnections: number;
  /** Orders the store writes, then pushes, every second of the load. */
  ordersPerSecond: number;
}

export const FULL_PLAN: FootprintPlan = {
  settleSeconds: 15,
  idleSeconds: 10,
  burst: { devices: 10, perDevice: 500, window: 10 },
  afterBurstSeconds: 3,
  cameras: 8,
  cameraWarmupSeconds: 15,
  cameraSeconds: 20,
  cloudLoadSeconds: 60,
  cloudConnections: 10,
  ordersPerSecond: 20,
};

export const QUICK_PLAN: FootprintPlan = {
  ...FULL_PLAN,
  settleSeconds: 8,
  idleSeconds: 5,
  burst: { devices: 10, perDevice: 200, window: 10 },
  cameraWarmupSeconds: 8,
  cameraSeconds: 10,
  cloudLoadSeconds: 20,
};

/** The cameras' clip: the camera benchmark's lane clip (scripts/bench/vision/clips.ts), shorter. */
export const CLIP = { seed: 8, seconds: 30, width: 1280, height: 720, fps: 15 };
