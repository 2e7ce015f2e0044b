import { isClockTime, minutesOfClockTime as minutesOf } from '../../shared/business-day.ts';
import type { ErrorDetail } from '../../shared/http/errors.ts';

export {
  type BusinessTime,
  businessDayBounds,
  businessDayOf,
  businessTimeOf,
  isClockTime,
  isTimeZone,
  shiftBusinessDay,
} from '../../shared/business-day.ts';

export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** Local wall-clock times 'HH:MM'; `closes` earlier than `opens` means after midnight. */
export interface OpeningInterval {
  opens: string;
  closes: string;
}

export type WeeklyHours = Record<Weekday, OpeningInterval[]>;

function checkDay(day: Weekday, intervals: OpeningInterval[], problems: ErrorDetail[]) {
  const field = (index: number, key: keyof OpeningInterval) => `body.hours.${day}[${index}].${key}`;
  const before = problems.length;
  intervals.forEach((interval, index) => {
    for (const key of ['opens', 'closes'] as const) {
      if (typeof interval[key] !== 'string' || !isClockTime(interval[key]))
        problems.push({ field: field(index, key), message: 'must be a time HH:MM' });
    }
    if (interval.opens === interval.closes)
      problems.push({ field: field(index, 'closes'), message: 'must differ from opens' });
  });
  if (problems.length > before) return;
  const sorted = [...intervals].sort((a, b) => minutesOf(a.opens) - minutesOf(b.opens));
  for (let index = 1; index < sorted.length; index++) {
    const previous = sorted[index - 1]!;
    const overnight = minutesOf(previous.closes) < minutesOf(previous.opens);
    if (overnight || minutesOf(previous.closes) > minutesOf(sorted[index]!.opens)) {
      problems.push({ field: `body.hours.${day}`, message: 'opening intervals must not overlap' });
      return;
    }
  }
}

/** Checks a week of opening hours and fills missing days as closed, each day's intervals in order. */
export function normalizeHours(hours: Partial<WeeklyHours>, problems: ErrorDetail[]): WeeklyHours {
  for (const key of Object.keys(hours)) {
    if (!(WEEKDAYS as readonly string[]).includes(key))
      problems.push({ field: `body.hours.${key}`, message: 'is not a day of the week' });
  }
  const week = Object.fromEntries(WEEKDAYS.map((day) => [day, [] as OpeningInterval[]])) as WeeklyHours;
  for (const day of WEEKDAYS) {
    const intervals = hours[day] ?? [];
    if (!Array.isArray(intervals)) {
      problems.push({ field: `body.hours.${day}`, message: 'must be a list of opening intervals' });
      continue;
    }
    checkDay(day, intervals, problems);
    week[day] = intervals
      .map(({ opens, closes }) => ({ opens, closes }))
      .sort((a, b) => (a.opens < b.opens ? -1 : 1));
  }
  return week;
}
