import { describe, expect, it } from 'vitest';
import { clipToBox, coverage, polygonArea } from '../../../../appliance/vision/occupancy/geometry.ts';
import { createOccupancy, utilization } from '../../../../appliance/vision/occupancy/occupancy.ts';
import type { Box } from '../../../../appliance/vision/types.ts';

const person = (box: Box) => ({ box, className: 'person' });
const car = (box: Box) => ({ box, className: 'car' });
const square = (x: number, y: number, size: number) =>
  [
    [x, y],
    [x + size, y],
    [x + size, y + size],
    [x, y + size],
  ] as const;
const AT = new Date('2026-03-20T12:00:00.000Z');

describe('coverage of a space by a box', () => {
  it('measures the share of the polygon inside the box', () => {
    expect(polygonArea(square(0, 0, 10))).toBe(100);
    expect(coverage(square(0, 0, 10), [0, 0, 10, 10])).toBe(1);
    expect(coverage(square(0, 0, 10), [5, 0, 20, 20])).toBeCloseTo(0.5);
    expect(coverage(square(0, 0, 10), [-50, -50, 50, 50])).toBe(1);
    expect(coverage(square(0, 0, 10), [20, 20, 30, 30])).toBe(0);
  });

  it('handles a slanted quadrilateral (a space in perspective) and a concave one', () => {
    const slanted = [
      [0, 0],
      [10, 0],
      [15, 10],
      [5, 10],
    ] as const;
    expect(polygonArea(slanted)).toBe(100);
    expect(polygonArea(clipToBox(slanted, [0, 0, 100, 5]))).toBeCloseTo(50);
    const ell = [
      [0, 0],
      [10, 0],
      [10, 5],
      [5, 5],
      [5, 10],
      [0, 10],
    ] as const;
    expect(polygonArea(ell)).toBe(75);
    expect(coverage(ell, [0, 5, 10, 10])).toBeCloseTo(25 / 75);
  });
});

describe('dining room', () => {
  const zone = square(100, 100, 400);

  it('counts people standing in the dining zone, by where they meet the floor', () => {
    const occupancy = createOccupancy({ diningZone: zone, capacity: 40, parkingSpaces: [] });
    const current = occupancy.updateDining([
      person([150, 150, 200, 300]),
      person([300, 350, 350, 480]),
      person([600, 150, 650, 300]), // outside
      person([150, 20, 200, 90]), // feet short of the zone
      car([200, 200, 300, 300]), // not a person
    ]);
    expect(current).toBe(2);
    expect(occupancy.snapshot('loc-1', AT).dining_room).toEqual({
      current: 2,
      capacity: 40,
      utilization: 0.05,
    });
    occupancy.updateDining([]);
    expect(occupancy.snapshot('loc-1', AT).dining_room.current).toBe(0);
  });

  it('counts every person in the frame without a zone', () => {
    const occupancy = createOccupancy({ capacity: 3, parkingSpaces: [] });
    occupancy.updateDining([person([0, 0, 10, 10]), person([900, 500, 950, 700])]);
    expect(occupancy.snapshot('loc-1', AT).dining_room).toEqual({
      current: 2,
      capacity: 3,
      utilization: 0.67,
    });
  });
});

describe('parking', () => {
  const spaces = [
    { id: 'A1', polygon: square(0, 100, 100) },
    { id: 'A2', polygon: square(110, 100, 100) },
    { id: 'A3', polygon: square(220, 100, 100) },
  ];
  const parkedInA1 = car([-10, 60, 105, 205]); // taller than the space, as a car's box is
  const halfOverA2 = car([160, 100, 260, 200]); // covers half of A2 and a little of A3

  it('takes a space as occupied when a vehicle box covers at least half of it', () => {
    const occupancy = createOccupancy({ capacity: 10, parkingSpaces: spaces });
    const states = occupancy.updateParking([parkedInA1, halfOverA2, person([230, 110, 300, 200])]);
    expect(states.map((s) => [s.id, s.occupied])).toEqual([
      ['A1', true],
      ['A2', true],
      ['A3', false],
    ]);
    expect(states[1]!.coverage).toBeCloseTo(0.5);
    expect(states[2]!.coverage).toBeCloseTo(0.4);
    expect(occupancy.snapshot('loc-1', AT).parking).toEqual({ occupied: 2, total: 3, utilization: 0.67 });
  });

  it('flips a space only after N consecutive agreeing updates', () => {
    const occupancy = createOccupancy({ capacity: 10, parkingSpaces: spaces, confirmUpdates: 3 });
    const occupiedA1 = () => occupancy.spaces()[0]!.occupied;
    occupancy.updateParking([]);
    expect(occupiedA1()).toBe(false);

    // A car passing through: two frames, then gone.
    occupancy.updateParking([parkedInA1]);
    occupancy.updateParking([parkedInA1]);
    occupancy.updateParking([]);
    expect(occupiedA1()).toBe(false);

    // A car parking: the third agreeing update flips it.
    occupancy.updateParking([parkedInA1]);
    occupancy.updateParking([parkedInA1]);
    expect(occupiedA1()).toBe(false);
    occupancy.updateParking([parkedInA1]);
    expect(occupiedA1()).toBe(true);

    // The detector missing it for a frame or two does not free the space.
    occupancy.updateParking([]);
    occupancy.updateParking([]);
    occupancy.updateParking([parkedInA1]);
    occupancy.updateParking([]);
    expect(occupiedA1()).toBe(true);
    occupancy.updateParking([]);
    occupancy.updateParking([]);
    expect(occupiedA1()).toBe(false);
  });

  it('counts nothing before any update and reads vehicles by class name', () => {
    const occupancy = createOccupancy({ capacity: 10, parkingSpaces: spaces, vehicleClasses: ['vehicle'] });
    expect(occupancy.snapshot('loc-1', AT).parking).toEqual({ occupied: 0, total: 3, utilization: 0 });
    occupancy.updateParking([parkedInA1, { box: [110, 100, 210, 200], className: 'vehicle' }]);
    expect(occupancy.spaces().map((s) => s.occupied)).toEqual([false, true, false]);
  });
});

describe('the occupancy record', () => {
  it('has the spec shape', () => {
    const occupancy = createOccupancy({
      capacity: 4,
      parkingSpaces: [{ id: 'P1', polygon: square(0, 0, 10) }],
    });
    occupancy.updateDining([person([0, 0, 1, 1])]);
    occupancy.updateParking([car([0, 0, 10, 10])]);
    expect(occupancy.snapshot('loc-42', AT)).toStrictEqual({
      location_id: 'loc-42',
      timestamp: '2026-03-20T12:00:00.000Z',
      dining_room: { current: 1, capacity: 4, utilization: 0.25 },
      parking: { occupied: 1, total: 1, utilization: 1 },
    });
  });

  it('reads utilization as a fraction to two places, 0 with nothing to fill, at most 1', () => {
    expect(utilization(1, 3)).toBe(0.33);
    expect(utilization(2, 3)).toBe(0.67);
    expect(utilization(0, 10)).toBe(0);
    expect(utilization(5, 0)).toBe(0);
    expect(utilization(12, 10)).toBe(1);
    const empty = createOccupancy({ capacity: 0, parkingSpaces: [] });
    expect(empty.snapshot('loc', AT)).toMatchObject({
      dining_room: { current: 0, capacity: 0, utilization: 0 },
      parking: { occupied: 0, total: 0, utilization: 0 },
    });
  });
});
