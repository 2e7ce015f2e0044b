/**
 * What a lane frame holds once drawn: each object's box (reference pixels), its place in the drawing
 * order (far to near by ground point), and how much of it is hidden by nearer things or the frame.
 * The SVG renderer and the ground truth both read this, so the truth describes what was drawn.
 */
import type { Box } from '../../../appliance/vision/types.ts';
import { REFERENCE_HEIGHT, REFERENCE_WIDTH } from './geometry.ts';
import { LAYOUT } from './layout.ts';
import type { SimObjectState } from './simulator.ts';
import { personBox, vehicleBox } from './vehicles.ts';

export interface PlacedObject {
  state: SimObjectState;
  box: Box;
  /** Fraction of the box not hidden by nearer objects, the pole, or the frame's edge. */
  visible: number;
}

export function boxOf(o: SimObjectState): Box {
  return o.class === 'vehicle' ? vehicleBox(o.look.kind, o) : personBox(o.x, o.y);
}

function inBox(x: number, y: number, b: Box): boolean {
  return x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3];
}

const GRID = 10;
const POLE_BOXES: Box[] = LAYOUT.occluder.rects.map((r) => [r.x, r.y, r.x + r.width, r.y + r.height]);

function visibleFraction(box: Box, nearer: readonly Box[]): number {
  let seen = 0;
  for (let i = 0; i < GRID; i++) {
    for (let j = 0; j < GRID; j++) {
      const x = box[0] + ((i + 0.5) / GRID) * (box[2] - box[0]);
      const y = box[1] + ((j + 0.5) / GRID) * (box[3] - box[1]);
      if (x < 0 || y < 0 || x > REFERENCE_WIDTH || y > REFERENCE_HEIGHT) continue;
      if (!nearer.some((b) => inBox(x, y, b))) seen++;
    }
  }
  return seen / (GRID * GRID);
}

/** Objects far to near (the order they are painted), each with its box and visible fraction. */
export function placeObjects(objects: readonly SimObjectState[]): PlacedObject[] {
  const sorted = [...objects].sort((a, b) => a.y - b.y || a.id - b.id);
  const boxes = sorted.map(boxOf);
  return sorted.map((state, i) => {
    const nearer = boxes.slice(i + 1);
    if (state.y < LAYOUT.occluder.baseY) nearer.push(...POLE_BOXES);
    return { state, box: boxes[i]!, visible: visibleFraction(boxes[i]!, nearer) };
  });
}
