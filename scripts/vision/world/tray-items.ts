/**
 * The demo menu's items seen from above on a tray (names as in scripts/demo-appliance.ts), each a
 * distinct shape and colour; `drawItem` paints one inside the box `itemBox` gives for it.
 */
import type { Box } from '../../../appliance/vision/types.ts';

export const TRAY_ITEMS = [
  'Classic Burger',
  'Cheeseburger',
  'Fries',
  'Onion Rings',
  'Soda',
  'Milkshake',
] as const;
export type TrayItem = (typeof TRAY_ITEMS)[number];

/** What a wrong item usually is: its neighbour on the menu, the one a busy kitchen swaps it for. */
export const LOOKALIKE: Record<TrayItem, TrayItem> = {
  'Classic Burger': 'Cheeseburger',
  Cheeseburger: 'Classic Burger',
  Fries: 'Onion Rings',
  'Onion Rings': 'Fries',
  Soda: 'Milkshake',
  Milkshake: 'Soda',
};

/** Half-extents before rotation (px at 640x480). */
const HALF: Record<TrayItem, [number, number]> = {
  'Classic Burger': [48, 48],
  Cheeseburger: [50, 50],
  Fries: [32, 42],
  'Onion Rings': [42, 34],
  Soda: [34, 34],
  Milkshake: [36, 36],
};

const ROUND: ReadonlySet<TrayItem> = new Set(['Classic Burger', 'Soda', 'Milkshake']);

export interface PlacedItem {
  item: TrayItem;
  cx: number;
  cy: number;
  /** Degrees. */
  angle: number;
  scale: number;
}

/** The cheese is a square turned 45° under a round bun: its corners decide the box. */
function cheeseburgerHalf(angle: number): number {
  const a = ((angle + 45) * Math.PI) / 180;
  return Math.max(42, 35.4 * (Math.abs(Math.cos(a)) + Math.abs(Math.sin(a))));
}

export function itemBox(p: PlacedItem): Box {
  const [hx, hy] = HALF[p.item];
  if (ROUND.has(p.item))
    return [p.cx - hx * p.scale, p.cy - hy * p.scale, p.cx + hx * p.scale, p.cy + hy * p.scale];
  if (p.item === 'Cheeseburger') {
    const h = cheeseburgerHalf(p.angle) * p.scale;
    return [p.cx - h, p.cy - h, p.cx + h, p.cy + h];
  }
  const a = (p.angle * Math.PI) / 180;
  const ex = (Math.abs(Math.cos(a)) * hx + Math.abs(Math.sin(a)) * hy) * p.scale;
  const ey = (Math.abs(Math.sin(a)) * hx + Math.abs(Math.cos(a)) * hy) * p.scale;
  return [p.cx - ex, p.cy - ey, p.cx + ex, p.cy + ey];
}

function bun(extra: string, under: string): string {
  const seeds = [
    [-18, -14],
    [6, -22],
    [20, -4],
    [-4, 4],
    [-22, 12],
    [12, 18],
  ]
    .map(([x, y]) => `<ellipse cx="${x}" cy="${y}" rx="3" ry="1.8" fill="#f7ecd0"/>`)
    .join('');
  return `${under}<circle r="42" fill="#c98b45"/><circle cx="-6" cy="-7" r="30" fill="#dba35c"/>${seeds}${extra}`;
}

/** Item shapes centred on the origin, unrotated, at scale 1. */
const SHAPES: Record<TrayItem, string> = {
  'Classic Burger': bun('', '<circle r="48" fill="#5fa83a"/><circle r="45" fill="#7a3b1c"/>'),
  Cheeseburger: bun(
    '',
    '<rect x="-35.4" y="-35.4" width="70.8" height="70.8" transform="rotate(45)" fill="#f5c518"/>',
  ),
  Fries: [
    ...[-24, -15, -6, 3, 12, 21].map(
      (x, i) =>
        `<rect x="${x}" y="${-42 + (i % 3) * 4}" width="6" height="40" fill="#f2c94c" stroke="#d9a531" stroke-width="1"/>`,
    ),
    '<path d="M-32,-8 L32,-8 L26,42 L-26,42 Z" fill="#d62828"/>',
    '<path d="M-10,8 Q0,22 10,8" stroke="#ffd23f" stroke-width="4" fill="none"/>',
  ].join(''),
  'Onion Rings': [
    '<rect x="-42" y="-34" width="84" height="68" rx="6" fill="#efe4cf" stroke="#c9b79a" stroke-width="2"/>',
    ...[
      [-18, -12],
      [16, -10],
      [-14, 14],
      [18, 14],
    ].map(([x, y]) => `<circle cx="${x}" cy="${y}" r="13" fill="none" stroke="#b87b2f" stroke-width="7"/>`),
  ].join(''),
  Soda: [
    '<circle r="34" fill="#1d5fa8"/>',
    '<circle r="28" fill="#dfe8ef"/>',
    '<circle r="20" fill="none" stroke="#b9c6d0" stroke-width="2"/>',
    '<circle cx="8" cy="-6" r="4" fill="#e63946"/>',
  ].join(''),
  Milkshake: [
    '<circle r="36" fill="#f3f0ea" stroke="#cfc8bd" stroke-width="2"/>',
    '<circle r="28" fill="#f4a6c1"/>',
    '<circle r="18" fill="#fbe3ec"/>',
    '<circle r="8" fill="#f4a6c1"/>',
    '<rect x="6" y="-30" width="8" height="26" fill="#c1121f" transform="rotate(30)"/>',
  ].join(''),
};

export function drawItem(p: PlacedItem): string {
  return `<g transform="translate(${p.cx.toFixed(1)} ${p.cy.toFixed(1)}) rotate(${p.angle.toFixed(1)}) scale(${p.scale.toFixed(3)})">${SHAPES[p.item]}</g>`;
}
