import { describe, expect, it } from 'vitest';
import {
  createGreySampler,
  createMotionGate,
  shouldInfer,
} from '../../../../appliance/vision/motion/index.ts';

interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A deterministic generator, so noisy frames are the same on every run. */
function lcg(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** A frame with a soft horizontal gradient, dark rectangles, and optional sensor noise. */
interface FrameOptions {
  rect?: Rect;
  rects?: Rect[];
  noise?: number;
  seed?: number;
  shift?: number;
}

function makeFrame(width: number, height: number, options: FrameOptions = {}) {
  const { noise = 0, seed = 1, shift = 0 } = options;
  const data = new Uint8Array(width * height * 3);
  const random = lcg(seed);
  const rects = [...(options.rects ?? []), ...(options.rect ? [options.rect] : [])];
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const inside = rects.some((r) => x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h);
      const base = inside ? 30 : 120 + Math.round((x / width) * 60) + shift;
      const i = (y * width + x) * 3;
      for (let c = 0; c < 3; c += 1) {
        const jitter = noise ? Math.round((random() * 2 - 1) * noise) : 0;
        data[i + c] = Math.max(0, Math.min(255, base + jitter));
      }
    }
  }
  return { width, height, data };
}

describe('grey sampler', () => {
  it('averages each cell to its luma', () => {
    const sampler = createGreySampler({ sourceWidth: 8, sourceHeight: 4, width: 2, height: 2, samples: 4 });
    const rgb = new Uint8Array(8 * 4 * 3);
    for (let y = 0; y < 4; y += 1) {
      for (let x = 4; x < 8; x += 1) rgb.set([255, 255, 255], (y * 8 + x) * 3);
    }
    const out = new Uint8Array(4);
    sampler.sample(rgb, out);
    expect([...out]).toEqual([0, 255, 0, 255]);
  });
});

describe('motion gate', () => {
  const W = 640;
  const H = 360;

  it('calls a still, noise-free scene not moving', () => {
    const gate = createMotionGate();
    const frame = makeFrame(W, H, { rect: { x: 100, y: 100, w: 60, h: 120 } });
    expect(gate.check(frame)).toEqual({ moving: false, score: 0 });
    for (let i = 0; i < 5; i += 1) expect(gate.check(frame)).toEqual({ moving: false, score: 0 });
  });

  it('calls a moved rectangle moving, and says where', () => {
    const gate = createMotionGate({ regions: true });
    gate.check(makeFrame(W, H, { rect: { x: 100, y: 100, w: 60, h: 120 } }));
    const result = gate.check(makeFrame(W, H, { rect: { x: 180, y: 110, w: 60, h: 120 } }));
    expect(result.moving).toBe(true);
    expect(result.score).toBeGreaterThan(0.005);
    // Where the rectangle was and where it is now, each to a cell's size (10 px here).
    expect(result.regions).toEqual([
      [100, 100, 160, 220],
      [180, 110, 240, 230],
    ]);
  });

  it('reports separate regions for separate movers', () => {
    const gate = createMotionGate({ regions: true });
    gate.check(makeFrame(W, H));
    const two = makeFrame(W, H, {
      rects: [
        { x: 20, y: 20, w: 40, h: 40 },
        { x: 500, y: 250, w: 40, h: 40 },
      ],
    });
    expect(gate.check(two).regions).toEqual([
      [20, 20, 60, 60],
      [500, 250, 540, 290],
    ]);
  });

  it('calls sensor noise and a small exposure drift not moving', () => {
    const gate = createMotionGate();
    gate.check(makeFrame(W, H, { noise: 8, seed: 1 }));
    for (let seed = 2; seed < 12; seed += 1) {
      expect(gate.check(makeFrame(W, H, { noise: 8, seed, shift: seed % 3 })).moving).toBe(false);
    }
  });

  it('absorbs an object that stopped, which the re-check policy then covers', () => {
    const gate = createMotionGate({ backgroundRate: 0.2 });
    gate.check(makeFrame(W, H));
    const parked = makeFrame(W, H, { rect: { x: 300, y: 200, w: 120, h: 80 } });
    expect(gate.check(parked).moving).toBe(true);
    let still = 0;
    for (let i = 0; i < 40 && !still; i += 1) if (!gate.check(parked).moving) still = i;
    expect(still).toBeGreaterThan(0);
    expect(gate.check(parked).moving).toBe(false);
  });

  it('calls a change that then holds still motion once, not while the background catches up', () => {
    const gate = createMotionGate();
    gate.check(makeFrame(W, H));
    const tray = makeFrame(W, H, { rect: { x: 200, y: 120, w: 240, h: 160 } });
    expect(gate.check(tray).moving).toBe(true);
    for (let i = 0; i < 30; i += 1) expect(gate.check(tray).moving, `frame ${i}`).toBe(false);
    // And the next change is motion again.
    expect(gate.check(makeFrame(W, H)).moving).toBe(true);
  });

  it('keeps calling a slow mover moving, though each frame differs little from the one before', () => {
    const gate = createMotionGate();
    gate.check(makeFrame(W, H, { rect: { x: 100, y: 100, w: 120, h: 80 } }));
    const moving = Array.from(
      { length: 20 },
      (_, i) => gate.check(makeFrame(W, H, { rect: { x: 102 + i * 2, y: 100, w: 120, h: 80 } })).moving,
    );
    expect(moving.filter(Boolean).length).toBeGreaterThan(15);
  });

  it('starts a new background when the frame size changes', () => {
    const gate = createMotionGate();
    gate.check(makeFrame(W, H));
    expect(gate.check(makeFrame(320, 180, { rect: { x: 10, y: 10, w: 100, h: 100 } })).moving).toBe(false);
  });

  it('costs tens of microseconds a frame', () => {
    for (const [width, height] of [
      [640, 360],
      [1280, 720],
    ] as const) {
      const gate = createMotionGate({ regions: true });
      const frames = [
        makeFrame(width, height, { noise: 4 }),
        makeFrame(width, height, { noise: 4, seed: 2 }),
      ];
      for (let i = 0; i < 200; i += 1) gate.check(frames[i % 2]!);
      const rounds = 2000;
      const start = process.hrtime.bigint();
      for (let i = 0; i < rounds; i += 1) gate.check(frames[i % 2]!);
      const micros = Number(process.hrtime.bigint() - start) / 1000 / rounds;
      console.log(`motion gate at ${width}x${height}: ${micros.toFixed(1)} µs a frame`);
      expect(micros).toBeLessThan(2000);
    }
  });
});

describe('inference policy', () => {
  it('infers on motion, on the first frame, and every recheck period', () => {
    const still = { moving: false };
    expect(shouldInfer(1000, { moving: true }, 900, 5000)).toBe(true);
    expect(shouldInfer(1000, still, undefined, 5000)).toBe(true);
    expect(shouldInfer(1000, still, 0, 5000)).toBe(false);
    expect(shouldInfer(5000, still, 0, 5000)).toBe(true);
  });
});
