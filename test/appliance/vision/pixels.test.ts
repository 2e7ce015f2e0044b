import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFfmpegPath } from '../../../appliance/vision/capture/index.ts';
import { letterboxInto } from '../../../appliance/vision/detect/letterbox.ts';
import { createGreySampler } from '../../../appliance/vision/motion/index.ts';
import { frameBytes, type PixelFormat, rgbOf } from '../../../appliance/vision/pixels.ts';

const WIDTH = 320;
const HEIGHT = 180;
const FRAMES = 12;

const run = (args: string[]) =>
  promisify(execFile)(resolveFfmpegPath(process.env), ['-v', 'error', ...args], {
    encoding: 'buffer',
    maxBuffer: 64 << 20,
  });

let dir: string;
let clip: string;
// ffmpeg's colour test pattern (saturated colours, so the clamping is exercised) with sensor
// noise, encoded as a camera would send it.
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pixels-'));
  clip = join(dir, 'noisy.mp4');
  await run([
    ...['-f', 'lavfi', '-i', `testsrc2=size=${WIDTH}x${HEIGHT}:rate=10`, '-frames:v', String(FRAMES)],
    ...[
      '-vf',
      'noise=alls=30:allf=t',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      clip,
    ],
  ]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The clip's frames as ffmpeg decodes them to `format`. */
async function decoded(format: PixelFormat) {
  const { stdout } = await run(['-i', clip, '-pix_fmt', format, '-f', 'rawvideo', '-']);
  const bytes = frameBytes(format, WIDTH, HEIGHT);
  return Array.from({ length: stdout.length / bytes }, (_, i) => stdout.subarray(i * bytes, (i + 1) * bytes));
}

// Capture reads yuv420p since it stopped asking ffmpeg for RGB: what the model and the motion
// gate read of a frame must be what they read of ffmpeg's RGB before, bit for bit.
describe('a yuv420p frame read as RGB', () => {
  it('is ffmpeg’s own rgb24 conversion of it, byte for byte, and feeds the model and the gate the same', async () => {
    const [yuv, rgb] = await Promise.all([decoded('yuv420p'), decoded('rgb24')]);
    expect(yuv).toHaveLength(FRAMES);
    const size = 160;
    const grey = (format: PixelFormat) =>
      createGreySampler({
        sourceWidth: WIDTH,
        sourceHeight: HEIGHT,
        width: 64,
        height: 36,
        samples: 4,
        format,
      });
    const [greyYuv, greyRgb] = [grey('yuv420p'), grey('rgb24')];
    for (let i = 0; i < FRAMES; i += 1) {
      const frame = { data: yuv[i]!, width: WIDTH, height: HEIGHT, format: 'yuv420p' as const };
      expect(rgbOf(frame).equals(rgb[i]!)).toBe(true);

      const [fromYuv, fromRgb] = [new Float32Array(3 * size * size), new Float32Array(3 * size * size)];
      letterboxInto(yuv[i]!, WIDTH, HEIGHT, size, fromYuv, 0, 'yuv420p');
      letterboxInto(rgb[i]!, WIDTH, HEIGHT, size, fromRgb, 0, 'rgb24');
      expect(Buffer.from(fromYuv.buffer).equals(Buffer.from(fromRgb.buffer))).toBe(true);

      const [a, b] = [new Uint8Array(64 * 36), new Uint8Array(64 * 36)];
      greyYuv.sample(yuv[i]!, a);
      greyRgb.sample(rgb[i]!, b);
      expect(a).toEqual(b);
    }
  });

  it('copies an RGB frame as it is', () => {
    const data = Buffer.from(Array.from({ length: 2 * 2 * 3 }, (_, i) => i * 20));
    const copy = rgbOf({ data, width: 2, height: 2 });
    expect([...copy]).toEqual([...data]);
    data.fill(0);
    expect(copy[1]).toBe(20);
  });
});
