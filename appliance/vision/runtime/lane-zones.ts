/**
 * A lane camera's zones, as a manager names them, read as the drive-thru analytics' lane. The
 * issue's names (`menu_board`, `pay_window`, `pickup_window`, `pull_forward`) and the short ones
 * the synthetic world draws (`menu`, `pay`, `pickup`, `bay`) both work. The queue runs from the
 * lane's entry to the pickup window through whichever of the in-between zones are drawn.
 */
import type { LaneZones } from '../drive-thru/lane.ts';
import type { Zone } from '../registry/index.ts';
import type { Polygon } from '../zones/polygon.ts';

const ROLES = {
  entry: ['entry'],
  menu: ['menu_board', 'menu'],
  menu_to_pay: ['menu_to_pay'],
  pay: ['pay_window', 'pay'],
  pay_to_pickup: ['pay_to_pickup'],
  pickup: ['pickup_window', 'pickup'],
  bay: ['pull_forward', 'bay'],
  bypass: ['bypass'],
} as const;

/** In driving order: cars in any of these are in the queue. */
const QUEUE_ROLES = ['entry', 'menu', 'menu_to_pay', 'pay', 'pay_to_pickup', 'pickup'] as const;
const REQUIRED_ROLES = ['menu', 'pay', 'pickup'] as const;

export type LaneReading = { lane: LaneZones; missing: [] } | { lane: undefined; missing: string[] };

export function laneZonesOf(zones: readonly Zone[]): LaneReading {
  const byName = new Map(zones.map((zone) => [zone.name.toLowerCase(), zone]));
  const find = (role: keyof typeof ROLES) => ROLES[role].map((name) => byName.get(name)).find(Boolean);
  const missing = REQUIRED_ROLES.filter((role) => !find(role)).map((role) => ROLES[role][0]);
  if (missing.length > 0) return { lane: undefined, missing };
  const polygons: Record<string, Polygon> = {};
  for (const zone of zones) polygons[zone.name] = zone.polygon as Polygon;
  const nameOf = (role: keyof typeof ROLES) => find(role)?.name;
  return {
    lane: {
      zones: polygons,
      queue: QUEUE_ROLES.map(nameOf).filter((name): name is string => name !== undefined),
      menu: nameOf('menu')!,
      pay: nameOf('pay')!,
      pickup: nameOf('pickup')!,
      bay: nameOf('bay'),
      bypass: nameOf('bypass'),
    },
    missing: [],
  };
}
