/**
 * What TypeBox cannot say about a schedule: real zones and dates, and which fields each type takes.
 * Every problem names its field (`body.regions.1.time_zone`), all of them at once.
 */
import type { ErrorDetail } from '../../shared/http/errors.ts';
import type { Schedule } from './model.ts';
import { isTimeZone, parseDate } from './zoned-time.ts';

const ROTATING_TYPES = new Set(['weekly', 'daily', 'custom']);

function checkRegions(schedule: Schedule, problems: ErrorDetail[]) {
  const regions = schedule.regions;
  if (!regions || regions.length === 0) {
    problems.push({ field: 'body.regions', message: 'is required for a follow_the_sun schedule' });
  }
  if (schedule.participants.length > 0) {
    problems.push({ field: 'body.participants', message: 'follow_the_sun takes its people per region' });
  }
  if (!regions) return;
  const seen = new Set<string>();
  regions.forEach((region, index) => {
    const field = `body.regions.${index}`;
    if (!isTimeZone(region.time_zone)) {
      problems.push({ field: `${field}.time_zone`, message: 'is not an IANA time zone' });
    }
    if (region.start_time === region.end_time) {
      problems.push({ field: `${field}.end_time`, message: 'must differ from start_time' });
    }
    if (seen.has(region.name))
      problems.push({ field: `${field}.name`, message: 'is used by another region' });
    seen.add(region.name);
  });
}

function checkRotation(schedule: Schedule, problems: ErrorDetail[]) {
  if (schedule.participants.length === 0) {
    problems.push({ field: 'body.participants', message: 'must name at least one person' });
  }
  if (schedule.regions !== null) {
    problems.push({ field: 'body.regions', message: 'only a follow_the_sun schedule has regions' });
  }
}

export function scheduleProblems(schedule: Schedule): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  if (!isTimeZone(schedule.time_zone)) {
    problems.push({ field: 'body.time_zone', message: 'is not an IANA time zone' });
  }
  if (parseDate(schedule.start_date) === undefined) {
    problems.push({ field: 'body.start_date', message: 'is not a calendar date (YYYY-MM-DD)' });
  }
  if (schedule.type === 'custom' && schedule.shift_hours === null) {
    problems.push({ field: 'body.shift_hours', message: 'is required for a custom schedule' });
  }
  if (schedule.type !== 'custom' && schedule.shift_hours !== null) {
    problems.push({ field: 'body.shift_hours', message: 'only a custom schedule sets its shift length' });
  }
  if (ROTATING_TYPES.has(schedule.type)) checkRotation(schedule, problems);
  else checkRegions(schedule, problems);
  return problems;
}

/** ISO instants the store compares as text: four-digit years only. */
const storable = (ms: number) => ms >= 0 && ms < Date.UTC(10000, 0, 1);

export function overrideProblems(startsAt: string, endsAt: string, now: Date): ErrorDetail[] {
  const [starts, ends] = [Date.parse(startsAt), Date.parse(endsAt)];
  const problems: ErrorDetail[] = [];
  if (!storable(starts)) problems.push({ field: 'body.starts_at', message: 'is out of range' });
  if (!storable(ends)) problems.push({ field: 'body.ends_at', message: 'is out of range' });
  else if (ends <= starts) problems.push({ field: 'body.ends_at', message: 'must be after starts_at' });
  else if (ends <= now.getTime()) problems.push({ field: 'body.ends_at', message: 'is already past' });
  return problems;
}
