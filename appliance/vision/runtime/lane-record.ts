/**
 * A lane camera's record keeping: each car's visit written once it has left (served, balked or
 * lost) with its seconds at each point and its events, the drive-thru order paid while it stood at
 * the pay window, and the lane's state, replaced when the queue changes.
 */
import type { Clock } from '../../../shared/clock.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import type { LaneEvent } from '../drive-thru/lane.ts';
import type { CameraPipeline } from '../pipeline/camera.ts';
import type { VisionCamera } from '../registry/index.ts';
import type { VisionHistory } from './history.ts';
import { laneZonesOf } from './lane-zones.ts';

/** The lane's state is rewritten when the queue changes, at most this often, and this often anyway. */
const LANE_STATE_MIN_MS = 1000;
const LANE_STATE_MAX_MS = 30_000;

export interface LaneRecordDeps {
  history: VisionHistory;
  clock: Clock;
  newId: IdGenerator;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const round = (value: number) => Math.round(value * 10) / 10;

/** `trackIds` (tracker id → row id) is the camera's, shared with its detections. */
export function createLaneRecord(
  camera: VisionCamera,
  pipeline: CameraPipeline,
  trackIds: Map<number, string>,
  deps: LaneRecordDeps,
) {
  const { history, clock } = deps;
  const lane = laneZonesOf(camera.zones).lane;
  /** Cars already written (a car that balked and was then lost is one visit). */
  const written = new Set<number>();
  /** Orders paid while a car stood at the pay window, by its track. */
  const paidOrders = new Map<number, string>();
  const events = new Map<number, Array<Record<string, unknown>>>();
  let lastWrite = { at: 0, key: '' };

  /** One car under two tracks: the later takes the earlier's id, events and paid order. */
  function merge(from: number, into: number) {
    const id = trackIds.get(from);
    if (id) trackIds.set(into, id);
    const all = [...(events.get(from) ?? []), ...(events.get(into) ?? [])];
    events.set(
      into,
      all.sort((a, b) => String(a.at).localeCompare(String(b.at))),
    );
    events.delete(from);
    const order = paidOrders.get(from);
    if (order && !paidOrders.has(into)) paidOrders.set(into, order);
    paidOrders.delete(from);
  }

  function writeVisit(trackId: number, outcome: 'served' | 'balked' | 'lost') {
    if (written.has(trackId)) return;
    const car = pipeline.laneCar(trackId);
    if (!car) return;
    written.add(trackId);
    const secondsIn = (zone: string | undefined) => {
      const visits = zone === undefined ? undefined : car.zones[zone];
      if (!visits) return null;
      return round(visits.reduce((sum, v) => sum + ((v.exit ?? car.lastSeenAt) - v.enter), 0));
    };
    const entered = car.queueEnteredAt ?? car.firstSeenAt;
    const left = car.completedAt ?? car.lastSeenAt;
    history.addTrack({
      id: trackIds.get(trackId) ?? deps.newId(),
      camera_id: camera.id,
      entered_at: iso(entered),
      left_at: iso(left),
      outcome,
      order_id: paidOrders.get(trackId) ?? null,
      pulled_forward: car.pulledForward,
      times: {
        menu_board: secondsIn(lane?.menu),
        pay_window: secondsIn(lane?.pay),
        pickup_window: secondsIn(lane?.pickup),
        pull_forward: secondsIn(lane?.bay),
        total: round(left - entered),
      },
      events: events.get(trackId) ?? [],
    });
    paidOrders.delete(trackId);
    events.delete(trackId);
  }

  return {
    onEvent(event: LaneEvent) {
      if (event.kind === 'merged') return merge(event.from, event.trackId);
      const list = events.get(event.trackId) ?? [];
      list.push({ kind: event.kind, ...('zone' in event ? { zone: event.zone } : {}), at: iso(event.at) });
      events.set(event.trackId, list);
      if (event.kind === 'completed') writeVisit(event.trackId, 'served');
      else if (event.kind === 'balked') writeVisit(event.trackId, 'balked');
      else if (event.kind === 'lost') writeVisit(event.trackId, 'lost');
    },

    /** Writes the lane's state when the queue changed (at most every second), and every 30 s. */
    writeState(force = false) {
      const now = clock.now().getTime();
      const status = pipeline.laneStatus(now);
      if (!status) return;
      const key = `${status.queue_length}/${status.status}/${status.cars.map((c) => c.track_id).join(',')}`;
      const since = now - lastWrite.at;
      const changed = key !== lastWrite.key;
      if (!force && !(changed && since >= LANE_STATE_MIN_MS) && since < LANE_STATE_MAX_MS) return;
      lastWrite = { at: now, key };
      history.saveLaneState({
        camera_id: camera.id,
        queue_length: status.queue_length,
        estimated_wait_seconds: status.estimated_wait_seconds,
        orders_per_hour: status.orders_per_hour,
        status: status.status,
        cars: status.cars,
        counts: status.counts,
        updated_at: new Date(now).toISOString(),
      });
    },

    /**
     * A drive-thru order paid now belongs to the car at the pay window, or else the car nearest the
     * back of the queue that has been there. False when the lane has no such car.
     */
    linkPayment(orderId: string): boolean {
      if (!lane) return false;
      const status = pipeline.laneStatus(clock.now().getTime());
      const linked = new Set(paidOrders.keys());
      const atWindow = status?.cars.find((car) => car.zone === lane.pay && !linked.has(car.track_id));
      const nextBest = status?.cars
        .filter((car) => !linked.has(car.track_id) && pipeline.laneCar(car.track_id)?.paid)
        .sort((a, b) => a.position - b.position)
        .at(-1);
      const car = atWindow ?? nextBest;
      if (!car) return false;
      paidOrders.set(car.track_id, orderId);
      return true;
    },
  };
}

export type LaneRecord = ReturnType<typeof createLaneRecord>;
