/** Zones are polygons in a camera's pixels; an object is in the zone its box's bottom centre is in. */
export type Point = readonly [x: number, y: number];
export type Polygon = ReadonlyArray<Point>;

/** Even-odd ray casting; a point on an edge may fall either way, which a zone boundary tolerates. */
export function contains(polygon: Polygon, [x, y]: Point): boolean {
  let inside = false;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const [xi, yi] = polygon[i]!;
    const [xj, yj] = polygon[j]!;
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** The first zone (in the given order) containing the point, or undefined. */
export function zoneOf<Z extends string>(
  zones: ReadonlyArray<readonly [Z, Polygon]>,
  point: Point,
): Z | undefined {
  for (const [name, polygon] of zones) if (contains(polygon, point)) return name;
  return undefined;
}
