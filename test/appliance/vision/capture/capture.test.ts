import { mkdtempSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type Capture,
  type CaptureOptions,
  createCapture,
} from '../../../../appliance/vision/capture/index.ts';
import type { Frame } from '../../../../appliance/vision/types.ts';
import { makeClip, recordingLog, sleep, startLiveServer, waitFor } from './support.ts';

let dir: string;
let clip: string;
const started: Capture[] = [];
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'capture-'));
  clip = await makeClip(join(dir, 'clip.mp4'), { width: 320, height: 180, rate: 10, seconds: 3 });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(async () => {
  await Promise.all(started.splice(0).map((capture) => capture.stop()));
  await Promise.all(closers.splice(0).map((close) => close()));
});

function capture(overrides: Partial<CaptureOptions> & Pick<CaptureOptions, 'url'>) {
  const recorded = recordingLog();
  const made = createCapture({
    cameraId: 'cam-1',
    width: 160,
    height: 90,
    fps: 5,
    log: recorded.log,
    backoff: { initialMs: 100, maxMs: 1000 },
    stallTimeoutMs: 1500,
    firstFrameTimeoutMs: 5000,
    ...overrides,
  });
  started.push(made);
  return { capture: made, lines: recorded.lines };
}

describe('capture from a file', () => {
  it('reads the clip at the asked rate and size, frame by frame, then reports the source ended', async () => {
    const { capture: source } = capture({ url: clip, backoff: { initialMs: 60_000, maxMs: 60_000 } });
    const frames: Frame[] = [];
    const statuses: string[] = [];
    source.on('status', (change) => statuses.push(change.status));
    source.onFrame((frame) => {
      frames.push({ ...frame, data: Buffer.from(frame.data) });
    });
    source.start();
    await waitFor('the clip to end', () => (source.status === 'offline' ? true : undefined), 8000);

    // 3 s at 5 fps; ffmpeg's fps filter may round the last one either way.
    expect(frames.length).toBeGreaterThanOrEqual(14);
    expect(frames.length).toBeLessThanOrEqual(16);
    expect(statuses).toEqual(['starting', 'online', 'offline']);
    for (const frame of frames) {
      expect(frame).toMatchObject({ cameraId: 'cam-1', width: 160, height: 90, format: 'yuv420p' });
      expect(frame.data.length).toBe(160 * 90 * 1.5);
    }
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => i + 1));
    // testsrc2 moves: consecutive frames differ.
    for (let i = 1; i < frames.length; i += 1)
      expect(frames[i]!.data.equals(frames[i - 1]!.data)).toBe(false);
    // Played in real time, not decoded as fast as possible.
    expect(frames.at(-1)!.capturedAt - frames[0]!.capturedAt).toBeGreaterThan(2000);
    expect(source.stats()).toMatchObject({ framesDropped: 0, restarts: 0 });
  });

  it('keeps only the newest frame waiting for a slow consumer', async () => {
    const { capture: source } = capture({ url: clip, loop: true, fps: 10 });
    const seqs: number[] = [];
    source.onFrame(async (frame) => {
      seqs.push(frame.seq);
      await sleep(250);
    });
    source.start();
    await waitFor('frames to be dropped', () => (source.stats().framesDropped >= 8 ? true : undefined), 8000);

    const stats = source.stats();
    expect(stats.framesDelivered).toBe(seqs.length);
    expect(stats.framesRead - stats.framesDelivered - stats.framesDropped).toBeLessThanOrEqual(1);
    for (let i = 1; i < seqs.length; i += 1) expect(seqs[i]!).toBeGreaterThan(seqs[i - 1]!);
    expect(stats.buffersAllocated).toBeLessThanOrEqual(3);
    expect(stats.fps).toBeGreaterThan(5);
  });

  it('sees every frame at admission: one turned down neither waits for the consumer nor replaces a waiting one', async () => {
    const { capture: source } = capture({ url: clip, loop: true, fps: 10 });
    const admitted: number[] = [];
    const seen: number[] = [];
    const handled: number[] = [];
    // Every third frame goes on, to a consumer slower than three frame intervals.
    source.onFrame(
      async (frame) => {
        handled.push(frame.seq);
        await sleep(350);
      },
      (frame) => {
        seen.push(frame.seq);
        if (frame.seq % 3 !== 1) return false;
        admitted.push(frame.seq);
        return true;
      },
    );
    source.start();
    await waitFor('12 frames to be read', () => (source.stats().framesRead >= 12 ? true : undefined), 8000);

    const stats = source.stats();
    expect(seen).toEqual(Array.from({ length: seen.length }, (_, i) => i + 1));
    // Turned-down frames never reach the slot: only admitted ones are delivered or dropped.
    expect(stats.framesDelivered + stats.framesDropped).toBeGreaterThanOrEqual(admitted.length - 1);
    expect(stats.framesDelivered + stats.framesDropped).toBeLessThanOrEqual(admitted.length);
    expect(handled.every((seq) => seq % 3 === 1)).toBe(true);
    expect(stats.buffersAllocated).toBeLessThanOrEqual(3);
  });
});

describe('a dead source', () => {
  it('is reported offline when it goes away mid-stream, and comes back online when it returns', async () => {
    const live = await startLiveServer();
    let server: { close(): Promise<void> } | undefined = live;
    closers.push(() => server?.close() ?? Promise.resolve());
    const { capture: source, lines } = capture({
      url: `http://127.0.0.1:${live.port}/live.ts`,
      backoff: { initialMs: 200, maxMs: 800 },
    });
    const statuses: string[] = [];
    source.on('status', (change) => statuses.push(change.status));
    source.onFrame(() => {});
    source.start();
    await waitFor('frames from the live source', () => (source.stats().framesRead >= 5 ? true : undefined));

    await live.close();
    server = undefined;
    const wentDown = Date.now();
    await waitFor('offline', () => (source.status === 'offline' ? true : undefined), 3000);
    expect(Date.now() - wentDown).toBeLessThan(1500 + 500);
    await sleep(1200); // several failed retries while the camera is away
    const retriesWhileDown = source.stats().restarts;
    expect(retriesWhileDown).toBeGreaterThanOrEqual(2);

    server = await startLiveServer(live.port);
    const before = source.stats().framesRead;
    await waitFor('online again', () => (source.status === 'online' ? true : undefined));
    await waitFor('frames again', () => (source.stats().framesRead >= before + 5 ? true : undefined));
    expect(statuses).toEqual(['starting', 'online', 'offline', 'online']);
    // Transitions are logged once each, however many retries came between them.
    expect(lines.filter((line) => line.msg === 'camera source offline')).toHaveLength(1);
    expect(lines.filter((line) => line.msg === 'camera source back online')).toHaveLength(1);
  });

  it('retries a wrong URL with growing intervals', async () => {
    const live = await startLiveServer();
    const port = live.port;
    await live.close(); // a port nobody listens on
    const { capture: source, lines } = capture({
      url: `http://127.0.0.1:${port}/live.ts`,
      backoff: { initialMs: 50, maxMs: 2000 },
    });
    const delays: number[] = [];
    const reasons: string[] = [];
    source.on('retry', (retry) => {
      delays.push(retry.delayMs);
      reasons.push(retry.reason);
    });
    source.start();
    await waitFor('four retries', () => (delays.length >= 5 ? true : undefined), 8000);

    expect(source.status).toBe('offline');
    expect(source.stats().restarts).toBeGreaterThanOrEqual(4);
    for (let i = 1; i < delays.length; i += 1) expect(delays[i]!).toBeGreaterThan(delays[i - 1]!);
    expect(reasons[0]).toMatch(/ffmpeg ended \(1\).*Connection refused/i);
    expect(lines.filter((line) => line.msg === 'camera source offline')).toHaveLength(1);
  });

  it('is reported offline when ffmpeg itself cannot run', async () => {
    const { capture: source, lines } = capture({ url: clip, ffmpegPath: '/nonexistent/ffmpeg' });
    source.start();
    await waitFor('offline', () => (source.status === 'offline' ? true : undefined), 3000);
    expect(lines.find((line) => line.msg === 'camera source offline')?.reason).toMatch(
      /could not run.*ENOENT/,
    );
  });

  it('is taken down when it hangs mid-stream with the connection open', async () => {
    const live = await startLiveServer();
    closers.push(() => live.close());
    const { capture: source } = capture({
      url: `http://127.0.0.1:${live.port}/live.ts`,
      stallTimeoutMs: 800,
    });
    const offline: Array<string | undefined> = [];
    source.on('status', (change) => change.status === 'offline' && offline.push(change.reason));
    source.start();
    await waitFor('online', () => (source.status === 'online' ? true : undefined));
    live.freeze();
    await waitFor('offline', () => (offline.length > 0 ? true : undefined), 3000);
    expect(offline[0]).toBe('no frame for 800 ms');
    await waitFor('online again', () => (source.status === 'online' ? true : undefined));
  });

  it('is taken down when it never sends a first frame', async () => {
    // A server that accepts and never answers: ffmpeg waits in its HTTP request.
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    closers.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const port = (silent.address() as AddressInfo).port;
    const { capture: source } = capture({
      url: `http://127.0.0.1:${port}/live.ts`,
      firstFrameTimeoutMs: 400,
      backoff: { initialMs: 100, maxMs: 100 },
    });
    const reasons: string[] = [];
    source.on('retry', (retry) => reasons.push(retry.reason));
    source.start();
    await waitFor('a stall', () => (reasons.length > 0 ? true : undefined), 3000);
    expect(reasons[0]).toBe('no frame for 400 ms');
  });
});
