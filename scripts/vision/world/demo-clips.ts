/**
 * Clips the demo store's cameras play (npm start) and the appliance's vision tests run: a
 * drive-thru lane from a held-out seed, and the pickup window's tray holding a given order (each
 * tray of the clip a different look of the same order). Written once into a folder and reused.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { createEncoder } from './ffmpeg.ts';
import { writeLaneClip } from './lane-clip.ts';
import { zonesFor } from './layout.ts';
import { DEFAULT_LANE_CONFIG } from './simulator.ts';
import type { TrayItem } from './tray-items.ts';
import { generateTray, type OrderLine, renderTray, TRAY_HEIGHT, TRAY_WIDTH } from './trays.ts';

export const DEMO_LANE = { width: 640, height: 360, fps: 10, seed: 4242 };

/** A lane camera's zones over the demo lane, in the names, at the clip's size. */
export function demoLaneZones(width = DEMO_LANE.width, height = DEMO_LANE.height) {
  const zones = zonesFor(width, height);
  const renamed: Record<string, string> = {
    menu: 'menu_board',
    pay: 'pay_window',
    pickup: 'pickup_window',
    bay: 'pull_forward',
  };
  return Object.entries(zones).map(([name, polygon]) => ({ name: renamed[name] ?? name, polygon }));
}

/** The lane clip (`seconds` long), rendered and encoded unless the folder has it already. */
export async function demoLaneClip(dir: string, seconds = 60, seed = DEMO_LANE.seed): Promise<string> {
  const name = `lane-${seed}-${seconds}s`;
  const video = join(dir, `${name}.mp4`);
  if (existsSync(video)) return video;
  const scratch = join(dir, `.${name}-${process.pid}`);
  await mkdir(scratch, { recursive: true });
  const clip = await writeLaneClip({
    config: { ...DEFAULT_LANE_CONFIG, seed, seconds, fps: DEMO_LANE.fps },
    width: DEMO_LANE.width,
    height: DEMO_LANE.height,
    outDir: scratch,
    name,
  });
  await rename(clip.video, video);
  return video;
}

/**
 * The pickup window showing trays of `order`, each `secondsPerTray` long, every one served right
 * (no missing, extra or substituted items), as a clip.
 */
export async function demoTrayClip(
  dir: string,
  order: ReadonlyArray<{ item: TrayItem; quantity: number }>,
  options: { trays?: number; secondsPerTray?: number; fps?: number; seed?: number } = {},
): Promise<string> {
  const trays = options.trays ?? 4;
  const seconds = options.secondsPerTray ?? 3;
  const fps = options.fps ?? 10;
  const seed = options.seed ?? 4100;
  const key = order.map((line) => `${line.item.replace(/\W/g, '')}${line.quantity}`).join('-');
  const video = join(dir, `tray-${key}-${seed}x${trays}.mp4`);
  if (existsSync(video)) return video;
  await mkdir(dir, { recursive: true });
  const partial = `${video}.${process.pid}.mp4`;
  const encoder = createEncoder(partial, TRAY_WIDTH, TRAY_HEIGHT, fps);
  const none = { missing: 0, substituted: 0, extra: 0 };
  for (let i = 0; i < trays; i++) {
    const frame = await renderTray(generateTray(seed + i, none, order as OrderLine[]));
    for (let f = 0; f < seconds * fps; f++) await encoder.write(frame);
  }
  await encoder.close();
  await rename(partial, video);
  return video;
}
