import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveFfmpegPath } from '../../../../appliance/vision/capture/index.ts';
import { createDetector, type Detector } from '../../../../appliance/vision/detect/detector.ts';
import { loadModel } from '../../../../appliance/vision/detect/model.ts';
import { type CameraResult, createCameraPipeline } from '../../../../appliance/vision/pipeline/camera.ts';

const FIXTURE = join(import.meta.dirname, '../../../fixtures/vision/rectangles');
const log = pino({ level: 'silent' });

/**
 * A clip the fixture model knows: a red square gliding over grey for two seconds, then standing
 * still for four (the test stops before the file ends: a file source that ends is restarted), encoded
 * by the real ffmpeg.
 */
function clip(dir: string) {
  const file = join(dir, 'square.mp4');
  const result = spawnSync(resolveFfmpegPath(process.env), [
    '-v',
    'error',
    '-f',
    'lavfi',
    '-i',
    'color=c=0x737373:s=256x144:r=10:d=6',
    '-f',
    'lavfi',
    '-i',
    'color=c=0xE61A1A:s=60x60:r=10:d=6',
    '-filter_complex',
    "[0][1]overlay=x='min(t,2)*60':y=40",
    '-c:v',
    'libx264',
    '-pix_fmt',
    'yuv420p',
    '-g',
    '10',
    file,
  ]);
  if (result.status !== 0) throw new Error(result.stderr.toString());
  return file;
}

describe('a camera’s pipeline: capture, motion gate, detection, tracking', () => {
  let dir: string;
  let detector: Detector;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'camera-pipeline-'));
    detector = await createDetector(await loadModel(FIXTURE), { maxBatch: 4, log });
  });
  afterAll(async () => {
    await detector.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('follows the moving object with one track, skips the still frames, and keeps its figures', async () => {
    const camera = createCameraPipeline(
      {
        id: 'cam-1',
        url: clip(dir),
        width: 256,
        height: 144,
        fps: 10,
        minConfidence: 0.5,
        iouThreshold: 0.5,
        tracker: { minTrackLength: 2, trackTimeoutFrames: 10 },
      },
      { detector, log },
    );
    const results: CameraResult[] = [];
    camera.on('result', (result: CameraResult) => results.push(result));
    await camera.start();
    await new Promise((resolve) => setTimeout(resolve, 5500));
    await camera.stop();

    const tracked = results.flatMap((r) => r.tracks);
    expect(tracked.length).toBeGreaterThan(5);
    expect(new Set(tracked.map((t) => t.trackId)).size).toBe(1);
    expect(new Set(tracked.map((t) => t.className))).toEqual(new Set(['red']));
    // Moving right at 60 px/s, then still at x = 120.
    const last = tracked.at(-1)!;
    expect(last.box[0]).toBeGreaterThan(100);
    const metrics = camera.metrics();
    expect(metrics.frames_read).toBeGreaterThan(30);
    // Once the square stops, the motion gate lets only the periodic re-check through.
    expect(metrics.frames_skipped_by_motion).toBeGreaterThan(5);
    expect(metrics.inference_latency_ms.p50).toBeGreaterThan(0);
    expect(metrics.capture_to_result_ms.p95).toBeLessThan(1000);
    expect(metrics.last_detection).not.toBeNull();
  }, 20_000);
});
