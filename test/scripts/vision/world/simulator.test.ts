import { describe, expect, it } from 'vitest';
import { placeObjects } from '../../../../scripts/vision/world/lane-scene.ts';
import { truthCar, truthObjects } from '../../../../scripts/vision/world/lane-truth.ts';
import {
  DEFAULT_LANE_CONFIG,
  type LaneConfig,
  simulateLane,
} from '../../../../scripts/vision/world/simulator.ts';

const makeConfig = (overrides: Partial<LaneConfig> = {}): LaneConfig => ({
  ...DEFAULT_LANE_CONFIG,
  seed: 7,
  seconds: 240,
  fps: 5,
  arrivalsPerHour: 200,
  ...overrides,
});

describe('lane simulator', () => {
  it('is deterministic for a seed and differs between seeds', () => {
    const a = simulateLane(makeConfig());
    const b = simulateLane(makeConfig());
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    expect(JSON.stringify(simulateLane(makeConfig({ seed: 8 })).cars)).not.toBe(JSON.stringify(a.cars));
  });

  it('keeps every box inside the frame at any output size', () => {
    const sim = simulateLane(makeConfig());
    for (const [w, h] of [
      [640, 360],
      [1280, 720],
    ] as const) {
      for (const frame of sim.frames) {
        for (const o of truthObjects(placeObjects(frame.objects), w, h)) {
          expect(o.box[0]).toBeGreaterThanOrEqual(0);
          expect(o.box[1]).toBeGreaterThanOrEqual(0);
          expect(o.box[2]).toBeLessThanOrEqual(w);
          expect(o.box[3]).toBeLessThanOrEqual(h);
          expect(o.box[2]).toBeGreaterThan(o.box[0]);
          expect(o.box[3]).toBeGreaterThan(o.box[1]);
          expect(o.visible).toBeGreaterThanOrEqual(0);
          expect(o.visible).toBeLessThanOrEqual(1);
        }
      }
    }
  });

  it('orders each served car’s events: arrived < ordered < paid < picked_up < left', () => {
    const sim = simulateLane(makeConfig({ seconds: 600 }));
    const served = sim.cars.map(truthCar).filter((c) => c.route !== 'balk' && c.events.left !== undefined);
    expect(served.length).toBeGreaterThan(10);
    for (const { events: e } of served) {
      expect(e.arrived!).toBeLessThan(e.order_started!);
      expect(e.order_started!).toBeLessThan(e.ordered!);
      expect(e.ordered!).toBeLessThan(e.paid!);
      expect(e.paid!).toBeLessThan(e.picked_up!);
      expect(e.picked_up!).toBeLessThan(e.left!);
    }
  });

  it('has balkers, pulled-forward cars and cars that never overlap on the lane', () => {
    const sim = simulateLane(makeConfig({ seconds: 900, arrivalsPerHour: 260 }));
    const balked = sim.cars.filter((c) => c.route === 'balk');
    expect(balked.length).toBeGreaterThan(0);
    for (const c of balked) {
      expect(c.queue).toBeUndefined();
      expect(c.events.ordered).toBeUndefined();
      expect(c.events.balked).toBeGreaterThan(c.events.arrived!);
    }
    const bay = sim.cars.filter((c) => c.route === 'bay' && c.events.left !== undefined);
    expect(bay.length).toBeGreaterThan(0);
    for (const c of bay) expect(c.events.pulled_forward!).toBeLessThan(c.events.picked_up!);
    for (const frame of sim.frames) {
      const cars = frame.objects.filter((o) => o.class === 'vehicle');
      for (const [i, a] of cars.entries()) {
        for (const b of cars.slice(i + 1)) expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeGreaterThan(20);
      }
    }
  });

  it('counts the queue each second as the cars whose stay in the queue zones spans that instant', () => {
    const sim = simulateLane(makeConfig());
    const cars = sim.cars.map(truthCar);
    const derived = sim.queueLengthPerSecond.map(
      (_, k) =>
        cars.filter(
          (c) => c.queue && c.queue.enter <= k && !(c.queue.exit !== undefined && c.queue.exit <= k),
        ).length,
    );
    expect(derived).toEqual(sim.queueLengthPerSecond);
    expect(Math.max(...sim.queueLengthPerSecond)).toBeGreaterThan(2);
    expect(sim.queueLengthPerSecond).toHaveLength(240);
  });
});
