/**
 * Times in the store's time zone (its location's `timezone`), whatever zone the machine showing the
 * kiosk is set to. Without a zone, the machine's own. Pure: the caller passes the instant.
 */

export interface WallTime {
  year: number;
  /** 1 to 12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();

function partsFormat(timeZone: string | undefined) {
  const key = timeZone ?? '';
  let format = formats.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(key, format);
  }
  return format;
}

/** What a wall clock in the zone shows at the instant. */
export function wallTime(ms: number, timeZone?: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of partsFormat(timeZone).formatToParts(ms))
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  const { year = 0, month = 1, day = 1, hour = 0, minute = 0, second = 0 } = parts;
  return { year, month, day, hour: hour % 24, minute, second };
}

const asUtc = (wall: WallTime) =>
  Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);

const DAY_MS = 86_400_000;

/** How far the zone's clock is ahead of UTC at the instant (negative west of Greenwich). */
const offsetAt = (ms: number, timeZone?: string) => asUtc(wallTime(ms, timeZone)) - ms;

/**
 * The instant a wall clock in the zone shows `wall`: tried with the zone's offsets a day before
 * and a day after. An hour the clocks repeat reads as its first pass; an hour they skip as the
 * hour after the change.
 */
export function instantOf(wall: WallTime, timeZone?: string): number {
  const target = asUtc(wall);
  const candidates = [offsetAt(target - DAY_MS, timeZone), offsetAt(target + DAY_MS, timeZone)]
    .map((offset) => target - offset)
    .sort((a, b) => a - b);
  const shown = candidates.find((ms) => asUtc(wallTime(ms, timeZone)) === target);
  return shown ?? Math.max(...candidates);
}

/** `14:05` (or `02:05 PM`, as the locale writes it) on the zone's clock. */
export function formatTimeOfDay(
  ms: number,
  options: { timeZone?: string | undefined; locale?: string | undefined } = {},
) {
  return new Date(ms).toLocaleTimeString(options.locale, {
    hour: '2-digit',
    minute: '2-digit',
    timeZone: options.timeZone,
  });
}
