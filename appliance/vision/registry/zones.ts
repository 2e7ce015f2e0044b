import type { ErrorDetail } from '../../../shared/http/errors.ts';
import { parseSize } from '../settings/index.ts';
import type { Zone } from './schemas.ts';

/** Twice the signed area (shoelace): zero for points all on one line. */
function doubleArea(polygon: Zone['polygon']): number {
  let sum = 0;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i, i += 1) {
    const [xi, yi] = polygon[i]!;
    const [xj, yj] = polygon[j]!;
    sum += xj * yi - xi * yj;
  }
  return sum;
}

/** What is wrong with zones drawn at `resolution` (`field` prefix: where they came in), if anything. */
export function zoneProblems(zones: Zone[], resolution: string, field: string): ErrorDetail[] {
  const { width, height } = parseSize(resolution);
  const problems: ErrorDetail[] = [];
  const seen = new Set<string>();
  zones.forEach((zone, z) => {
    if (seen.has(zone.name)) problems.push({ field: `${field}.${z}.name`, message: 'is used twice' });
    seen.add(zone.name);
    zone.polygon.forEach(([x, y], p) => {
      if (x > width || y > height)
        problems.push({ field: `${field}.${z}.polygon.${p}`, message: `is outside ${resolution}` });
    });
    if (doubleArea(zone.polygon) === 0)
      problems.push({ field: `${field}.${z}.polygon`, message: 'encloses no area' });
  });
  return problems;
}

const round = (value: number) => Math.round(value * 100) / 100;

/**
 * Zones drawn at one inference resolution, in pixels of another: a resolution change keeps each
 * zone over the same part of the picture instead of leaving it out of the frame.
 */
export function scaleZones(zones: Zone[], from: string | null, to: string): Zone[] {
  if (from === null || from === to) return zones;
  const source = parseSize(from);
  const target = parseSize(to);
  const sx = target.width / source.width;
  const sy = target.height / source.height;
  return zones.map((zone) => ({
    name: zone.name,
    polygon: zone.polygon.map(([x, y]) => [round(x * sx), round(y * sy)] as [number, number]),
  }));
}
