/**
 * A store's business day: which day an instant belongs to, in the store's time zone, from the
 * local time its day starts at. The store numbers and totals its orders by it and head office
 * reads the stores' figures by it, so both sides answer from this one rule.
 */

/** Where a store's business day starts when it has not said: after the night's last sales. */
export const DEFAULT_BUSINESS_DAY_START = '04:00';

/** Minutes since midnight of a local wall-clock time 'HH:MM'. */
export const minutesOfClockTime = (clockTime: string) =>
  Number(clockTime.slice(0, 2)) * 60 + Number(clockTime.slice(3, 5));

const CLOCK_TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

export const isClockTime = (value: string) => CLOCK_TIME.test(value);

export const isTimeZone = (value: string) => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
};

const formatters = new Map<string, Intl.DateTimeFormat>();

function wallClock(at: Date, timeZone: string) {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(at).map((p) => [p.type, p.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/**
 * The business day ('YYYY-MM-DD') an instant belongs to: its local date in `timeZone`, or the day
 * before when the local wall-clock time is earlier than `startsAt`. Comparing wall-clock times
 * keeps DST days right: a 02:30 sale is on the previous business day whether or not 02:30 existed.
 */
export function businessDayOf(at: Date, timeZone: string, startsAt: string): string {
  return businessTimeOf(at, timeZone, startsAt).businessDay;
}

/**
 * Where an instant falls in the store's day: its business day, the local hour (0 to 23), and the
 * wall-clock minutes since that business day began, which compare the same moment of two days
 * whether or not a DST change lies between them.
 */
export function businessTimeOf(at: Date, timeZone: string, startsAt: string) {
  const local = wallClock(at, timeZone);
  const start = minutesOfClockTime(startsAt);
  const daysBack = local.minutes < start ? 1 : 0;
  return {
    businessDay: new Date(Date.UTC(local.year, local.month - 1, local.day - daysBack))
      .toISOString()
      .slice(0, 10),
    hour: Math.floor(local.minutes / 60),
    minutesIntoDay: (local.minutes - start + 24 * 60) % (24 * 60),
  };
}

export type BusinessTime = ReturnType<typeof businessTimeOf>;

const MINUTE_MS = 60_000;

/**
 * The first minute of a business day: where `businessDayOf` turns to it, found by halving. Time
 * zones lie within 14 hours of UTC, so 15 hours either side of the nominal start bracket it;
 * in a DST gap it is the first minute after the gap.
 */
function dayStart(businessDay: string, timeZone: string, startsAt: string): Date {
  const [year, month, day] = businessDay.split('-').map(Number) as [number, number, number];
  const nominal = Date.UTC(year, month - 1, day) + minutesOfClockTime(startsAt) * MINUTE_MS;
  let before = nominal - 15 * 60 * MINUTE_MS;
  let after = nominal + 15 * 60 * MINUTE_MS;
  while (after - before > MINUTE_MS) {
    const middle = before + Math.floor((after - before) / 2 / MINUTE_MS) * MINUTE_MS;
    if (businessDayOf(new Date(middle), timeZone, startsAt) >= businessDay) after = middle;
    else before = middle;
  }
  return new Date(after);
}

/** When a business day begins and when the next one does. */
export function businessDayBounds(businessDay: string, timeZone: string, startsAt: string) {
  return {
    start: dayStart(businessDay, timeZone, startsAt),
    end: dayStart(shiftBusinessDay(businessDay, 1), timeZone, startsAt),
  };
}

/** The business day `days` calendar days after `businessDay` ('YYYY-MM-DD'); negative goes back. */
export function shiftBusinessDay(businessDay: string, days: number): string {
  const [year, month, day] = businessDay.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}
