/**
 * When a store may install: inside the rollout's window of its own local time and, unless the
 * rollout allows it, while the store is closed by the opening hours it syncs (location_settings).
 */
import { businessTimeOf, isTimeZone, minutesOfClockTime } from '../../shared/business-day.ts';

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const DAY_MINUTES = 24 * 60;

interface Interval {
  opens: string;
  closes: string;
}

/** What the store's synced settings say, as far as installing goes. */
export interface StoreHours {
  timezone: string;
  /** `open`, `closed` or `temporarily_closed`; a closed store is not open whatever its hours. */
  status: string | undefined;
  /** By weekday name; absent when the store never synced its settings. */
  hours: Partial<Record<string, Interval[]>> | undefined;
}

/** Local weekday (0 = Sunday) and minutes since local midnight. */
export function localClock(at: Date, timeZone: string) {
  const local = businessTimeOf(at, isTimeZone(timeZone) ? timeZone : 'UTC', '00:00');
  return {
    weekday: new Date(`${local.businessDay}T00:00:00Z`).getUTCDay(),
    minutes: local.minutesIntoDay,
  };
}

/** Whether a local time falls in [start, end); a window past midnight wraps; start = end is all day. */
export function inWindow(minutes: number, window: { start: string; end: string }) {
  const start = minutesOfClockTime(window.start);
  const end = minutesOfClockTime(window.end);
  if (start === end) return true;
  return start < end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
}

const isInterval = (value: unknown): value is Interval =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Interval).opens === 'string' &&
  typeof (value as Interval).closes === 'string';

const intervalsOf = (hours: StoreHours['hours'], weekday: number) => {
  const day = hours?.[WEEKDAYS[(weekday + 7) % 7]!];
  return Array.isArray(day) ? day.filter(isInterval) : [];
};

/** Open at this local time by its weekly hours, counting last night's hours that run past midnight. */
export function openNow(store: StoreHours, at: Date) {
  if (store.status !== undefined && store.status !== 'open') return false;
  const { weekday, minutes } = localClock(at, store.timezone);
  const today = intervalsOf(store.hours, weekday).some((interval) => {
    const opens = minutesOfClockTime(interval.opens);
    const closes = minutesOfClockTime(interval.closes);
    return closes > opens ? minutes >= opens && minutes < closes : minutes >= opens;
  });
  if (today) return true;
  return intervalsOf(store.hours, weekday - 1).some((interval) => {
    const closes = minutesOfClockTime(interval.closes);
    return closes < minutesOfClockTime(interval.opens) && minutes < closes;
  });
}

/** Minutes from this local time until the window closes (the window is open now). */
export function minutesLeftInWindow(minutes: number, window: { start: string; end: string }) {
  const end = minutesOfClockTime(window.end);
  if (end === minutesOfClockTime(window.start)) return DAY_MINUTES;
  return (end - minutes + DAY_MINUTES) % DAY_MINUTES || DAY_MINUTES;
}
