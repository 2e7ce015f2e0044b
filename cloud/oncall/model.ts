/** The on-call domain as the rotation computes it: plain values, no rows, no I/O. */
import type { OverrideKind, OverrideSlot, ScheduleType } from './tables.ts';
import { MINUTE_MS, parseClock, parseDate } from './zoned-time.ts';

/** Someone who can be on call; alerting and notify reach them through these fields. */
export interface Person {
  name: string;
  email: string;
  phone?: string | null;
  push_token?: string | null;
  user_id?: string | null;
}

/**
 * A follow-the-sun region: its own zone, its local working hours and its own people. It is on duty
 * during its working hours; `rotation_days` says how many of its working days one person covers
 * before the next in `participants` takes over (at the region's start_time).
 */
export interface Region {
  name: string;
  time_zone: string;
  /** `HH:MM` local; working hours may cross midnight (22:00 to 06:00). */
  start_time: string;
  end_time: string;
  rotation_days: number;
  participants: Person[];
}

export interface Schedule {
  type: ScheduleType;
  time_zone: string;
  handoff_time: string;
  start_date: string;
  /** custom: the shift length in hours (weekly is 168, daily 24). */
  shift_hours: number | null;
  participants: Person[];
  regions: Region[] | null;
}

export interface Override {
  id: string;
  slot: OverrideSlot;
  kind: OverrideKind;
  person: Person;
  starts_at: string;
  ends_at: string;
  created_at: string;
}

export interface Slots {
  primary: Person | null;
  secondary: Person | null;
}

export const NOBODY: Slots = { primary: null, secondary: null };

/** Two people are the same on-call person when every contact field matches. */
export const personKey = (person: Person | null) =>
  person === null
    ? ''
    : JSON.stringify([
        person.name,
        person.email,
        person.phone ?? null,
        person.push_token ?? null,
        person.user_id ?? null,
      ]);

export const sameSlots = (a: Slots, b: Slots) =>
  personKey(a.primary) === personKey(b.primary) && personKey(a.secondary) === personKey(b.secondary);

export interface Rotation {
  /** The instant the first shift starts; nobody is on call before it. */
  start: number;
  /** Primary and secondary by the rotation alone at instant `at` (ms). */
  slotsAt(at: number): Slots;
  /** The instants in (from, to] at which the rotation may change hands, ascending. */
  edges(from: number, to: number): number[];
  /** True when no handoff can ever change who is on (a single person): edges need no scan. */
  fixed: boolean;
}

/** Wall time of the schedule's first handoff (start_date at handoff_time, local). */
export function startWall(schedule: Pick<Schedule, 'start_date' | 'handoff_time'>): number {
  const day = parseDate(schedule.start_date);
  const minutes = parseClock(schedule.handoff_time);
  if (day === undefined || minutes === undefined) throw new Error('schedule was not validated');
  return day + minutes * MINUTE_MS;
}
