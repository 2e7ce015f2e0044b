/**
 * Vehicle shapes and looks, and the box a vehicle occupies on screen. The box is computed once here
 * and used both by the renderer (it draws inside it) and by the ground truth, so the two agree.
 */
import type { Box } from '../../../appliance/vision/types.ts';
import { DEPTH_FACTOR, pixelsPerMetre } from './geometry.ts';
import type { Rng } from './rng.ts';

export type VehicleKind = 'sedan' | 'hatchback' | 'suv' | 'van' | 'pickup';

export const VEHICLE_DIMENSIONS: Record<VehicleKind, { length: number; width: number; height: number }> = {
  sedan: { length: 4.7, width: 1.8, height: 1.45 },
  hatchback: { length: 4.0, width: 1.75, height: 1.5 },
  suv: { length: 4.8, width: 1.9, height: 1.75 },
  van: { length: 5.1, width: 1.95, height: 2.0 },
  pickup: { length: 5.5, width: 2.0, height: 1.85 },
};

const KIND_WEIGHTS: Array<[VehicleKind, number]> = [
  ['sedan', 0.35],
  ['hatchback', 0.2],
  ['suv', 0.25],
  ['van', 0.1],
  ['pickup', 0.1],
];

const PAINTS = [
  '#f2f2f0',
  '#1c1c1e',
  '#9ea3a8',
  '#5d6166',
  '#b3262b',
  '#23468c',
  '#2f5d3a',
  '#c8b48a',
  '#e0b526',
  '#6b2d5c',
  '#d8d8d2',
  '#7a1f1f',
];

export interface VehicleLook {
  kind: VehicleKind;
  paint: string;
  /** Darker trim and glass tint vary a little between cars. */
  glass: string;
  hasRoofRack: boolean;
}

export function randomLook(rng: Rng): VehicleLook {
  let r = rng.next();
  let kind: VehicleKind = 'sedan';
  for (const [k, w] of KIND_WEIGHTS) {
    if (r < w) {
      kind = k;
      break;
    }
    r -= w;
  }
  const g = Math.round(rng.range(30, 70));
  return {
    kind,
    paint: rng.pick(PAINTS),
    glass: `rgb(${g},${g + 10},${g + 22})`,
    hasRoofRack: rng.chance(0.15),
  };
}

/** Where a vehicle stands: its ground point (the box's bottom centre) and its heading on the ground. */
export interface VehiclePose {
  x: number;
  y: number;
  gx: number;
  gz: number;
}

/**
 * The screen box in reference pixels: the footprint seen from above-front plus the body's height,
 * standing on the ground point.
 */
export function vehicleBox(kind: VehicleKind, pose: VehiclePose): Box {
  const d = VEHICLE_DIMENSIONS[kind];
  const ppm = pixelsPerMetre(pose.y);
  const ax = Math.abs(pose.gx);
  const az = Math.abs(pose.gz);
  const width = (d.length * ax + d.width * az) * ppm;
  const footprintDepth = (d.length * az + d.width * ax) * ppm * DEPTH_FACTOR;
  const height = d.height * ppm * 0.9 + footprintDepth;
  return [pose.x - width / 2, pose.y - height, pose.x + width / 2, pose.y];
}

export const PERSON_HEIGHT = 1.72;

export function personBox(x: number, y: number): Box {
  const ppm = pixelsPerMetre(y);
  const h = PERSON_HEIGHT * ppm;
  const w = 0.34 * h;
  return [x - w / 2, y - h, x + w / 2, y];
}
