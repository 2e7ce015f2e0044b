/**
 * The ground truth file of a lane clip (`<name>.truth.json`): boxes in output pixels clipped to the
 * frame, with the fraction of each object left visible; per-car events and waits; the queue length
 * each second; and the zones in output pixels so the pipeline can be configured with the same ones.
 */
import type { Box } from '../../../appliance/vision/types.ts';
import { REFERENCE_HEIGHT, REFERENCE_WIDTH } from './geometry.ts';
import type { PlacedObject } from './lane-scene.ts';
import { QUEUE_ZONES, type RouteName, type ZoneName, zonesFor } from './layout.ts';
import type { Finish } from './raster.ts';
import type { CarEventName, LaneConfig, LaneSimulation, SimCar, ZoneVisit } from './simulator.ts';
import type { VehicleKind } from './vehicles.ts';

/** One detector class for every vehicle shape (the analytics never ask which), and people. */
export const LANE_CLASSES = ['vehicle', 'person'] as const;
export type LaneClass = (typeof LANE_CLASSES)[number];

export interface TruthObject {
  id: number;
  class: LaneClass;
  kind?: VehicleKind;
  box: Box;
  visible: number;
}

export interface CarWaits {
  /** Entering the lane's entry zone to reaching the menu board. */
  to_order?: number;
  /** Entering the lane's entry zone to leaving the pickup window, or the bay for a pulled-forward car. */
  total?: number;
  /** Arrival in view to collecting the food. */
  arrival_to_pickup?: number;
}

export interface TruthCar {
  id: number;
  kind: VehicleKind;
  route: RouteName;
  events: Partial<Record<CarEventName, number>>;
  zones: Partial<Record<ZoneName, ZoneVisit>>;
  queue?: ZoneVisit;
  waits: CarWaits;
}

export interface LaneTruth {
  meta: {
    kind: 'lane';
    seed: number;
    fps: number;
    width: number;
    height: number;
    duration: number;
    frame_count: number;
    classes: readonly LaneClass[];
    zones: Record<ZoneName, Array<[number, number]>>;
    queue_zones: readonly ZoneName[];
    finish: Finish;
    config: LaneConfig;
  };
  frames: Array<{ t: number; objects: TruthObject[] }>;
  cars: TruthCar[];
  queue_length_per_second: number[];
}

const r2 = (v: number) => Math.round(v * 100) / 100;
const r1 = (v: number) => Math.round(v * 10) / 10;

/** A reference box in output pixels, clipped to the frame; undefined when nothing is left. */
export function outputBox(box: Box, width: number, height: number): Box | undefined {
  const sx = width / REFERENCE_WIDTH;
  const sy = height / REFERENCE_HEIGHT;
  const x1 = Math.max(0, box[0] * sx);
  const y1 = Math.max(0, box[1] * sy);
  const x2 = Math.min(width, box[2] * sx);
  const y2 = Math.min(height, box[3] * sy);
  if (x2 - x1 < 2 || y2 - y1 < 2) return undefined;
  return [r1(x1), r1(y1), r1(x2), r1(y2)];
}

export function truthObjects(placed: readonly PlacedObject[], width: number, height: number): TruthObject[] {
  const out: TruthObject[] = [];
  for (const p of placed) {
    const box = outputBox(p.box, width, height);
    if (!box) continue;
    const kind = p.state.class === 'vehicle' ? { kind: p.state.look.kind } : {};
    out.push({ id: p.state.id, class: p.state.class, ...kind, box, visible: r2(p.visible) });
  }
  return out.sort((a, b) => a.id - b.id);
}

function roundTimes<K extends string>(record: Partial<Record<K, number>>): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const [k, v] of Object.entries(record) as Array<[K, number]>) out[k] = r2(v);
  return out;
}

const roundVisit = (v: ZoneVisit): ZoneVisit =>
  v.exit === undefined ? { enter: r2(v.enter) } : { enter: r2(v.enter), exit: r2(v.exit) };

function waitsOf(car: SimCar): CarWaits {
  const enter = car.zones.entry?.enter;
  const done = car.route === 'bay' ? car.zones.bay?.exit : car.zones.pickup?.exit;
  const waits: CarWaits = {};
  if (enter !== undefined && car.events.order_started !== undefined)
    waits.to_order = r2(car.events.order_started - enter);
  if (enter !== undefined && done !== undefined) waits.total = r2(done - enter);
  if (car.events.picked_up !== undefined && car.events.arrived !== undefined) {
    waits.arrival_to_pickup = r2(car.events.picked_up - car.events.arrived);
  }
  return waits;
}

export function truthCar(car: SimCar): TruthCar {
  const zones: Partial<Record<ZoneName, ZoneVisit>> = {};
  for (const [name, visit] of Object.entries(car.zones) as Array<[ZoneName, ZoneVisit]>)
    zones[name] = roundVisit(visit);
  return {
    id: car.id,
    kind: car.look.kind,
    route: car.route,
    events: roundTimes(car.events),
    zones,
    ...(car.queue ? { queue: roundVisit(car.queue) } : {}),
    waits: waitsOf(car),
  };
}

export function laneTruthMeta(
  sim: LaneSimulation,
  width: number,
  height: number,
  finish: Finish,
): LaneTruth['meta'] {
  return {
    kind: 'lane',
    seed: sim.config.seed,
    fps: sim.config.fps,
    width,
    height,
    duration: sim.config.seconds,
    frame_count: sim.frames.length,
    classes: LANE_CLASSES,
    zones: zonesFor(width, height),
    queue_zones: QUEUE_ZONES,
    finish,
    config: sim.config,
  };
}
