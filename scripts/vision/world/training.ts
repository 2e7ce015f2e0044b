/**
 * Training sets in the YOLO layout (images/{train,val}, labels/{train,val} with `class cx cy w h`
 * normalised, and data.yaml) from the same renderer the clips use. Seeds below TRAINING_SEED_FLOOR
 * are held out for evaluation and refused here, so no evaluation clip is ever trained on.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import sharp from 'sharp';
import type { Box } from '../../../appliance/vision/types.ts';
import { laneLook, renderLaneFrame } from './lane-clip.ts';
import { placeObjects } from './lane-scene.ts';
import { LANE_CLASSES, truthObjects } from './lane-truth.ts';
import { LIGHTING_NAMES } from './raster.ts';
import { createRng } from './rng.ts';
import { DEFAULT_LANE_CONFIG, simulateLane } from './simulator.ts';
import { TRAY_ITEMS } from './tray-items.ts';
import { generateTray, renderTray, TRAY_HEIGHT, TRAY_WIDTH, type TrayErrorRates } from './trays.ts';

export const TRAINING_SEED_FLOOR = 10_000;
/** Objects less visible than this are left unlabelled (and so are boxes under 4 px a side). */
export const MIN_LABEL_VISIBLE = 0.25;

export function assertTrainingSeed(seed: number): void {
  if (seed < TRAINING_SEED_FLOOR) {
    throw new Error(
      `seed ${seed} is held out for evaluation; training seeds start at ${TRAINING_SEED_FLOOR}`,
    );
  }
}

const splitOf = (seed: number) => (seed % 10 === 0 ? 'val' : 'train');

export function yoloLine(classId: number, box: Box, width: number, height: number): string {
  const f = (v: number) => v.toFixed(6);
  const cx = (box[0] + box[2]) / 2 / width;
  const cy = (box[1] + box[3]) / 2 / height;
  return `${classId} ${f(cx)} ${f(cy)} ${f((box[2] - box[0]) / width)} ${f((box[3] - box[1]) / height)}`;
}

async function prepare(outDir: string, names: readonly string[]): Promise<void> {
  for (const sub of ['images/train', 'images/val', 'labels/train', 'labels/val']) {
    await mkdir(join(outDir, sub), { recursive: true });
  }
  const yaml = [
    `path: ${resolve(outDir)}`,
    'train: images/train',
    'val: images/val',
    'names:',
    ...names.map((n, i) => `  ${i}: ${n}`),
  ];
  await writeFile(join(outDir, 'data.yaml'), `${yaml.join('\n')}\n`);
}

async function writeSample(
  outDir: string,
  split: string,
  name: string,
  rgb: Buffer,
  w: number,
  h: number,
  labels: string[],
) {
  await sharp(rgb, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 90 })
    .toFile(join(outDir, 'images', split, `${name}.jpg`));
  await writeFile(
    join(outDir, 'labels', split, `${name}.txt`),
    labels.length ? `${labels.join('\n')}\n` : '',
  );
}

export interface LaneTrainingOptions {
  seeds: number[];
  framesPerSeed: number;
  width: number;
  height: number;
  outDir: string;
}

/** Each seed varies the traffic and the scene; each sampled frame gets its own lighting. */
export async function exportLaneTraining(opts: LaneTrainingOptions): Promise<number> {
  await prepare(opts.outDir, LANE_CLASSES);
  let written = 0;
  for (const seed of opts.seeds) {
    assertTrainingSeed(seed);
    const rng = createRng(seed, 'training');
    const config = {
      ...DEFAULT_LANE_CONFIG,
      seed,
      seconds: 120,
      fps: 5,
      warmupSeconds: rng.range(20, 200),
      arrivalsPerHour: rng.range(60, 240),
      peoplePerMinute: rng.range(0.5, 4),
    };
    const sim = simulateLane(config);
    for (let k = 0; k < opts.framesPerSeed; k++) {
      const index = rng.int(sim.frames.length);
      const look = laneLook(seed, opts.width, opts.height, { lighting: rng.pick(LIGHTING_NAMES) });
      const frame = sim.frames[index]!;
      const rgb = await renderLaneFrame(frame, index, look);
      const labels = truthObjects(placeObjects(frame.objects), opts.width, opts.height)
        .filter((o) => o.visible >= MIN_LABEL_VISIBLE && o.box[2] - o.box[0] >= 4 && o.box[3] - o.box[1] >= 4)
        .map((o) => yoloLine(LANE_CLASSES.indexOf(o.class), o.box, opts.width, opts.height));
      await writeSample(
        opts.outDir,
        splitOf(seed),
        `lane-${seed}-${k}`,
        rgb,
        opts.width,
        opts.height,
        labels,
      );
      written++;
    }
  }
  return written;
}

export async function exportTrayTraining(
  seeds: number[],
  rates: TrayErrorRates,
  outDir: string,
): Promise<number> {
  await prepare(outDir, TRAY_ITEMS);
  for (const seed of seeds) {
    assertTrainingSeed(seed);
    const scene = generateTray(seed, rates);
    const labels = scene.truth.items.map((i) =>
      yoloLine(TRAY_ITEMS.indexOf(i.item), i.box, TRAY_WIDTH, TRAY_HEIGHT),
    );
    await writeSample(
      outDir,
      splitOf(seed),
      `tray-${seed}`,
      await renderTray(scene),
      TRAY_WIDTH,
      TRAY_HEIGHT,
      labels,
    );
  }
  return seeds.length;
}
