/**
 * The synthetic world's command line: lane clips with ground truth, trays with ground truth, and
 * YOLO training sets of either. See README "Synthetic world (scripts/vision/world)".
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { writeLaneClip } from './lane-clip.ts';
import { LIGHTING_NAMES, type Lighting } from './raster.ts';
import { DEFAULT_LANE_CONFIG } from './simulator.ts';
import { exportLaneTraining, exportTrayTraining } from './training.ts';
import { DEFAULT_TRAY_ERRORS, generateTray, renderTray, TRAY_HEIGHT, TRAY_WIDTH } from './trays.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '7' },
    seconds: { type: 'string', default: String(DEFAULT_LANE_CONFIG.seconds) },
    fps: { type: 'string', default: String(DEFAULT_LANE_CONFIG.fps) },
    width: { type: 'string', default: '640' },
    height: { type: 'string', default: '360' },
    warmup: { type: 'string', default: String(DEFAULT_LANE_CONFIG.warmupSeconds) },
    'arrivals-per-hour': { type: 'string', default: String(DEFAULT_LANE_CONFIG.arrivalsPerHour) },
    'people-per-minute': { type: 'string', default: String(DEFAULT_LANE_CONFIG.peoplePerMinute) },
    lighting: { type: 'string' },
    noise: { type: 'string' },
    crf: { type: 'string', default: '26' },
    name: { type: 'string' },
    out: { type: 'string', default: 'data/vision/clips/' },
    training: { type: 'boolean', default: false },
    trays: { type: 'boolean', default: false },
    count: { type: 'string', default: '1' },
    'frames-per-seed': { type: 'string', default: '20' },
    missing: { type: 'string', default: String(DEFAULT_TRAY_ERRORS.missing) },
    substituted: { type: 'string', default: String(DEFAULT_TRAY_ERRORS.substituted) },
    extra: { type: 'string', default: String(DEFAULT_TRAY_ERRORS.extra) },
  },
  strict: true,
});

const num = (name: keyof typeof values) => {
  const v = Number(values[name]);
  if (!Number.isFinite(v)) throw new Error(`--${name} must be a number`);
  return v;
};

const seed = num('seed');
const seeds = Array.from({ length: num('count') }, (_, i) => seed + i);
const out = values.out!;
const rates = { missing: num('missing'), substituted: num('substituted'), extra: num('extra') };

async function trays(): Promise<void> {
  await mkdir(out, { recursive: true });
  for (const s of seeds) {
    const scene = generateTray(s, rates);
    await sharp(await renderTray(scene), { raw: { width: TRAY_WIDTH, height: TRAY_HEIGHT, channels: 3 } })
      .png()
      .toFile(join(out, `tray-${s}.png`));
    await writeFile(join(out, `tray-${s}.truth.json`), JSON.stringify(scene.truth, null, 1));
  }
  console.log(`${seeds.length} trays in ${out}`);
}

async function clips(): Promise<void> {
  const lighting = values.lighting as Lighting | undefined;
  if (lighting && !LIGHTING_NAMES.includes(lighting))
    throw new Error(`--lighting is one of ${LIGHTING_NAMES.join(', ')}`);
  for (const s of seeds) {
    const started = performance.now();
    const result = await writeLaneClip({
      config: {
        ...DEFAULT_LANE_CONFIG,
        seed: s,
        seconds: num('seconds'),
        fps: num('fps'),
        warmupSeconds: num('warmup'),
        arrivalsPerHour: num('arrivals-per-hour'),
        peoplePerMinute: num('people-per-minute'),
      },
      width: num('width'),
      height: num('height'),
      outDir: out,
      name: values.name && seeds.length === 1 ? values.name : `lane-${s}`,
      finish: { ...(lighting ? { lighting } : {}), ...(values.noise ? { noise: num('noise') } : {}) },
      crf: num('crf'),
    });
    const { truth } = result;
    console.log(
      `${result.video}: ${truth.meta.frame_count} frames, ${truth.cars.length} cars, ${truth.meta.finish.lighting}, ` +
        `render ${result.renderMsPerFrame.toFixed(1)} ms/frame, total ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
}

async function main(): Promise<void> {
  if (values.training && values.trays) {
    console.log(`${await exportTrayTraining(seeds, rates, out)} tray images in ${out}`);
  } else if (values.training) {
    const written = await exportLaneTraining({
      seeds,
      framesPerSeed: num('frames-per-seed'),
      width: num('width'),
      height: num('height'),
      outDir: out,
    });
    console.log(`${written} lane images in ${out}`);
  } else if (values.trays) {
    await trays();
  } else {
    await clips();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
