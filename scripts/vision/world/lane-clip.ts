/**
 * A lane clip: simulate, render each frame (SVG → sharp → lighting and noise), pipe the frames to
 * ffmpeg, and write `<name>.mp4` with `<name>.truth.json` beside it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createEncoder } from './ffmpeg.ts';
import { placeObjects } from './lane-scene.ts';
import { backgroundSvg, frameSvg, randomStyle, type SceneStyle } from './lane-svg.ts';
import { type LaneTruth, laneTruthMeta, truthCar, truthObjects } from './lane-truth.ts';
import {
  applyFinish,
  createNoiseTable,
  type Finish,
  LIGHTING_NAMES,
  type NoiseTable,
  rasterise,
} from './raster.ts';
import { createRng } from './rng.ts';
import { type LaneConfig, type SimFrame, simulateLane } from './simulator.ts';

export interface LaneLook {
  style: SceneStyle;
  background: string;
  finish: Finish;
  noise: NoiseTable | undefined;
  width: number;
  height: number;
}

/** The clip's look, drawn from the seed unless lighting or noise is given. */
export function laneLook(seed: number, width: number, height: number, finish?: Partial<Finish>): LaneLook {
  const rng = createRng(seed, 'style');
  const style = randomStyle(rng);
  const chosen: Finish = {
    lighting: finish?.lighting ?? rng.pick(LIGHTING_NAMES),
    noise: finish?.noise ?? Math.round(rng.range(2, 7)),
  };
  const noise = chosen.noise > 0 ? createNoiseTable(seed, width, height, chosen.noise) : undefined;
  return { style, background: backgroundSvg(style), finish: chosen, noise, width, height };
}

export async function renderLaneFrame(frame: SimFrame, index: number, look: LaneLook): Promise<Buffer> {
  const svg = frameSvg(placeObjects(frame.objects), look.background, look.style, look.width, look.height);
  return applyFinish(await rasterise(svg), look.finish, look.noise, index);
}

export interface LaneClipOptions {
  config: LaneConfig;
  width: number;
  height: number;
  outDir: string;
  name: string;
  finish?: Partial<Finish>;
  crf?: number;
}

export interface LaneClipResult {
  video: string;
  truthFile: string;
  truth: LaneTruth;
  renderMsPerFrame: number;
}

const RENDER_AHEAD = 4;

export async function writeLaneClip(opts: LaneClipOptions): Promise<LaneClipResult> {
  const sim = simulateLane(opts.config);
  const look = laneLook(opts.config.seed, opts.width, opts.height, opts.finish);
  await mkdir(opts.outDir, { recursive: true });
  const video = join(opts.outDir, `${opts.name}.mp4`);
  const encoder = createEncoder(video, opts.width, opts.height, opts.config.fps, opts.crf);
  let renderMs = 0;
  for (let i = 0; i < sim.frames.length; i += RENDER_AHEAD) {
    const started = performance.now();
    const batch = sim.frames.slice(i, i + RENDER_AHEAD);
    const frames = await Promise.all(batch.map((f, j) => renderLaneFrame(f, i + j, look)));
    renderMs += performance.now() - started;
    for (const f of frames) await encoder.write(f);
  }
  await encoder.close();
  const truth: LaneTruth = {
    meta: laneTruthMeta(sim, opts.width, opts.height, look.finish),
    frames: sim.frames.map((f) => ({
      t: Math.round(f.t * 1000) / 1000,
      objects: truthObjects(placeObjects(f.objects), opts.width, opts.height),
    })),
    cars: sim.cars.map(truthCar),
    queue_length_per_second: sim.queueLengthPerSecond,
  };
  const truthFile = join(opts.outDir, `${opts.name}.truth.json`);
  await writeFile(truthFile, JSON.stringify(truth));
  return { video, truthFile, truth, renderMsPerFrame: renderMs / Math.max(1, sim.frames.length) };
}
