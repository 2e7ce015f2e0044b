import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffmpegPath } from '../../../../scripts/vision/world/ffmpeg.ts';
import { laneLook, renderLaneFrame, writeLaneClip } from '../../../../scripts/vision/world/lane-clip.ts';
import { placeObjects } from '../../../../scripts/vision/world/lane-scene.ts';
import type { LaneTruth } from '../../../../scripts/vision/world/lane-truth.ts';
import {
  DEFAULT_LANE_CONFIG,
  type LaneConfig,
  simulateLane,
} from '../../../../scripts/vision/world/simulator.ts';

const W = 640;
const H = 360;
const makeConfig = (overrides: Partial<LaneConfig> = {}): LaneConfig => ({
  ...DEFAULT_LANE_CONFIG,
  seed: 11,
  seconds: 3,
  fps: 10,
  arrivalsPerHour: 240,
  warmupSeconds: 90,
  ...overrides,
});

function decodeFrameCount(video: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(ffmpegPath(), [
      '-loglevel',
      'error',
      '-i',
      video,
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      'pipe:1',
    ]);
    let bytes = 0;
    child.stdout.on('data', (d: Buffer) => {
      bytes += d.length;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(bytes / (W * H * 3)) : reject(new Error(`ffmpeg ${code}`)),
    );
  });
}

describe('lane clips', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'world-clip-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('renders the same first frame for the same seed', async () => {
    const sim = simulateLane(makeConfig());
    const a = await renderLaneFrame(sim.frames[0]!, 0, laneLook(11, W, H));
    const b = await renderLaneFrame(simulateLane(makeConfig()).frames[0]!, 0, laneLook(11, W, H));
    expect(a.length).toBe(W * H * 3);
    expect(a.equals(b)).toBe(true);
  });

  it('draws each car inside its truth box', async () => {
    const sim = simulateLane(makeConfig());
    const frame = sim.frames[0]!;
    const look = laneLook(11, W, H, { lighting: 'day', noise: 0 });
    const drawn = await renderLaneFrame(frame, 0, look);
    const empty = await renderLaneFrame({ t: 0, objects: [] }, 0, look);
    const cars = placeObjects(frame.objects).filter((o) => o.state.class === 'vehicle' && o.visible === 1);
    expect(cars.length).toBeGreaterThan(0);
    const changed = (x1: number, y1: number, x2: number, y2: number) => {
      let n = 0;
      let total = 0;
      for (let y = Math.ceil(y1); y < Math.floor(y2); y++) {
        for (let x = Math.ceil(x1); x < Math.floor(x2); x++) {
          const i = (y * W + x) * 3;
          total++;
          if (
            Math.abs(drawn[i]! - empty[i]!) +
              Math.abs(drawn[i + 1]! - empty[i + 1]!) +
              Math.abs(drawn[i + 2]! - empty[i + 2]!) >
            24
          )
            n++;
        }
      }
      return n / Math.max(1, total);
    };
    for (const car of cars) {
      const [x1, y1, x2, y2] = car.box;
      expect(changed(x1, y1, x2, y2)).toBeGreaterThan(0.5);
      // Each edge of the box touches the drawing: a band just inside every side has drawn pixels.
      const band = 3;
      expect(changed(x1, y1, x2, y1 + band)).toBeGreaterThan(0.05);
      expect(changed(x1, y2 - band, x2, y2)).toBeGreaterThan(0.05);
      expect(changed(x1, y1, x1 + band, y2)).toBeGreaterThan(0.05);
      expect(changed(x2 - band, y1, x2, y2)).toBeGreaterThan(0.05);
      // Nothing of the car above its box (where no other object stands).
      const above = [x1, Math.max(0, y1 - 6), x2, y1 - 1] as const;
      const clear = placeObjects(frame.objects).every(
        (o) =>
          o === car ||
          o.box[2] < above[0] ||
          o.box[0] > above[2] ||
          o.box[3] < above[1] ||
          o.box[1] > above[3],
      );
      if (clear) expect(changed(...above)).toBeLessThan(0.05);
    }
  });

  it('encodes a 3 s clip that decodes to 30 frames, with its truth beside it', async () => {
    const result = await writeLaneClip({
      config: makeConfig(),
      width: W,
      height: H,
      outDir: dir,
      name: 'short',
    });
    expect(await decodeFrameCount(result.video)).toBe(30);
    const truth = JSON.parse(await readFile(result.truthFile, 'utf8')) as LaneTruth;
    expect(truth.meta).toMatchObject({
      seed: 11,
      fps: 10,
      width: W,
      height: H,
      duration: 3,
      frame_count: 30,
    });
    expect(truth.frames).toHaveLength(30);
    expect(truth.queue_length_per_second).toHaveLength(3);
    expect(Object.keys(truth.meta.zones)).toContain('pickup');
    expect(result.renderMsPerFrame).toBeLessThan(50);
  });
});
