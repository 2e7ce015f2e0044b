/**
 * Trays for order verification: a random order from the demo menu, the kitchen's mistakes drawn at
 * seeded rates (a unit missing, a unit swapped for its lookalike, an extra item), and the tray as
 * served, seen from above, with the truth of what is on it.
 */
import type { Box } from '../../../appliance/vision/types.ts';
import {
  applyFinish,
  createNoiseTable,
  type Finish,
  type Lighting,
  type NoiseTable,
  rasterise,
} from './raster.ts';
import { createRng, type Rng } from './rng.ts';
import { drawItem, itemBox, LOOKALIKE, type PlacedItem, TRAY_ITEMS, type TrayItem } from './tray-items.ts';

export const TRAY_WIDTH = 640;
export const TRAY_HEIGHT = 480;

export interface TrayErrorRates {
  /** Per ordered unit. */
  missing: number;
  /** Per ordered unit that is present. */
  substituted: number;
  /** Per tray: one item nobody ordered. */
  extra: number;
}

export const DEFAULT_TRAY_ERRORS: TrayErrorRates = { missing: 0.08, substituted: 0.06, extra: 0.1 };

export interface OrderLine {
  item: TrayItem;
  quantity: number;
}

export interface TrayTruth {
  meta: {
    kind: 'tray';
    seed: number;
    width: number;
    height: number;
    classes: readonly TrayItem[];
    finish: Finish;
  };
  order: OrderLine[];
  /** What is on the tray; `ordered_as` names the ordered item a substitute stands for. */
  items: Array<{ item: TrayItem; box: Box; ordered_as?: TrayItem; extra?: true }>;
  errors: {
    missing: TrayItem[];
    substituted: Array<{ ordered: TrayItem; served: TrayItem }>;
    extra: TrayItem[];
  };
  correct: boolean;
}

export function randomOrder(rng: Rng): OrderLine[] {
  const units = 1 + rng.int(6);
  const counts = new Map<TrayItem, number>();
  for (let i = 0; i < units; i++) {
    const item = rng.pick(TRAY_ITEMS);
    counts.set(item, (counts.get(item) ?? 0) + 1);
  }
  return TRAY_ITEMS.filter((i) => counts.has(i)).map((item) => ({ item, quantity: counts.get(item)! }));
}

interface Served {
  item: TrayItem;
  ordered_as?: TrayItem;
  extra?: true;
}

function serve(
  order: readonly OrderLine[],
  rates: TrayErrorRates,
  rng: Rng,
): { served: Served[]; errors: TrayTruth['errors'] } {
  const served: Served[] = [];
  const errors: TrayTruth['errors'] = { missing: [], substituted: [], extra: [] };
  for (const line of order) {
    for (let u = 0; u < line.quantity; u++) {
      if (rng.chance(rates.missing)) {
        errors.missing.push(line.item);
      } else if (rng.chance(rates.substituted)) {
        const wrong = rng.chance(0.75)
          ? LOOKALIKE[line.item]
          : rng.pick(TRAY_ITEMS.filter((i) => i !== line.item));
        errors.substituted.push({ ordered: line.item, served: wrong });
        served.push({ item: wrong, ordered_as: line.item });
      } else {
        served.push({ item: line.item });
      }
    }
  }
  if (rng.chance(rates.extra)) {
    const item = rng.pick(TRAY_ITEMS);
    errors.extra.push(item);
    served.push({ item, extra: true });
  }
  return { served, errors };
}

const COLS = 4;
const ROWS = 2;

function layout(served: readonly Served[], rng: Rng): PlacedItem[] {
  const cells = Array.from({ length: COLS * ROWS }, (_, i) => i);
  for (let i = cells.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [cells[i], cells[j]] = [cells[j]!, cells[i]!];
  }
  const cellW = 500 / COLS;
  const cellH = 320 / ROWS;
  return served.map((s, i) => {
    const cell = cells[i]!;
    return {
      item: s.item,
      cx: 70 + cellW * ((cell % COLS) + 0.5) + rng.range(-8, 8),
      cy: 80 + cellH * (Math.floor(cell / COLS) + 0.5) + rng.range(-14, 14),
      angle: rng.range(-25, 25),
      scale: rng.range(0.9, 1.1),
    };
  });
}

const TRAYS = ['#8b5a2b', '#b22222', '#4a4f57', '#2f6b4f', '#c9a66b'];
const COUNTERS = ['#d9d4cc', '#9a9a9a', '#6b5844', '#e8e2d6', '#3d3d40'];

function traySvg(items: readonly PlacedItem[], rng: Rng): string {
  const liner = rng.chance(0.5)
    ? `<rect x="78" y="72" width="484" height="336" fill="#f4efe4" transform="rotate(${rng.range(-3, 3).toFixed(1)} 320 240)"/>`
    : '';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${TRAY_WIDTH}" height="${TRAY_HEIGHT}">`,
    `<rect width="${TRAY_WIDTH}" height="${TRAY_HEIGHT}" fill="${rng.pick(COUNTERS)}"/>`,
    `<rect x="50" y="50" width="540" height="380" rx="22" fill="${rng.pick(TRAYS)}"/>`,
    '<rect x="62" y="62" width="516" height="356" rx="16" fill="#000" fill-opacity="0.12"/>',
    liner,
    ...items.map(drawItem),
    '</svg>',
  ].join('');
}

const TRAY_LIGHTINGS: Lighting[] = ['day', 'day', 'overcast', 'evening'];

export interface TrayScene {
  svg: string;
  truth: TrayTruth;
}

export function generateTray(
  seed: number,
  rates: TrayErrorRates = DEFAULT_TRAY_ERRORS,
  order?: OrderLine[],
): TrayScene {
  const rng = createRng(seed, 'tray');
  const look = createRng(seed, 'tray-look');
  const lines = order ?? randomOrder(rng);
  const { served, errors } = serve(lines, rates, rng);
  const placed = layout(served, look);
  const finish: Finish = { lighting: look.pick(TRAY_LIGHTINGS), noise: Math.round(look.range(1, 5)) };
  const items = placed.map((p, i) => {
    const box = itemBox(p).map((v) => Math.round(v * 10) / 10) as unknown as Box;
    return { ...served[i]!, box };
  });
  const correct = errors.missing.length + errors.substituted.length + errors.extra.length === 0;
  return {
    svg: traySvg(placed, look),
    truth: {
      meta: { kind: 'tray', seed, width: TRAY_WIDTH, height: TRAY_HEIGHT, classes: TRAY_ITEMS, finish },
      order: lines,
      items,
      errors,
      correct,
    },
  };
}

// Noise tables are costly to draw; trays share one per level and differ by where they read it.
const noiseTables = new Map<number, NoiseTable>();

function noiseFor(sigma: number): NoiseTable | undefined {
  if (sigma <= 0) return undefined;
  let table = noiseTables.get(sigma);
  if (!table) {
    table = createNoiseTable(sigma, TRAY_WIDTH, TRAY_HEIGHT, sigma);
    noiseTables.set(sigma, table);
  }
  return table;
}

export async function renderTray(scene: TrayScene): Promise<Buffer> {
  const { finish, seed } = scene.truth.meta;
  return applyFinish(await rasterise(scene.svg), finish, noiseFor(finish.noise), seed);
}
