/**
 * The drive-thru over a shift, for a chart: each car's visit (vision_tracks, written once it
 * left) and the cars in the lane now, summed into buckets of queue length (averaged over time and
 * at its highest), the cars served and their average wait.
 */
import { businessDayOf } from '../../location/index.ts';

export interface LaneVisit {
  enteredAt: number;
  /** For a car still in the lane: now. */
  leftAt: number;
  served: boolean;
  /** Joining the queue to leaving it, for a car served. */
  waitSeconds: number | null;
}

export interface LaneBucket {
  at: string;
  queue_length_avg: number;
  queue_length_max: number;
  wait_seconds_avg: number | null;
  cars_served: number;
}

export interface BucketRange {
  since: number;
  until: number;
  bucketMs: number;
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;

/** Buckets from `since`, each `bucketMs` long but the last, which ends at `until`. */
export function laneBuckets(visits: readonly LaneVisit[], range: BucketRange): LaneBucket[] {
  const { since, until, bucketMs } = range;
  const count = Math.max(0, Math.ceil((until - since) / bucketMs));
  const startOf = (i: number) => since + i * bucketMs;
  const endOf = (i: number) => Math.min(startOf(i) + bucketMs, until);
  const carMs = new Float64Array(count);
  const served = new Uint32Array(count);
  const waitSums = new Float64Array(count);
  const waits = new Uint32Array(count);
  // Each car's time in the lane within the range; a car seen for no time at all was in no queue.
  const present = visits
    .map((visit) => ({ from: Math.max(visit.enteredAt, since), to: Math.min(visit.leftAt, until) }))
    .filter((stay) => stay.to > stay.from);
  for (const { from, to } of present) {
    for (let i = Math.floor((from - since) / bucketMs); i < count && startOf(i) < to; i++)
      carMs[i]! += Math.min(to, endOf(i)) - Math.max(from, startOf(i));
  }
  for (const visit of visits) {
    if (!visit.served || visit.leftAt < since || visit.leftAt >= until) continue;
    const i = Math.floor((visit.leftAt - since) / bucketMs);
    served[i]! += 1;
    if (visit.waitSeconds === null) continue;
    waitSums[i]! += visit.waitSeconds;
    waits[i]! += 1;
  }
  const highest = queueMaxima(present, range, count);
  return Array.from({ length: count }, (_, i) => ({
    at: new Date(startOf(i)).toISOString(),
    queue_length_avg: round(carMs[i]! / (endOf(i) - startOf(i)), 2),
    queue_length_max: highest[i]!,
    wait_seconds_avg: waits[i]! > 0 ? round(waitSums[i]! / waits[i]!, 1) : null,
    cars_served: served[i]!,
  }));
}

/** The most cars in the lane at once in each bucket: a sweep over joins and departures. */
function queueMaxima(
  stays: ReadonlyArray<{ from: number; to: number }>,
  range: BucketRange,
  count: number,
): Uint32Array {
  const { since, bucketMs } = range;
  // A car leaving as another joins is not two cars at once: departures first at the same instant.
  const changes = stays
    .flatMap((stay) => [
      { at: stay.from, delta: 1 },
      { at: stay.to, delta: -1 },
    ])
    .sort((a, b) => a.at - b.at || a.delta - b.delta);
  const maxima = new Uint32Array(count);
  let cars = 0;
  let next = 0;
  for (let i = 0; i < count; i++) {
    const end = since + (i + 1) * bucketMs;
    while (next < changes.length && changes[next]!.at <= since + i * bucketMs) cars += changes[next++]!.delta;
    let most = cars;
    while (next < changes.length && changes[next]!.at < end) {
      cars += changes[next++]!.delta;
      most = Math.max(most, cars);
    }
    maxima[i] = most;
  }
  return maxima;
}

/**
 * When the store's business day that `at` falls in began: the earliest minute still in the same
 * business day, found by halving (a business day is at most 25 hours, DST included). Answered
 * with location's own `businessDayOf`, so it cannot disagree with how orders are numbered.
 */
export function businessDayStart(at: Date, timeZone: string, startsAt: string): Date {
  const day = businessDayOf(at, timeZone, startsAt);
  const minute = 60_000;
  let inDay = Math.floor(at.getTime() / minute);
  let before = inDay - 26 * 60;
  while (inDay - before > 1) {
    const middle = Math.floor((inDay + before) / 2);
    if (businessDayOf(new Date(middle * minute), timeZone, startsAt) === day) inDay = middle;
    else before = middle;
  }
  return new Date(inDay * minute);
}
