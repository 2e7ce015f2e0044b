/**
 * Wall-clock time in an IANA time zone, with nothing but Intl. A "wall" value is the local date and
 * time written as if it were UTC, in milliseconds (`Date.UTC(y, m - 1, d, h, min)`): arithmetic on
 * it is calendar arithmetic (adding a day keeps the time of day), and `instantOf` turns it into the
 * real instant in the zone.
 *
 * Daylight saving, the choice made (the same as RFC 5545 and Temporal's `compatible`):
 * - a wall time that does not exist (the spring-forward gap, 02:30 in New York on 2026-03-08) is
 *   moved forward by the gap's length: 02:30 EST-that-never-was, i.e. 03:30 EDT;
 * - a wall time that exists twice (the fall-back overlap, 01:30 in New York on 2026-11-01) is its
 *   first occurrence (01:30 EDT), so a handoff never waits an extra hour.
 */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

const formatters = new Map<string, Intl.DateTimeFormat>();
/**
 * Handoffs fall on the same few wall times request after request (every answer about a weekly
 * schedule asks for this week's and next week's); a zone's rules do not change while we run.
 */
const instants = new Map<string, number>();
const MEMO_LIMIT = 100_000;

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/**
 * True when `name` is an IANA zone this runtime knows (`UTC` and links such as `US/Eastern`
 * included; letter case as Intl tolerates it). Offsets (`+01:00`) are refused: a fixed offset would
 * not follow daylight saving. The name is kept as given: ICU would rewrite Asia/Kolkata to its old
 * link Asia/Calcutta.
 */
export function isTimeZone(name: string): boolean {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

const FORMATTED = /^(\d{2})\/(\d{2})\/(\d{4}), (\d{2}):(\d{2}):(\d{2})$/;

type Fields = [year: number, month: number, day: number, hour: number, minute: number, second: number];

/** The date and time the zone's clocks show at `instant`. */
function fieldsAt(formatter: Intl.DateTimeFormat, instant: number): Fields {
  // format() and a pattern cost a third of formatToParts(), which only years before 1000 need.
  const match = FORMATTED.exec(formatter.format(instant));
  if (match) {
    const [month, day, year, hour, minute, second] = match.slice(1).map(Number) as number[];
    return [year!, month!, day!, hour!, minute!, second!];
  }
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(instant)) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  return [parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!];
}

/** The wall time (see the header) the zone's clocks show at `instant` (ms). */
export function wallAt(zone: string, instant: number): number {
  const [year, month, day, hour, minute, second] = fieldsAt(formatterOf(zone), instant);
  const whole = Date.UTC(year, month - 1, day, hour, minute, second);
  return whole + (((instant % 1000) + 1000) % 1000);
}

/** The zone's offset from UTC at `instant`, in ms (New York in winter: -5 h). */
export const offsetAt = (zone: string, instant: number) => wallAt(zone, instant) - instant;

/**
 * The instant (ms) at which the zone's clocks show `wall`; gap and overlap as the header says.
 * Assumes no two offset changes within a day and a half of each other, which holds for every zone.
 */
export function instantOf(zone: string, wall: number): number {
  const key = `${zone} ${wall}`;
  const known = instants.get(key);
  if (known !== undefined) return known;
  const before = offsetAt(zone, wall - DAY_MS);
  const after = offsetAt(zone, wall + DAY_MS);
  const matches = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((instant) => wallAt(zone, instant) === wall)
    .sort((x, y) => x - y);
  // No match: the wall time falls in a gap; with the offset from before it, it lands past the gap.
  const instant = matches[0] ?? wall - before;
  if (instants.size >= MEMO_LIMIT) instants.clear();
  instants.set(key, instant);
  return instant;
}

/** `YYYY-MM-DD` as the wall time of that day's midnight, or undefined when it is no calendar date. */
export function parseDate(text: string): number | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const wall = Date.UTC(year, month - 1, day);
  const check = new Date(wall);
  const real =
    check.getUTCFullYear() === year && check.getUTCMonth() === month - 1 && check.getUTCDate() === day;
  return real ? wall : undefined;
}

/** `HH:MM` (00:00 to 23:59) as minutes after midnight, or undefined. */
export function parseClock(text: string): number | undefined {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text);
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
}

/** The wall time of midnight on the day `wall` falls on. */
export const dayOf = (wall: number) => Math.floor(wall / DAY_MS) * DAY_MS;
