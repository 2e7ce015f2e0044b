import { describe, expect, it } from 'vitest';
import { createLaneAnalytics, type LaneEvent } from '../../../appliance/vision/drive-thru/lane.ts';
import { createTracker, trackerOptionsFromSettings } from '../../../appliance/vision/track/index.ts';
import { placeObjects } from '../../../scripts/vision/world/lane-scene.ts';
import { truthCar, truthObjects } from '../../../scripts/vision/world/lane-truth.ts';
import { DEFAULT_LANE_CONFIG, simulateLane } from '../../../scripts/vision/world/simulator.ts';
import { type Detection, iou } from '../../../shared/vision/types.ts';
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
