import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCapture } from '../../../../appliance/vision/capture/index.ts';
import { makeClip, recordingLog } from './support.ts';

const WIDTH = 1280;
const HEIGHT = 720;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'capture-cost-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Measured and logged, not asserted: the numbers feed the pipeline's budget (≤ 5 ms of
// non-inference work a frame) and would only be flaky as assertions on a shared machine.
describe('the cost of capture at 1280x720', () => {
  it('costs this process little CPU a frame when reading a real ffmpeg', async () => {
    const clip = await makeClip(join(dir, 'hd.mp4'), { width: WIDTH, height: HEIGHT, rate: 15, seconds: 3 });
    const source = createCapture({
      cameraId: 'cam-hd',
      url: clip,
      width: WIDTH,
      height: HEIGHT,
      fps: 15,
      log: recordingLog().log,
      backoff: { initialMs: 60_000, maxMs: 60_000 },
      stallTimeoutMs: 5000,
    });
    const delay = monitorEventLoopDelay({ resolution: 10 });
    let cpuFrom: NodeJS.CpuUsage | undefined;
    let counted = 0;
    source.onFrame(() => {
      // Counted from the first frame on, so ffmpeg's start and probing stay out of it.
      if (!cpuFrom) cpuFrom = process.cpuUsage();
      else counted += 1;
    });
    // The end is taken from the status event, not by polling, so the test's own work stays out.
    const ended = new Promise<NodeJS.CpuUsage>((resolve) =>
      source.on('status', (change) => change.status === 'offline' && resolve(process.cpuUsage(cpuFrom))),
    );
    delay.enable();
    source.start();
    const cpu = await ended;
    delay.disable();
    await source.stop();
    console.log(
      `capture of ${WIDTH}x${HEIGHT} at 15 fps, this process: ` +
        `${(cpu.user / 1000 / counted).toFixed(2)} ms user + ${(cpu.system / 1000 / counted).toFixed(2)} ms system ` +
        `CPU a frame over ${counted} frames (FIFO reads into the frames, delivery, and the test runner's own work); ` +
        `event-loop delay p99 ${(delay.percentile(99) / 1e6).toFixed(1)} ms`,
    );
    expect(counted).toBeGreaterThan(30);
    expect(source.stats().framesDropped).toBe(0);
  });
});
