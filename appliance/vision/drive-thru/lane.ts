/**
 * The drive-thru lane as the camera sees it: every tracked car placed in a zone by its box's
 * bottom centre each frame, and from that the queue (cars in the lane's zones, from its entry to
 * the pickup window), each car's time at every point and in all, cars pulled forward to the bay
 * and cars that leave without ordering, orders per hour, and the lane's status.
 */
import { anchorOf, type TrackedObject } from '../types.ts';
import { type Polygon, zoneOf } from '../zones/polygon.ts';

export interface LaneZones {
  /** Every zone of the view by name. */
  zones: Record<string, Polygon>;
  /** The lane from its entry to the pickup window, in driving order: cars in these are the queue. */
  queue: readonly string[];
  menu: string;
  pay: string;
  pickup: string;
  /** Where cars wait when their food is not ready (pull-forward). */
  bay?: string | undefined;
  /** A way out of the lane before the menu board: a car there that never ordered balked. */
  bypass?: string | undefined;
}

export interface LaneThresholds {
  busyCars: number;
  criticalCars: number;
  busyWaitSeconds: number;
  criticalWaitSeconds: number;
}

export const DEFAULT_THRESHOLDS: LaneThresholds = {
  busyCars: 5,
  criticalCars: 8,
  busyWaitSeconds: 240,
  criticalWaitSeconds: 420,
};

/**
 * A car that stays in the bay this long after the window was pulled forward; one passing through
 * (the bay often lies on the way out) was served at the window.
 */
const BAY_DWELL_SECONDS = 6;
/**
 * A car not seen for this long is no longer counted in the queue, though its track lives on (the
 * tracker keeps lost tracks for `track_timeout_seconds`, to find them again): a false detection
 * would otherwise stand in the queue for that long.
 */
const UNSEEN_SECONDS = 0.5;
/**
 * A car whose track ends mid-lane is kept this long to be found again. Cars leave a lane only at
 * its ends, so one that vanishes mid-lane was hidden (behind the car ahead at the window, often for
 * a whole hand-off): a new track appearing in its zone or up to two zones further along is taken to
 * be the same car, keeping its place, its times and what it paid for. Only then is it lost.
 */
const REFIND_SECONDS = 30;
const REFIND_ZONES_AHEAD = 2;
/** A second track on the same car starts at most this long before the first one's last sighting. */
const NEWCOMER_LEAD_SECONDS = 3;
/** Until cars have completed the lane, the wait is estimated at this per car ahead. */
const DEFAULT_SECONDS_PER_CAR = 45;
/** Completed cars the estimate averages over. */
const RECENT_CARS = 10;
const HOUR = 3600;

export interface ZoneVisit {
  enter: number;
  exit?: number;
}

export interface CarRecord {
  trackId: number;
  firstSeenAt: number;
  lastSeenAt: number;
  zone: string | undefined;
  /** Entering the lane's first zone; undefined while the car never has. */
  queueEnteredAt?: number;
  /** Leaving the pickup window. */
  servedAt?: number;
  /** Leaving the pickup window, or the bay for a car pulled forward. */
  completedAt?: number;
  zones: Record<string, ZoneVisit[]>;
  ordered: boolean;
  paid: boolean;
  pulledForward: boolean;
  balked: boolean;
}

export type LaneEvent =
  | { kind: 'zone_entered'; trackId: number; zone: string; at: number }
  | { kind: 'completed'; trackId: number; at: number; totalSeconds: number; pulledForward: boolean }
  | { kind: 'pulled_forward'; trackId: number; at: number }
  | { kind: 'balked'; trackId: number; at: number }
  | { kind: 'lost'; trackId: number; at: number }
  /** The car of track `from` was found again as track `trackId`: one car, its history now under `trackId`. */
  | { kind: 'merged'; trackId: number; from: number; at: number };

export interface LaneStatus {
  queue_length: number;
  estimated_wait_seconds: number;
  cars: Array<{ position: number; wait_seconds: number; track_id: number; zone: string }>;
  orders_per_hour: number;
  status: 'normal' | 'busy' | 'critical';
  counts: { completed: number; pulled_forward: number; balked: number };
}

export function createLaneAnalytics(config: LaneZones, thresholds: LaneThresholds = DEFAULT_THRESHOLDS) {
  const ordered = Object.entries(config.zones) as Array<[string, Polygon]>;
  const queueIndex = new Map(config.queue.map((name, i) => [name, i]));
  const cars = new Map<number, CarRecord>();
  const completed: Array<{ at: number; totalSeconds: number }> = [];
  const counts = { completed: 0, pulled_forward: 0, balked: 0 };
  const listeners: Array<(event: LaneEvent) => void> = [];
  /** Cars whose track ended mid-lane, with the zone they were last in, waiting to be found again. */
  let orphans: Array<{ car: CarRecord; zone: string }> = [];
  let startedAt: number | undefined;
  const emit = (event: LaneEvent) => {
    for (const listener of listeners) listener(event);
  };

  function complete(car: CarRecord, at: number) {
    if (car.completedAt !== undefined || car.queueEnteredAt === undefined) return;
    car.completedAt = at;
    const totalSeconds = at - car.queueEnteredAt;
    completed.push({ at, totalSeconds });
    counts.completed += 1;
    emit({ kind: 'completed', trackId: car.trackId, at, totalSeconds, pulledForward: car.pulledForward });
  }

  function move(car: CarRecord, zone: string | undefined, at: number) {
    const previous = car.zone;
    if (previous === zone) return;
    if (previous !== undefined) {
      const visits = car.zones[previous]!;
      visits[visits.length - 1]!.exit = at;
    }
    car.zone = zone;
    if (zone === undefined) return;
    const visits = car.zones[zone] ?? [];
    visits.push({ enter: at });
    car.zones[zone] = visits;
    emit({ kind: 'zone_entered', trackId: car.trackId, zone, at });
    if (queueIndex.has(zone)) car.queueEnteredAt ??= at;
    if (zone === config.menu) car.ordered = true;
    if (zone === config.pay) car.paid = true;
    if (previous === config.pickup && !queueIndex.has(zone)) car.servedAt ??= at;
    if (previous === config.bay && car.pulledForward) complete(car, at);
    if (zone === config.bypass && !car.ordered && car.queueEnteredAt !== undefined && !car.balked) {
      car.balked = true;
      counts.balked += 1;
      emit({ kind: 'balked', trackId: car.trackId, at });
    }
  }

  /** Where a car was first seen in the lane: the zone of its earliest visit. */
  function firstZone(car: CarRecord): string | undefined {
    let first: [string, number] | undefined;
    for (const [zone, visits] of Object.entries(car.zones))
      for (const visit of visits) if (!first || visit.enter < first[1]) first = [zone, visit.enter];
    return first?.[0];
  }

  /**
   * A car that appeared mid-lane while `lost`'s track still coasted (the tracker started a second
   * track on the same car a moment before the first let go): its zone no further than two ahead.
   */
  function newcomerFor(lost: CarRecord, zone: string): CarRecord | undefined {
    const was = queueIndex.get(zone);
    if (was === undefined) return undefined;
    let best: CarRecord | undefined;
    for (const other of cars.values()) {
      if (other === lost || other.queueEnteredAt === undefined) continue;
      const first = firstZone(other);
      const index = first === undefined ? undefined : queueIndex.get(first);
      if (index === undefined || index === 0 || index < was || index - was > REFIND_ZONES_AHEAD) continue;
      if (other.firstSeenAt < lost.lastSeenAt - NEWCOMER_LEAD_SECONDS || other.firstSeenAt > lost.lastSeenAt)
        continue;
      if (
        !best ||
        Math.abs(other.firstSeenAt - lost.lastSeenAt) < Math.abs(best.firstSeenAt - lost.lastSeenAt)
      )
        best = other;
    }
    return best;
  }

  /** `successor` is `lost`'s car: it takes the earlier history (entry, visits, what it did). */
  function absorb(successor: CarRecord, lost: CarRecord, at: number) {
    successor.firstSeenAt = Math.min(successor.firstSeenAt, lost.firstSeenAt);
    successor.queueEnteredAt = Math.min(successor.queueEnteredAt ?? at, lost.queueEnteredAt ?? at);
    for (const [zone, visits] of Object.entries(lost.zones))
      successor.zones[zone] = [...visits, ...(successor.zones[zone] ?? [])].sort((a, b) => a.enter - b.enter);
    successor.ordered ||= lost.ordered;
    successor.paid ||= lost.paid;
    emit({ kind: 'merged', trackId: successor.trackId, from: lost.trackId, at });
  }

  /** The orphan a new track in its zone (or the next along the lane) most likely is, taken back. */
  function refind(track: TrackedObject, at: number): CarRecord | undefined {
    const zone = zoneOf(ordered, anchorOf(track.box));
    const index = zone === undefined ? undefined : queueIndex.get(zone);
    if (index === undefined) return undefined;
    const candidates = orphans.filter((o) => {
      const was = queueIndex.get(o.zone);
      return (
        was !== undefined &&
        index - was >= 0 &&
        index - was <= REFIND_ZONES_AHEAD &&
        at - o.car.lastSeenAt <= REFIND_SECONDS
      );
    });
    if (candidates.length === 0) return undefined;
    // The one lost most recently: the car just hidden, rather than one gone for seconds.
    const found = candidates.reduce((a, b) => (b.car.lastSeenAt > a.car.lastSeenAt ? b : a));
    orphans = orphans.filter((o) => o !== found);
    cars.set(track.trackId, found.car);
    return found.car;
  }

  /** After the window: a car that stays in the bay was pulled forward; one that moves on was served. */
  function settle(car: CarRecord, at: number) {
    if (car.servedAt === undefined || car.completedAt !== undefined || car.pulledForward) return;
    const inBay = car.zone !== undefined && car.zone === config.bay;
    const bayEnteredAt = inBay ? car.zones[car.zone!]!.at(-1)!.enter : undefined;
    if (bayEnteredAt !== undefined && at - bayEnteredAt >= BAY_DWELL_SECONDS) {
      car.pulledForward = true;
      counts.pulled_forward += 1;
      emit({ kind: 'pulled_forward', trackId: car.trackId, at: bayEnteredAt });
    } else if (!inBay && at - car.servedAt >= BAY_DWELL_SECONDS) complete(car, car.servedAt);
  }

  return {
    onEvent(listener: (event: LaneEvent) => void) {
      listeners.push(listener);
    },

    /** One frame's tracked vehicles at time `at` (seconds), and the tracks the tracker ended. */
    update(tracks: readonly TrackedObject[], at: number, removed: readonly number[] = []) {
      startedAt ??= at;
      for (const track of tracks) {
        let car = cars.get(track.trackId) ?? refind(track, at);
        if (!car) {
          car = {
            trackId: track.trackId,
            firstSeenAt: at,
            lastSeenAt: at,
            zone: undefined,
            zones: {},
            ordered: false,
            paid: false,
            pulledForward: false,
            balked: false,
          };
          cars.set(track.trackId, car);
        }
        car.lastSeenAt = at;
        move(car, zoneOf(ordered, anchorOf(track.box)), at);
      }
      for (const car of cars.values()) settle(car, at);
      for (const trackId of removed) {
        const car = cars.get(trackId);
        if (!car) continue;
        // A car lost at the window or in the bay was served; anywhere else it left the view.
        if (car.servedAt !== undefined && !car.pulledForward) complete(car, car.servedAt);
        else if (car.zone === config.pickup || car.zone === config.bay) complete(car, car.lastSeenAt);
        else if (
          car.completedAt === undefined &&
          car.queueEnteredAt !== undefined &&
          car.zone !== undefined
        ) {
          const successor = newcomerFor(car, car.zone);
          if (successor) absorb(successor, car, at);
          else orphans.push({ car, zone: car.zone });
        }
        move(car, undefined, car.lastSeenAt);
        cars.delete(trackId);
      }
      // Listeners may still look the lost car up while they hear of it.
      const expired = orphans.filter((o) => at - o.car.lastSeenAt > REFIND_SECONDS);
      for (const { car } of expired) emit({ kind: 'lost', trackId: car.trackId, at: car.lastSeenAt });
      orphans = orphans.filter((o) => !expired.includes(o));
    },

    /** Cars now in the lane, front first (the pickup window is position 1). */
    queue(at: number) {
      return [...cars.values()]
        .filter(
          (car) =>
            car.zone !== undefined && queueIndex.has(car.zone) && at - car.lastSeenAt <= UNSEEN_SECONDS,
        )
        .sort((a, b) => {
          const byZone = queueIndex.get(b.zone!)! - queueIndex.get(a.zone!)!;
          return byZone !== 0 ? byZone : a.queueEnteredAt! - b.queueEnteredAt!;
        })
        .map((car, i) => ({
          position: i + 1,
          wait_seconds: Math.round(at - (car.queueEnteredAt ?? at)),
          track_id: car.trackId,
          zone: car.zone!,
        }));
    },

    status(at: number): LaneStatus {
      const queue = this.queue(at);
      const recent = completed.slice(-RECENT_CARS);
      // A car joining now waits about as long as the last few took; before any has, per car ahead.
      const estimate = recent.length
        ? recent.reduce((sum, c) => sum + c.totalSeconds, 0) / recent.length
        : (queue.length + 1) * DEFAULT_SECONDS_PER_CAR;
      const inLastHour = completed.filter((c) => c.at > at - HOUR).length;
      const observed = at - (startedAt ?? at);
      // Under an hour of watching, the rate so far (from five minutes on, so one car is no rate).
      const perHour =
        observed >= HOUR ? inLastHour : observed >= 300 ? (inLastHour / observed) * HOUR : inLastHour;
      const status =
        queue.length >= thresholds.criticalCars || estimate >= thresholds.criticalWaitSeconds
          ? 'critical'
          : queue.length >= thresholds.busyCars || estimate >= thresholds.busyWaitSeconds
            ? 'busy'
            : 'normal';
      return {
        queue_length: queue.length,
        estimated_wait_seconds: Math.round(estimate),
        cars: queue,
        orders_per_hour: Math.round(perHour),
        status,
        counts: { ...counts },
      };
    },

    /** A car by the track id its events carry (the first track it had, when it was found again). */
    car: (trackId: number) =>
      cars.get(trackId) ??
      [...cars.values()].find((car) => car.trackId === trackId) ??
      orphans.find((o) => o.car.trackId === trackId)?.car,
  };
}

export type LaneAnalytics = ReturnType<typeof createLaneAnalytics>;
