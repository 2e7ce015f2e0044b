/**
 * Who a schedule's rotation (overrides aside) puts on call at an instant, and the instants at which
 * that can change. Weekly, daily and custom schedules are one chain of shifts whose handoffs are
 * local wall-clock times (start_date at handoff_time, then every shift_hours of wall time), so a
 * 09:00 handoff stays 09:00 local across daylight saving and the shift that spans the change is an
 * hour shorter or longer. Follow-the-sun is in follow-the-sun.ts.
 */
import { createFollowTheSun } from './follow-the-sun.ts';
import { NOBODY, type Person, personKey, type Rotation, type Schedule, startWall } from './model.ts';
import { HOUR_MS, instantOf, wallAt } from './zoned-time.ts';

export const SHIFT_HOURS = { weekly: 168, daily: 24 } as const;

const everyoneSame = (people: Person[]) => new Set(people.map(personKey)).size <= 1;

export function createRotation(schedule: Schedule): Rotation {
  if (schedule.type === 'follow_the_sun') return createFollowTheSun(schedule);
  const hours = schedule.type === 'custom' ? schedule.shift_hours : SHIFT_HOURS[schedule.type];
  if (!hours || hours < 1) throw new Error('schedule was not validated');
  return createShiftChain(schedule, hours);
}

function createShiftChain(schedule: Schedule, hours: number): Rotation {
  const zone = schedule.time_zone;
  const people = schedule.participants;
  const first = startWall(schedule);
  const shiftMs = hours * HOUR_MS;
  const handoff = (k: number) => instantOf(zone, first + k * shiftMs);
  const start = handoff(0);

  /** The shift in progress at `at`: -1 before the first; handoff(k) <= at < handoff(k + 1). */
  function shiftAt(at: number): number {
    if (at < start) return -1;
    let k = Math.max(0, Math.floor((wallAt(zone, at) - first) / shiftMs));
    while (k > 0 && handoff(k) > at) k -= 1;
    // A handoff moved forward by a spring-forward gap can meet the next one: that shift has no
    // length and its person is passed over.
    while (handoff(k + 1) <= at) k += 1;
    return k;
  }

  return {
    start,
    fixed: everyoneSame(people),
    slotsAt(at) {
      const k = shiftAt(at);
      if (k < 0 || people.length === 0) return NOBODY;
      const n = people.length;
      return { primary: people[k % n]!, secondary: n > 1 ? people[(k + 1) % n]! : null };
    },
    edges(from, to) {
      const found: number[] = [];
      for (let k = shiftAt(from) + 1; ; k += 1) {
        const at = handoff(k);
        if (at > to) return found;
        if (at > from && at !== found.at(-1)) found.push(at);
      }
    },
  };
}
