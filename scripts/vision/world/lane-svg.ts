/**
 * Lane frames as SVG in reference coordinates (viewBox 640x360, rendered at any output size):
 * a per-clip background (asphalt, curbs, building with its windows, menu board, grass, street,
 * sidewalk), then vehicles and people far to near, with the pole painted at its depth.
 */
import type { Box } from '../../../appliance/vision/types.ts';
import { bandPolygon, type Point, REFERENCE_HEIGHT, REFERENCE_WIDTH } from './geometry.ts';
import type { PlacedObject } from './lane-scene.ts';
import { LAYOUT, type Rect } from './layout.ts';
import type { Rng } from './rng.ts';
import type { SimPersonState, SimVehicleState } from './simulator.ts';

export interface SceneStyle {
  wall: string;
  accent: string;
  asphalt: string;
  lane: string;
  grass: string;
  sign: string;
}

const WALLS = ['#c9b79c', '#b5533c', '#d8d2c4', '#8f6f55', '#e6dcc8', '#7d7f84'];
const ACCENTS = ['#c8102e', '#ffc72c', '#00704a', '#f47b20', '#1d4f91'];

export function randomStyle(rng: Rng): SceneStyle {
  const grey = (base: number) => {
    const v = Math.round(base + rng.range(-8, 8));
    return `rgb(${v},${v},${v + 3})`;
  };
  const g = Math.round(rng.range(80, 120));
  return {
    wall: rng.pick(WALLS),
    accent: rng.pick(ACCENTS),
    asphalt: grey(78),
    lane: grey(92),
    grass: `rgb(${Math.round(g * 0.55)},${g},${Math.round(g * 0.45)})`,
    sign: rng.pick(['#1f5aa6', '#1d7a3a', '#8a1c1c']),
  };
}

const pts = (points: readonly Point[]) => points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ');
const rect = (r: Rect, fill: string, extra = '') =>
  `<rect x="${r.x}" y="${r.y}" width="${r.width}" height="${r.height}" fill="${fill}"${extra}/>`;

function roadSvg(style: SceneStyle): string {
  const { routes, stops } = LAYOUT;
  const laneBand = bandPolygon(routes.lane, 0, routes.lane.length, 2.0);
  const bayBand = bandPolygon(routes.bay, stops.pickup, routes.bay.length, 1.9);
  const curb = 'fill="none" stroke="#b9b8b0" stroke-width="2"';
  return [
    `<polygon points="335,0 640,0 640,262 575,278 505,222 455,196 335,172" fill="${style.grass}"/>`,
    `<rect x="0" y="296" width="640" height="54" fill="${style.asphalt}"/>`,
    '<line x1="0" y1="323" x2="640" y2="327" stroke="#d9c75a" stroke-width="1.5" stroke-dasharray="16 12"/>',
    '<rect x="0" y="348" width="640" height="12" fill="#a8a69e"/>',
    `<polygon points="${pts(laneBand)}" fill="${style.lane}"/>`,
    `<polygon points="${pts(laneBand)}" ${curb}/>`,
    `<polygon points="${pts(bayBand)}" fill="${style.lane}"/>`,
    '<line x1="30" y1="262" x2="80" y2="262" stroke="#eee" stroke-width="1.5"/>',
    '<line x1="26" y1="312" x2="84" y2="312" stroke="#eee" stroke-width="1.5"/>',
  ].join('');
}

function buildingSvg(style: SceneStyle): string {
  const { payWindow, pickupWindow, menuBoard } = LAYOUT;
  const win = (r: Rect) =>
    `${rect(r, '#2b3a46', ' stroke="#ddd" stroke-width="2"')}<rect x="${r.x + 3}" y="${r.y + 3}" width="${r.width / 2 - 4}" height="${r.height - 6}" fill="#4d6475"/>`;
  const items = [0, 1, 2, 3, 4, 5]
    .map(
      (i) =>
        `<rect x="${menuBoard.x + 4 + (i % 3) * 14}" y="${menuBoard.y + 4 + Math.floor(i / 3) * 14}" width="11" height="10" fill="${['#e8b04a', '#c0392b', '#f1e3c6', '#7fb3d5', '#e67e22', '#f5f5f5'][i]}"/>`,
    )
    .join('');
  return [
    `<rect x="0" y="22" width="336" height="148" fill="${style.wall}"/>`,
    '<rect x="0" y="0" width="342" height="26" fill="#3a3532"/>',
    `<rect x="0" y="30" width="336" height="12" fill="${style.accent}"/>`,
    win(payWindow),
    win(pickupWindow),
    rect({ x: 30, y: 70, width: 60, height: 50 }, '#34495e', ' stroke="#ccc" stroke-width="2"'),
    rect({ x: 190, y: 118, width: 26, height: 52 }, '#5b4636'),
    `<rect x="${menuBoard.x + menuBoard.width / 2 - 2}" y="${menuBoard.y + menuBoard.height}" width="4" height="12" fill="#555"/>`,
    rect(menuBoard, '#1e1e24', ' stroke="#888" stroke-width="1.5"'),
    items,
  ].join('');
}

export function backgroundSvg(style: SceneStyle): string {
  return `<rect width="${REFERENCE_WIDTH}" height="${REFERENCE_HEIGHT}" fill="${style.asphalt}"/>${roadSvg(style)}${buildingSvg(style)}`;
}

function poleSvg(style: SceneStyle): string {
  const [pole, sign] = LAYOUT.occluder.rects;
  return `${rect(pole!, '#6e7073')}${rect(sign!, style.sign, ' stroke="#f4f4f4" stroke-width="2"')}`;
}

function sideVehicle(v: SimVehicleState, b: Box): string {
  const [x1, y1, x2, y2] = b;
  const w = x2 - x1;
  const h = y2 - y1;
  const right = v.gx > 0;
  const r = Math.min(h * 0.2, w * 0.09);
  const bodyTop = y1 + h * (v.look.kind === 'van' ? 0.12 : 0.42);
  const fx = (f: number) => (right ? x1 + f * w : x2 - f * w);
  const cabin =
    v.look.kind === 'van'
      ? [fx(0.02), fx(0.88)]
      : v.look.kind === 'pickup'
        ? [fx(0.45), fx(0.78)]
        : [fx(v.look.kind === 'hatchback' ? 0.04 : 0.2), fx(0.8)];
  const [c0, c1] = cabin as [number, number];
  const slant = (c1 - c0) * 0.18;
  const cabinPts = `${c0},${bodyTop} ${c0 + slant * 0.5},${y1} ${c1 - slant},${y1} ${c1},${bodyTop}`;
  const glass = `${c0 + slant * 0.6},${bodyTop - 1} ${c0 + slant * 0.9},${y1 + h * 0.08} ${c1 - slant * 1.2},${y1 + h * 0.08} ${c1 - slant * 0.2},${bodyTop - 1}`;
  const lights = `<rect x="${fx(0.97) - (right ? 0 : 0)}" y="${bodyTop + h * 0.08}" width="${w * 0.03}" height="${h * 0.1}" fill="#fff3c4"/><rect x="${fx(0.01)}" y="${bodyTop + h * 0.08}" width="${w * 0.03}" height="${h * 0.1}" fill="#c0221b"/>`;
  return [
    `<polygon points="${cabinPts}" fill="${v.look.paint}"/>`,
    `<polygon points="${glass}" fill="${v.look.glass}"/>`,
    `<rect x="${x1}" y="${bodyTop}" width="${w}" height="${y2 - r * 0.6 - bodyTop}" rx="${h * 0.08}" fill="${v.look.paint}"/>`,
    `<rect x="${x1}" y="${bodyTop + h * 0.24}" width="${w}" height="${h * 0.05}" fill="#000" fill-opacity="0.18"/>`,
    lights,
    `<circle cx="${x1 + w * 0.2}" cy="${y2 - r}" r="${r}" fill="#141414"/><circle cx="${x2 - w * 0.2}" cy="${y2 - r}" r="${r}" fill="#141414"/>`,
    `<circle cx="${x1 + w * 0.2}" cy="${y2 - r}" r="${r * 0.45}" fill="#8a8d91"/><circle cx="${x2 - w * 0.2}" cy="${y2 - r}" r="${r * 0.45}" fill="#8a8d91"/>`,
  ].join('');
}

function endOnVehicle(v: SimVehicleState, b: Box): string {
  const [x1, y1, x2, y2] = b;
  const w = x2 - x1;
  const h = y2 - y1;
  const front = v.gz > 0;
  const bodyTop = y1 + h * 0.38;
  const lamp = front ? '#fff3c4' : '#c0221b';
  return [
    `<rect x="${x1 + w * 0.04}" y="${y2 - h * 0.2}" width="${w * 0.2}" height="${h * 0.2}" fill="#141414"/>`,
    `<rect x="${x2 - w * 0.24}" y="${y2 - h * 0.2}" width="${w * 0.2}" height="${h * 0.2}" fill="#141414"/>`,
    `<polygon points="${x1 + w * 0.06},${bodyTop} ${x1 + w * 0.18},${y1} ${x2 - w * 0.18},${y1} ${x2 - w * 0.06},${bodyTop}" fill="${v.look.paint}"/>`,
    `<polygon points="${x1 + w * 0.12},${bodyTop - 1} ${x1 + w * 0.21},${y1 + h * 0.06} ${x2 - w * 0.21},${y1 + h * 0.06} ${x2 - w * 0.12},${bodyTop - 1}" fill="${v.look.glass}"/>`,
    `<rect x="${x1}" y="${bodyTop}" width="${w}" height="${y2 - h * 0.12 - bodyTop}" rx="${h * 0.06}" fill="${v.look.paint}"/>`,
    `<rect x="${x1 + w * 0.06}" y="${bodyTop + h * 0.1}" width="${w * 0.16}" height="${h * 0.09}" fill="${lamp}"/>`,
    `<rect x="${x2 - w * 0.22}" y="${bodyTop + h * 0.1}" width="${w * 0.16}" height="${h * 0.09}" fill="${lamp}"/>`,
    front
      ? `<rect x="${x1 + w * 0.3}" y="${bodyTop + h * 0.12}" width="${w * 0.4}" height="${h * 0.12}" fill="#222"/>`
      : '',
  ].join('');
}

function vehicleSvg(v: SimVehicleState, b: Box): string {
  const shadow = `<ellipse cx="${(b[0] + b[2]) / 2}" cy="${b[3] - 1}" rx="${(b[2] - b[0]) * 0.52}" ry="${(b[3] - b[1]) * 0.1}" fill="#000" fill-opacity="0.3"/>`;
  return shadow + (Math.abs(v.gx) >= 0.6 ? sideVehicle(v, b) : endOnVehicle(v, b));
}

function personSvg(p: SimPersonState, b: Box): string {
  const [x1, y1, x2, y2] = b;
  const w = x2 - x1;
  const h = y2 - y1;
  const cx = (x1 + x2) / 2;
  const swing = Math.sin(p.phase) * w * 0.45;
  const hip = y1 + h * 0.55;
  const leg = `stroke="#2d2d3a" stroke-width="${w * 0.22}" stroke-linecap="butt"`;
  return [
    `<line x1="${cx}" y1="${hip}" x2="${cx + swing}" y2="${y2}" ${leg}/>`,
    `<line x1="${cx}" y1="${hip}" x2="${cx - swing}" y2="${y2}" ${leg}/>`,
    `<rect x="${x1 + w * 0.15}" y="${y1 + h * 0.17}" width="${w * 0.7}" height="${h * 0.4}" rx="${w * 0.15}" fill="${p.shirt}"/>`,
    `<circle cx="${cx}" cy="${y1 + h * 0.09}" r="${h * 0.09}" fill="#c68d6a"/>`,
  ].join('');
}

/** A whole frame; `background` is `backgroundSvg(style)`, built once per clip. */
export function frameSvg(
  placed: readonly PlacedObject[],
  background: string,
  style: SceneStyle,
  width: number,
  height: number,
): string {
  const parts: string[] = [background];
  let poleDrawn = false;
  for (const o of placed) {
    if (!poleDrawn && o.state.y >= LAYOUT.occluder.baseY) {
      parts.push(poleSvg(style));
      poleDrawn = true;
    }
    parts.push(o.state.class === 'vehicle' ? vehicleSvg(o.state, o.box) : personSvg(o.state, o.box));
  }
  if (!poleDrawn) parts.push(poleSvg(style));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${REFERENCE_WIDTH} ${REFERENCE_HEIGHT}" preserveAspectRatio="none">${parts.join('')}</svg>`;
}
