import type { Box } from '../types.ts';
import type { Point, Polygon } from '../zones/polygon.ts';

/** Shoelace area, whichever way the polygon winds. */
export function polygonArea(polygon: Polygon): number {
  let twice = 0;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    twice += polygon[j]![0] * polygon[i]![1] - polygon[i]![0] * polygon[j]![1];
  }
  return Math.abs(twice) / 2;
}

/**
 * The polygon clipped to the box (Sutherland-Hodgman against the box's four sides). The box is
 * convex, so the clipped area is right for any simple polygon, concave included.
 */
export function clipToBox(polygon: Polygon, [x1, y1, x2, y2]: Box): Point[] {
  let points: Point[] = [...polygon];
  points = clip(
    points,
    (p) => p[0] >= x1,
    (a, b) => atX(a, b, x1),
  );
  points = clip(
    points,
    (p) => p[0] <= x2,
    (a, b) => atX(a, b, x2),
  );
  points = clip(
    points,
    (p) => p[1] >= y1,
    (a, b) => atY(a, b, y1),
  );
  return clip(
    points,
    (p) => p[1] <= y2,
    (a, b) => atY(a, b, y2),
  );
}

/** The share (0..1) of the polygon's area the box covers. */
export function coverage(polygon: Polygon, box: Box): number {
  const whole = polygonArea(polygon);
  return whole === 0 ? 0 : polygonArea(clipToBox(polygon, box)) / whole;
}

function clip(points: Point[], inside: (p: Point) => boolean, cross: (a: Point, b: Point) => Point): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < points.length; i += 1) {
    const current = points[i]!;
    const previous = points[(i + points.length - 1) % points.length]!;
    if (inside(current)) {
      if (!inside(previous)) out.push(cross(previous, current));
      out.push(current);
    } else if (inside(previous)) {
      out.push(cross(previous, current));
    }
  }
  return out;
}

const atX = ([ax, ay]: Point, [bx, by]: Point, x: number): Point => [
  x,
  ay + ((by - ay) * (x - ax)) / (bx - ax),
];
const atY = ([ax, ay]: Point, [bx, by]: Point, y: number): Point => [
  ax + ((bx - ax) * (y - ay)) / (by - ay),
  y,
];
