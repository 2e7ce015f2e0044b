/** The time clock's rules as the kiosk shows them. */
import { instantOf, wallTime } from './zone.ts';

export type ShiftState = 'off' | 'working' | 'on_break';
export type PunchKind = 'clock_in' | 'clock_out' | 'break_start' | 'break_end';

/** The punches that make sense from a shift state, the usual one first. */
export function punchesFor(state: ShiftState): PunchKind[] {
  if (state === 'off') return ['clock_in'];
  if (state === 'working') return ['clock_out', 'break_start'];
  return ['break_end'];
}

export const PUNCH_LABELS: Record<PunchKind, string> = {
  clock_in: 'Clock in',
  clock_out: 'Clock out',
  break_start: 'Start break',
  break_end: 'End break',
};

export const SHIFT_LABELS: Record<ShiftState, string> = {
  off: 'Clocked out',
  working: 'Working',
  on_break: 'On break',
};

const pad = (n: number) => String(n).padStart(2, '0');

/** A punch's time on the store's clock as `HH:MM`, for the correction dialog's time field. */
export function localTime(iso: string, timeZone?: string): string {
  const at = wallTime(Date.parse(iso), timeZone);
  return `${pad(at.hour)}:${pad(at.minute)}`;
}

/**
 * A corrected punch time: the punch's own day in the store at `hhmm`. A correction moves a punch
 * within its day; a shift past midnight is corrected on the punch that belongs to the other day.
 */
export function correctedAt(originalIso: string, hhmm: string, timeZone?: string): string | undefined {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(hhmm);
  const original = Date.parse(originalIso);
  if (!match || Number.isNaN(original)) return undefined;
  const day = wallTime(original, timeZone);
  const at = instantOf({ ...day, hour: Number(match[1]), minute: Number(match[2]), second: 0 }, timeZone);
  return new Date(at).toISOString();
}

/** Worked time as `7 h 05 min`. */
export function formatWorked(minutes: number): string {
  const m = Math.max(0, Math.round(minutes));
  return `${Math.floor(m / 60)} h ${pad(m % 60)} min`;
}
