/**
 * Follow-the-sun: regions around the globe hand the pager over as their working days begin.
 *
 * - A region is on duty during its local working hours (start_time to end_time in its own zone,
 *   possibly across midnight). When several are, the one whose working day began last has it (the
 *   handover happens as a region starts, even when the previous one works a little longer).
 * - When none is (a gap in coverage), the region whose working day ended last stays on call until
 *   the next one starts: the pager is never dropped.
 * - Within a region, participants take turns every `rotation_days` of its local days, counted from
 *   the schedule's start_date, changing at the region's start_time.
 * - Primary: the on-duty region's person. Secondary: the next person of the same region (an awake
 *   colleague in the same hours); for a region of one, the person of the region that takes over next.
 * - Nobody is on call before the schedule's start (start_date at handoff_time in its time_zone).
 */
import {
  NOBODY,
  type Person,
  personKey,
  type Region,
  type Rotation,
  type Schedule,
  type Slots,
  startWall,
} from './model.ts';
import { DAY_MS, dayOf, instantOf, MINUTE_MS, parseClock, parseDate, wallAt } from './zoned-time.ts';

interface Window {
  region: number;
  /** Wall midnight of the region-local day the working hours begin on. */
  day: number;
  start: number;
  end: number;
}

interface Prepared {
  region: Region;
  startMs: number;
  endMs: number;
}

function prepare(region: Region): Prepared {
  const start = parseClock(region.start_time);
  const end = parseClock(region.end_time);
  if (start === undefined || end === undefined) throw new Error('schedule was not validated');
  // Working hours that end at or before they start run into the next day.
  const endMs = (end > start ? 0 : DAY_MS) + end * MINUTE_MS;
  return { region, startMs: start * MINUTE_MS, endMs };
}

/** The better of two candidate windows by `score`; the earlier region breaks a tie. */
const best = (windows: Window[], score: (w: Window) => number) =>
  windows.reduce<Window | undefined>((top, w) => {
    if (!top) return w;
    const [a, b] = [score(w), score(top)];
    return a > b || (a === b && w.region < top.region) ? w : top;
  }, undefined);

export function createFollowTheSun(schedule: Schedule): Rotation {
  const regions = (schedule.regions ?? []).map(prepare);
  const start = instantOf(schedule.time_zone, startWall(schedule));
  const firstDay = parseDate(schedule.start_date)!;

  const windowOn = (index: number, day: number): Window => {
    const { region, startMs, endMs } = regions[index]!;
    return {
      region: index,
      day,
      start: instantOf(region.time_zone, day + startMs),
      end: instantOf(region.time_zone, day + endMs),
    };
  };

  /** Each region's windows of the region-local days from `before` days before `at` to `after` after. */
  const windowsAround = (at: number, before: number, after: number) =>
    regions.flatMap((prepared, index) => {
      const today = dayOf(wallAt(prepared.region.time_zone, at));
      const days: Window[] = [];
      for (let d = -before; d <= after; d += 1) days.push(windowOn(index, today + d * DAY_MS));
      return days;
    });

  function turnOf(window: Window) {
    const { region } = regions[window.region]!;
    const n = region.participants.length;
    const dayIndex = Math.round((window.day - firstDay) / DAY_MS);
    const turn = Math.floor(dayIndex / region.rotation_days);
    return { people: region.participants, n, index: ((turn % n) + n) % n };
  }

  function onDuty(at: number, windows: Window[]) {
    const active = windows.filter((w) => w.start <= at && at < w.end);
    if (active.length > 0) return best(active, (w) => w.start)!;
    return best(
      windows.filter((w) => w.end <= at),
      (w) => w.end,
    )!;
  }

  function secondaryOf(duty: Window, at: number, windows: Window[]): Person | null {
    const { people, n, index } = turnOf(duty);
    if (n > 1) return people[(index + 1) % n]!;
    const next = best(
      windows.filter((w) => w.region !== duty.region && w.start > at),
      (w) => -w.start,
    );
    if (!next) return null;
    const turn = turnOf(next);
    return turn.people[turn.index]!;
  }

  const lone = regions.length === 1 ? regions[0]!.region.participants : undefined;
  return {
    start,
    fixed: lone !== undefined && new Set(lone.map(personKey)).size <= 1,
    slotsAt(at): Slots {
      if (at < start || regions.length === 0) return NOBODY;
      const windows = windowsAround(at, 2, 2);
      const duty = onDuty(at, windows);
      const { people, index } = turnOf(duty);
      return { primary: people[index]!, secondary: secondaryOf(duty, at, windows) };
    },
    edges(from, to) {
      const spanDays = Math.ceil((to - from) / DAY_MS) + 1;
      const all = windowsAround(from, 1, spanDays).flatMap((w) => [w.start, w.end]);
      if (start > from) all.push(start);
      return [...new Set(all.filter((at) => at > from && at <= to))].sort((a, b) => a - b);
    },
  };
}
