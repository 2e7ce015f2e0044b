/**
 * The baseline, in the API process before any camera runs: frames of the same clip decoded once
 * (ffmpeg as the capture runs it, scaled to the inference size), then sent through the same
 * detector back to back, one at a time (batches of 1) and with enough waiting that every batch is
 * full, plus the motion gate's check on the same frames.
 */
import { spawn } from 'node:child_process';
import { CAPTURE_FORMAT } from '../../../appliance/vision/capture/ffmpeg.ts';
import { resolveFfmpegPath } from '../../../appliance/vision/capture/index.ts';
import type { DetectionResult, Detector } from '../../../appliance/vision/detect/detector.ts';
import { createMotionGate } from '../../../appliance/vision/motion/index.ts';
import { frameBytes, type PixelFormat } from '../../../appliance/vision/pixels.ts';
import type { BaselineReply, BaselineRequest, InferenceFigures } from './protocol.ts';
import { percentiles, Samples } from './stats.ts';

const DETECT = { floor: 0.1, iouThreshold: 0.5 };
const MOTION_CHECKS = 500;

type Frame = { data: Buffer; width: number; height: number; format: PixelFormat };

/** One frame in `step` of the file, `count` of them, at the given size in capture's format. */
async function decode(request: BaselineRequest): Promise<Frame[]> {
  const { width, height } = request;
  const args = [
    ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-threads', '1', '-i', request.file],
    ...['-vf', `select=not(mod(n\\,${request.step})),scale=${width}:${height}:flags=bilinear`],
    ...['-vsync', '0', '-frames:v', String(request.frames)],
    ...['-pix_fmt', CAPTURE_FORMAT, '-f', 'rawvideo', 'pipe:1'],
  ];
  const child = spawn(resolveFfmpegPath(process.env), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-2000);
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const chunks: Buffer[] = [];
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) chunks.push(chunk);
  const code = await exited;
  if (code !== 0) throw new Error(`ffmpeg could not decode ${request.file} (${code}): ${stderr.trim()}`);
  const all = Buffer.concat(chunks);
  const size = frameBytes(CAPTURE_FORMAT, width, height);
  return Array.from({ length: Math.floor(all.length / size) }, (_, i) => ({
    data: Buffer.from(all.subarray(i * size, (i + 1) * size)),
    width,
    height,
    format: CAPTURE_FORMAT,
  }));
}

function figures(batch: number, results: DetectionResult[], seconds: number): InferenceFigures {
  const full = results.filter((result) => result.batch === batch);
  const perFrame = (pick: (r: DetectionResult) => number) =>
    full.length === 0
      ? null
      : Number((full.reduce((sum, r) => sum + pick(r) / r.batch, 0) / full.length).toFixed(3));
  return {
    batch,
    frames: results.length,
    seconds: Number(seconds.toFixed(2)),
    frames_per_second: Number((results.length / seconds).toFixed(1)),
    inference_ms_per_batch: percentiles(full.map((r) => r.inferenceMs)),
    inference_ms_per_frame: perFrame((r) => r.inferenceMs),
    pre_ms_per_frame: perFrame((r) => r.preMs),
    post_ms_per_frame: perFrame((r) => r.postMs),
    round_trip_ms: percentiles(full.map((r) => r.totalMs)),
  };
}

/**
 * `inFlight` frames asked for at any time, for `seconds`: with one, each batch holds one frame; with
 * twice the largest batch, the detector always finds a full batch waiting.
 */
async function backToBack(detector: Detector, frames: Frame[], inFlight: number, seconds: number) {
  const results: DetectionResult[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let next = 0;
  async function lane() {
    while (performance.now() < deadline) {
      const frame = frames[next % frames.length]!;
      next += 1;
      results.push(await detector.detect(frame, DETECT));
    }
  }
  await Promise.all(Array.from({ length: inFlight }, lane));
  return { results, seconds: (performance.now() - started) / 1000 };
}

function motionChecks(frames: Frame[]) {
  const gate = createMotionGate();
  const times = new Samples();
  for (let i = 0; i < Math.max(MOTION_CHECKS, frames.length); i += 1) {
    const frame = frames[i % frames.length]!;
    const started = performance.now();
    gate.check(frame);
    times.push(performance.now() - started);
  }
  return percentiles(times.view(), 3);
}

export async function runBaseline(detector: Detector, request: BaselineRequest): Promise<BaselineReply> {
  const frames = await decode(request);
  if (frames.length === 0) throw new Error(`no frame decoded from ${request.file}`);
  // Once through untimed: the first frames of a new size pay for allocations in the worker.
  await backToBack(detector, frames, 1, 0.5);
  const one = await backToBack(detector, frames, 1, request.seconds);
  const many = await backToBack(detector, frames, 2 * request.maxBatch, request.seconds);
  return {
    frames_decoded: frames.length,
    frame_step: request.step,
    batch_1: figures(1, one.results, one.seconds),
    batch_n: figures(request.maxBatch, many.results, many.seconds),
    motion_check_ms: motionChecks(frames),
  };
}
