import { describe, expect, it } from 'vitest';
import { createLaneAnalytics, type LaneEvent } from '../../../../appliance/vision/drive-thru/lane.ts';
import { createTracker, trackerOptionsFromSettings } from '../../../../appliance/vision/track/index.ts';
import { type Detection, iou } from '../../../../appliance/vision/types.ts';
import { placeObjects } from '../../../../scripts/vision/world/lane-scene.ts';
import { truthCar, truthObjects } from '../../../../scripts/vision/world/lane-truth.ts';
import { DEFAULT_LANE_CONFIG, simulateLane } from '../../../../scripts/vision/world/simulator.ts';
import { worldLane } from '../support/world-lane.ts';

const WIDTH = 640;
const HEIGHT = 360;
const FPS = 10;

/**
 * The lane analytics on the synthetic world's truth boxes (a perfect detector, objects hidden
 * beyond three quarters left out as a detector would miss them), through the real tracker: what
 * this measures is the tracking, zoning and bookkeeping, not detection.
 */
function runLane(seed: number, seconds: number) {
  const sim = simulateLane({ ...DEFAULT_LANE_CONFIG, seed, seconds, fps: FPS });
  const tracker = createTracker(
    trackerOptionsFromSettings({
      fps: FPS,
      min_confidence: 0.5,
      track_timeout_seconds: 2,
      vehicleClasses: [0],
    }),
  );
  const lane = createLaneAnalytics(worldLane(WIDTH, HEIGHT));
  const events: LaneEvent[] = [];
  lane.onEvent((event) => events.push(event));
  const queueLengths: number[] = [];
  // Which truth car each track follows most: tracks are matched to truth boxes by IoU each frame.
  const votes = new Map<number, Map<number, number>>();
  sim.frames.forEach((frame, index) => {
    const truth = truthObjects(placeObjects(frame.objects), WIDTH, HEIGHT).filter(
      (o) => o.class === 'vehicle' && o.visible >= 0.25,
    );
    const detections: Detection[] = truth.map((o) => ({
      box: o.box,
      classId: 0,
      className: 'vehicle',
      confidence: 0.9,
    }));
    const { tracks, removed } = tracker.update(detections, index);
    lane.update(tracks, frame.t, removed);
    for (const track of tracks) {
      const best = truth.reduce<{ id: number; iou: number } | undefined>((found, o) => {
        const overlap = iou(o.box, track.box);
        return overlap > 0.5 && overlap > (found?.iou ?? 0) ? { id: o.id, iou: overlap } : found;
      }, undefined);
      if (!best) continue;
      const tally = votes.get(track.trackId) ?? new Map<number, number>();
      tally.set(best.id, (tally.get(best.id) ?? 0) + 1);
      votes.set(track.trackId, tally);
    }
    if (index % FPS === 0) queueLengths.push(lane.status(frame.t).queue_length);
  });
  const carOf = (trackId: number) =>
    [...(votes.get(trackId) ?? new Map<number, number>())].sort((a, b) => b[1] - a[1])[0]?.[0];
  return { sim, lane, events, queueLengths, carOf, truthCars: sim.cars.map(truthCar) };
}

describe('drive-thru lane analytics on the synthetic world (held-out seeds)', () => {
  it.each([1, 2, 3])('counts the queue right and times each car within a second or two (seed %i)', (seed) => {
    const { sim, events, queueLengths, carOf, truthCars } = runLane(seed, 300);
    const exact = queueLengths.filter((n, i) => n === sim.queueLengthPerSecond[i]).length;
    const share = exact / queueLengths.length;
    expect(share, `queue exact in ${exact} of ${queueLengths.length} seconds`).toBeGreaterThanOrEqual(0.95);

    const errors: number[] = [];
    for (const event of events) {
      if (event.kind !== 'completed') continue;
      const truth = truthCars.find((car) => car.id === carOf(event.trackId));
      // Cars already in the lane when the clip starts were never seen entering it.
      if (truth?.waits.total === undefined || (truth.zones.entry?.enter ?? -1) < 0) continue;
      errors.push(Math.abs(event.totalSeconds - truth.waits.total));
      console.log(
        seed,
        event.trackId,
        truth.id,
        truth.route,
        event.totalSeconds.toFixed(1),
        truth.waits.total,
        JSON.stringify(truth.zones),
      );
    }
    expect(errors.length).toBeGreaterThan(3);
    const mean = errors.reduce((a, b) => a + b, 0) / errors.length;
    expect(mean, `mean wait error over ${errors.length} cars`).toBeLessThanOrEqual(2);
  });

  it('reports the status in the spec’s shape, front car first', () => {
    const { lane, sim } = runLane(4, 120);
    const at = sim.frames.at(-1)!.t;
    const status = lane.status(at);
    expect(status).toMatchObject({
      queue_length: status.cars.length,
      estimated_wait_seconds: expect.any(Number),
      orders_per_hour: expect.any(Number),
      status: expect.stringMatching(/^(normal|busy|critical)$/),
    });
    expect(status.cars.map((c) => c.position)).toEqual(status.cars.map((_, i) => i + 1));
    // Front first: the car nearest the window has waited longest.
    const waits = status.cars.map((c) => c.wait_seconds);
    expect(waits).toEqual([...waits].sort((a, b) => b - a));
  });
});

/** A straight lane of five boxes along x; a car is a 40-pixel box whose bottom centre is at `x`. */
describe('a car the tracker loses mid-lane', () => {
  const rect = (x1: number, x2: number): Array<[number, number]> => [
    [x1, 0],
    [x2, 0],
    [x2, 100],
    [x1, 100],
  ];
  const lane = () =>
    createLaneAnalytics({
      zones: {
        entry: rect(0, 100),
        menu: rect(100, 200),
        pay: rect(200, 300),
        pickup: rect(300, 400),
        exit: rect(400, 500),
      },
      queue: ['entry', 'menu', 'pay', 'pickup'],
      menu: 'menu',
      pay: 'pay',
      pickup: 'pickup',
    });
  const car = (trackId: number, x: number) => ({
    trackId,
    box: [x - 20, 50, x + 20, 90] as const,
    classId: 0,
    className: 'vehicle',
    confidence: 0.9,
  });
  const record = (analytics: ReturnType<typeof lane>) => {
    const events: LaneEvent[] = [];
    analytics.onEvent((event) => events.push(event));
    return events;
  };

  it('is the same car when a new track appears where it was, even seconds later', () => {
    const analytics = lane();
    const events = record(analytics);
    analytics.update([car(1, 50)], 0);
    analytics.update([car(1, 150)], 10);
    analytics.update([car(1, 250)], 20);
    analytics.update([], 22, [1]); // hidden behind the car ahead
    analytics.update([car(2, 260)], 35);
    analytics.update([car(2, 350)], 40);
    analytics.update([car(2, 450)], 50);
    analytics.update([], 60, [2]);
    expect(events.filter((e) => e.kind === 'lost')).toEqual([]);
    const completed = events.find((e) => e.kind === 'completed');
    expect(completed).toMatchObject({ trackId: 1, totalSeconds: 50 });
    expect(analytics.car(1)).toBeUndefined();
  });

  it('is merged into a second track the tracker started on it while the first still coasted', () => {
    const analytics = lane();
    const events = record(analytics);
    analytics.update([car(1, 50)], 0);
    analytics.update([car(1, 250)], 20);
    analytics.update([car(1, 260), car(2, 310)], 21);
    analytics.update([car(2, 330)], 22);
    analytics.update([car(2, 340)], 23, [1]);
    expect(events.find((e) => e.kind === 'merged')).toEqual({ kind: 'merged', trackId: 2, from: 1, at: 23 });
    expect(analytics.car(2)).toMatchObject({ queueEnteredAt: 0, paid: true });
    analytics.update([car(2, 450)], 30);
    analytics.update([], 40, [2]);
    expect(events.find((e) => e.kind === 'completed')).toMatchObject({ trackId: 2, totalSeconds: 30 });
  });

  it('is lost when nothing takes its place within 30 seconds, and never taken by a car entering the lane', () => {
    const analytics = lane();
    const events = record(analytics);
    analytics.update([car(1, 50)], 0);
    analytics.update([car(1, 250)], 20);
    analytics.update([], 22, [1]);
    analytics.update([car(2, 50)], 30); // a new car at the entry is a new car
    analytics.update([car(2, 60)], 49);
    expect(events.filter((e) => e.kind === 'lost')).toEqual([]);
    analytics.update([car(2, 70)], 51); // last seen at 20
    expect(events.filter((e) => e.kind === 'lost')).toEqual([{ kind: 'lost', trackId: 1, at: 20 }]);
    expect(analytics.car(2)).toMatchObject({ queueEnteredAt: 30 });
  });
});
