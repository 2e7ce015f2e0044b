/** The reporting period: presets resolved to calendar dates (YYYY-MM-DD) and kept in the URL. */
import { todayIn } from '../../format.ts';

export type Preset = 'this_month' | 'last_month' | 'this_quarter' | 'year_to_date' | 'custom';

export const PRESETS: Array<{ id: Preset; label: string }> = [
  { id: 'this_month', label: 'This month' },
  { id: 'last_month', label: 'Last month' },
  { id: 'this_quarter', label: 'This quarter' },
  { id: 'year_to_date', label: 'Year to date' },
  { id: 'custom', label: 'Custom dates' },
];

export interface Period {
  preset: Preset;
  start: string;
  end: string;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const pad = (n: number) => String(n).padStart(2, '0');
const iso = (year: number, month: number, day: number) => {
  const d = new Date(Date.UTC(year, month, day));
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
};

export function presetDates(
  preset: Exclude<Preset, 'custom'>,
  today: string,
): { start: string; end: string } {
  const [year, month] = today.split('-').map(Number) as [number, number];
  const m = month - 1;
  switch (preset) {
    case 'this_month':
      return { start: iso(year, m, 1), end: today };
    case 'last_month':
      return { start: iso(year, m - 1, 1), end: iso(year, m, 0) };
    case 'this_quarter':
      return { start: iso(year, m - (m % 3), 1), end: today };
    case 'year_to_date':
      return { start: iso(year, 0, 1), end: today };
  }
}

const isPreset = (value: string | null): value is Preset => PRESETS.some((p) => p.id === value);

/** The period the URL asks for; custom dates that are missing or malformed fall back to this month. */
export function readPeriod(params: URLSearchParams, today = todayIn()): Period {
  const asked = params.get('period');
  const preset: Preset = isPreset(asked) ? asked : 'this_month';
  if (preset !== 'custom') return { preset, ...presetDates(preset, today) };
  const fallback = presetDates('this_month', today);
  const start = params.get('start') ?? '';
  const end = params.get('end') ?? '';
  return {
    preset,
    start: DATE.test(start) ? start : fallback.start,
    end: DATE.test(end) ? end : fallback.end,
  };
}

/** A problem with the period in words, or null when the API will accept it. */
export function periodProblem(period: Period): string | null {
  if (period.start > period.end) return 'The start date is after the end date: pick an earlier start.';
  return null;
}

export function describePeriod(period: Period): string {
  const format = (day: string) =>
    new Date(`${day}T00:00:00Z`).toLocaleDateString('en-US', {
      timeZone: 'UTC',
      month: 'short',
      day: 'numeric',
      year: 'numeric',
    });
  return period.start === period.end
    ? format(period.start)
    : `${format(period.start)} – ${format(period.end)}`;
}
