/**
 * The camera's view of the ground: pixels per metre grow towards the bottom of the frame, and a metre
 * of depth shows as fewer pixels than a metre across. Paths are polylines in reference pixels
 * (640x360) measured in metres along the ground, so spacing and speed are physical everywhere.
 */
export type Point = readonly [x: number, y: number];

export const REFERENCE_WIDTH = 640;
export const REFERENCE_HEIGHT = 360;
/** A metre of depth spans this fraction of a metre across, in pixels (the camera looks down at ~30°). */
export const DEPTH_FACTOR = 0.5;

/** Pixels per metre across the image at reference row `y`. */
export function pixelsPerMetre(y: number): number {
  const t = Math.min(1, Math.max(0, (y - 100) / 260));
  return 6 + 14 * t;
}

export interface PathPoint {
  x: number;
  y: number;
  /** Direction of travel on the ground, unit vector in metres: across the image and into depth. */
  gx: number;
  gz: number;
}

export interface GroundPath {
  points: readonly Point[];
  /** Metres from the start to each point. */
  distances: readonly number[];
  length: number;
  at(s: number): PathPoint;
  /** Metres along the path of the point nearest to `p`. */
  project(p: Point): number;
}

function segmentMetres(a: Point, b: Point): { across: number; depth: number } {
  const ppm = pixelsPerMetre((a[1] + b[1]) / 2);
  return { across: (b[0] - a[0]) / ppm, depth: (b[1] - a[1]) / (ppm * DEPTH_FACTOR) };
}

export function createPath(points: readonly Point[]): GroundPath {
  const distances = [0];
  for (let i = 1; i < points.length; i++) {
    const m = segmentMetres(points[i - 1]!, points[i]!);
    distances.push(distances[i - 1]! + Math.hypot(m.across, m.depth));
  }
  const length = distances[distances.length - 1]!;
  const at = (s: number): PathPoint => {
    const clamped = Math.min(length, Math.max(0, s));
    let i = 1;
    while (i < points.length - 1 && distances[i]! < clamped) i++;
    const a = points[i - 1]!;
    const b = points[i]!;
    const span = distances[i]! - distances[i - 1]!;
    const f = span > 0 ? (clamped - distances[i - 1]!) / span : 0;
    const m = segmentMetres(a, b);
    const norm = Math.hypot(m.across, m.depth) || 1;
    return {
      x: a[0] + (b[0] - a[0]) * f,
      y: a[1] + (b[1] - a[1]) * f,
      gx: m.across / norm,
      gz: m.depth / norm,
    };
  };
  const project = (p: Point): number => {
    let best = { d: Number.POSITIVE_INFINITY, s: 0 };
    for (let i = 1; i < points.length; i++) {
      const a = points[i - 1]!;
      const b = points[i]!;
      const vx = b[0] - a[0];
      const vy = b[1] - a[1];
      const f = Math.min(
        1,
        Math.max(0, ((p[0] - a[0]) * vx + (p[1] - a[1]) * vy) / (vx * vx + vy * vy || 1)),
      );
      const d = Math.hypot(a[0] + vx * f - p[0], a[1] + vy * f - p[1]);
      if (d < best.d) best = { d, s: distances[i - 1]! + f * (distances[i]! - distances[i - 1]!) };
    }
    return best.s;
  };
  return { points, distances, length, at, project };
}

/** The ground band `halfWidth` metres either side of the path between two distances, as a polygon. */
export function bandPolygon(path: GroundPath, from: number, to: number, halfWidth: number): Point[] {
  const steps = Math.max(2, Math.ceil((to - from) / 1.5));
  const left: Point[] = [];
  const right: Point[] = [];
  for (let i = 0; i <= steps; i++) {
    const p = path.at(from + ((to - from) * i) / steps);
    const ppm = pixelsPerMetre(p.y);
    // The ground normal (−gz, gx) drawn back into pixels.
    const nx = -p.gz * halfWidth * ppm;
    const ny = p.gx * halfWidth * ppm * DEPTH_FACTOR;
    left.push([p.x + nx, p.y + ny]);
    right.push([p.x - nx, p.y - ny]);
  }
  return [...left, ...right.reverse()];
}

export function pointInPolygon(p: Point, polygon: readonly Point[]): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i]!;
    const [xj, yj] = polygon[j]!;
    if (yi > p[1] !== yj > p[1] && p[0] < ((xj - xi) * (p[1] - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}
