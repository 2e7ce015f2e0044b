/** Calendar days as YYYY-MM-DD strings, computed in UTC so no local offset shifts them. */
const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isDay(value: string): boolean {
  const match = DATE.exec(value);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === value;
}

const toMs = (day: string) => Date.parse(`${day}T00:00:00.000Z`);
const fromMs = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export const addDays = (day: string, days: number) => fromMs(toMs(day) + days * DAY_MS);
/** Days from `start` to `end`, both included. */
export const daysBetween = (start: string, end: string) => Math.round((toMs(end) - toMs(start)) / DAY_MS) + 1;
export const monthOf = (day: string) => day.slice(0, 7);
export const daysInMonth = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).getUTCDate();
};

/** Monday of the ISO week the day falls in. */
export function weekStart(day: string): string {
  const weekday = (new Date(toMs(day)).getUTCDay() + 6) % 7;
  return addDays(day, -weekday);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The calendar day an instant falls on in a store's time zone (UTC when it is unknown). */
export function localDay(instant: string, timezone: string): string {
  let format = formatters.get(timezone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat('en-CA', {
        timeZone: timezone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
      });
    } catch {
      format = new Intl.DateTimeFormat('en-CA', {
        timeZone: 'UTC',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
      });
    }
    formatters.set(timezone, format);
  }
  return format.format(new Date(instant));
}
