/**
 * Occupancy: people in the dining room against its capacity, and parking spaces occupied against
 * the lot's total, as the documented occupancy record.
 *
 * A person is in the dining room when their box's bottom centre (where they meet the floor) is in
 * the dining zone. A parking space is covered when some vehicle box covers at least half of the
 * space's area. Coverage of the space rather than IoU: a car's box includes its height and often
 * the ground beyond the lines, so it is larger than the space it stands in and its IoU with that
 * space stays low, while a correctly parked car covers nearly all of it. Draw spaces on the ground
 * where the wheels stand. A car passing in the aisle, or the near row's roofs rising over a far
 * row's spaces, can cover a space for a moment: a space flips only after `confirmUpdates`
 * consecutive updates agree, so call `updateParking` at a steady rate (about once a second) rather
 * than on every inferred frame.
 */
import { anchorOf, type Box } from '../types.ts';
import { contains, type Polygon } from '../zones/polygon.ts';
import { coverage } from './geometry.ts';

export interface ParkingSpace {
  id: string;
  polygon: Polygon;
}

export interface OccupancyOptions {
  /** The dining room in the camera's pixels; the whole frame when absent. */
  diningZone?: Polygon | undefined;
  capacity: number;
  parkingSpaces: readonly ParkingSpace[];
  /** The share of a space's area a vehicle box must cover (default 0.5). */
  coverThreshold?: number | undefined;
  /** Consecutive agreeing updates before a space flips (default 3). */
  confirmUpdates?: number | undefined;
  personClasses?: readonly string[] | undefined;
  vehicleClasses?: readonly string[] | undefined;
}

/** A detection or a track: what occupancy reads of either. */
export interface SeenObject {
  box: Box;
  className: string;
}

export interface SpaceState {
  id: string;
  occupied: boolean;
  /** The largest share of the space covered by one vehicle box at the last update. */
  coverage: number;
}

export interface OccupancyRecord {
  location_id: string;
  timestamp: string;
  dining_room: { current: number; capacity: number; utilization: number };
  parking: { occupied: number; total: number; utilization: number };
}

const DEFAULT_VEHICLES = ['vehicle', 'car', 'truck', 'bus', 'motorcycle'];

export function createOccupancy(options: OccupancyOptions) {
  const threshold = options.coverThreshold ?? 0.5;
  const confirm = Math.max(1, options.confirmUpdates ?? 3);
  const people = new Set(options.personClasses ?? ['person']);
  const vehicles = new Set(options.vehicleClasses ?? DEFAULT_VEHICLES);
  if (!(options.capacity >= 0)) throw new Error('capacity must be 0 or more');
  const spaces = options.parkingSpaces.map((space) => ({
    ...space,
    // Undefined until the first update, which is taken as it is: there is no earlier state to flicker from.
    occupied: undefined as boolean | undefined,
    disagreeing: 0,
    coverage: 0,
  }));
  let diners = 0;

  function updateDining(objects: readonly SeenObject[]): number {
    const zone = options.diningZone;
    diners = objects.filter(
      (o) => people.has(o.className) && (zone === undefined || contains(zone, anchorOf(o.box))),
    ).length;
    return diners;
  }

  function updateParking(objects: readonly SeenObject[]): SpaceState[] {
    const boxes = objects.filter((o) => vehicles.has(o.className)).map((o) => o.box);
    for (const space of spaces) {
      space.coverage = Math.max(0, ...boxes.map((box) => coverage(space.polygon, box)));
      const covered = space.coverage >= threshold;
      if (space.occupied === undefined || covered === space.occupied) {
        space.occupied = covered;
        space.disagreeing = 0;
        continue;
      }
      space.disagreeing += 1;
      if (space.disagreeing < confirm) continue;
      space.occupied = covered;
      space.disagreeing = 0;
    }
    return spaceStates();
  }

  const spaceStates = (): SpaceState[] =>
    spaces.map(({ id, occupied, coverage }) => ({ id, occupied: occupied === true, coverage }));

  function snapshot(locationId: string, at: Date): OccupancyRecord {
    const occupied = spaces.filter((space) => space.occupied === true).length;
    return {
      location_id: locationId,
      timestamp: at.toISOString(),
      dining_room: {
        current: diners,
        capacity: options.capacity,
        utilization: utilization(diners, options.capacity),
      },
      parking: { occupied, total: spaces.length, utilization: utilization(occupied, spaces.length) },
    };
  }

  return { updateDining, updateParking, spaces: spaceStates, snapshot };
}

/**
 * A fraction 0..1 to two places; nothing to fill reads 0. A crowded room reads 1 while `current`
 * keeps the true count above capacity.
 */
export function utilization(current: number, capacity: number): number {
  if (capacity <= 0) return 0;
  return Math.round(Math.min(1, Math.max(0, current / capacity)) * 100) / 100;
}
