import type { MotObject } from '../../../../appliance/vision/track/mot-metrics.ts';
import type { Box, Detection } from '../../../../appliance/vision/types.ts';

/** mulberry32: a small seeded generator, so every synthetic scene is the same on every run. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(random: () => number) {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

export const CAR = 2;

export function detection(box: Box, confidence = 0.9, classId = CAR): Detection {
  return { box, classId, className: classId === CAR ? 'car' : `class-${classId}`, confidence };
}

/** A box of the given size whose top-left corner is at (x, y). */
export const boxAt = (x: number, y: number, w = 120, h = 80): Box => [x, y, x + w, y + h];

export interface SceneOptions {
  seed: number;
  frames: number;
  objects: number;
  width: number;
  height: number;
  /** Chance a true object is not detected in a frame. */
  missRate: number;
  /** Chance a detected true object is detected with a confidence under 0.8. */
  lowConfidenceRate: number;
  /** Mean false detections a frame, at random places, a quarter of them confident. */
  falsePositivesPerFrame: number;
  /** Standard deviation of a detected box's edges, as a fraction of the box's size. */
  boxNoise: number;
  /** Largest speed, pixels a frame. */
  maxSpeed: number;
  /** Every object present from the first frame to the last, turning back at the frame's edges. */
  stayInView: boolean;
}

export interface SceneFrame {
  groundTruth: MotObject[];
  detections: Detection[];
}

interface Mover {
  id: number;
  from: number;
  to: number;
  x: number;
  y: number;
  vx: number;
  vy: number;
  w: number;
  h: number;
}

function makeMover(id: number, options: SceneOptions, random: () => number): Mover {
  const from = Math.floor(random() * options.frames * 0.6);
  const angle = random() * 2 * Math.PI;
  const speed = 1 + random() * (options.maxSpeed - 1);
  return {
    id,
    from,
    to: Math.min(options.frames, from + 60 + Math.floor(random() * options.frames)),
    x: 100 + random() * (options.width - 300),
    y: 80 + random() * (options.height - 240),
    vx: speed * Math.cos(angle),
    vy: speed * Math.sin(angle),
    w: 80 + random() * 120,
    h: 60 + random() * 90,
  };
}

function turnBack(mover: Mover, options: SceneOptions) {
  if (mover.x < 0 || mover.x + mover.w > options.width) mover.vx = -mover.vx;
  if (mover.y < 0 || mover.y + mover.h > options.height) mover.vy = -mover.vy;
}

/** Cars moving about with a little wobble, detected with noise, misses and false detections. */
export function makeScene(overrides: Partial<SceneOptions> = {}): SceneFrame[] {
  const options: SceneOptions = {
    seed: 1,
    frames: 300,
    objects: 8,
    width: 1280,
    height: 720,
    missRate: 0.1,
    lowConfidenceRate: 0.2,
    falsePositivesPerFrame: 0.5,
    boxNoise: 0.02,
    maxSpeed: 8,
    stayInView: false,
    ...overrides,
  };
  const random = seededRandom(options.seed);
  const movers = Array.from({ length: options.objects }, (_, i) => makeMover(i + 1, options, random));
  if (options.stayInView) {
    for (const mover of movers) Object.assign(mover, { from: 0, to: options.frames });
  }
  const frames: SceneFrame[] = [];
  for (let f = 0; f < options.frames; f++) {
    const frame: SceneFrame = { groundTruth: [], detections: [] };
    for (const mover of movers) {
      if (f < mover.from || f >= mover.to) continue;
      mover.vx += gaussian(random) * 0.1;
      mover.vy += gaussian(random) * 0.1;
      mover.x += mover.vx;
      mover.y += mover.vy;
      if (options.stayInView) turnBack(mover, options);
      const box: Box = [mover.x, mover.y, mover.x + mover.w, mover.y + mover.h];
      if (box[2] < 0 || box[3] < 0 || box[0] > options.width || box[1] > options.height) continue;
      frame.groundTruth.push({ id: mover.id, box });
      if (random() < options.missRate) continue;
      const noisy = box.map((v, k) => v + gaussian(random) * options.boxNoise * (k % 2 ? mover.h : mover.w));
      const confidence = random() < options.lowConfidenceRate ? 0.3 + random() * 0.5 : 0.8 + random() * 0.2;
      frame.detections.push(detection(noisy as unknown as Box, confidence));
    }
    let falseCount = 0;
    while (random() < options.falsePositivesPerFrame / (1 + options.falsePositivesPerFrame)) falseCount++;
    for (let k = 0; k < falseCount; k++) {
      const box = boxAt(
        random() * (options.width - 100),
        random() * (options.height - 80),
        40 + random() * 80,
        40 + random() * 60,
      );
      frame.detections.push(detection(box, random() < 0.25 ? 0.8 + random() * 0.2 : 0.1 + random() * 0.6));
    }
    frames.push(frame);
  }
  return frames;
}
