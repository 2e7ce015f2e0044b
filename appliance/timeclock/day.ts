import type { Punch, PunchKind, ShiftState } from './service.ts';

/** What a day's board needs from the rest of the store: its calendar and its staff's names. */
export interface DaySources {
  calendar: {
    businessDay(at: Date): string;
    businessDayBounds(businessDay: string): { start: Date; end: Date };
  };
  names: { displayNames(ids: string[]): Map<string, string> };
}

/** Where each punch leaves a shift, whatever came before it. */
const STATE_AFTER: Record<PunchKind, ShiftState> = {
  clock_in: 'working',
  break_end: 'working',
  break_start: 'on_break',
  clock_out: 'off',
};

/**
 * Minutes on the clock between `from` and `until`: from entering work (clock in, break end) to
 * leaving it (break start, clock out). A day whose first punch leaves work was being worked when
 * it began; work still going at its last punch goes on to `until`.
 */
export function workedMinutes(punches: Punch[], from: Date, until: Date) {
  const first = punches[0];
  let since = first && STATE_AFTER[first.kind] !== 'working' ? from.getTime() : undefined;
  let workedMs = 0;
  for (const punch of punches) {
    const at = Date.parse(punch.at);
    if (STATE_AFTER[punch.kind] === 'working') {
      since ??= at;
      continue;
    }
    if (since !== undefined) workedMs += at - since;
    since = undefined;
  }
  if (since !== undefined) workedMs += Math.max(0, until.getTime() - since);
  return Math.floor(workedMs / 60_000);
}

/** One staff member's day: punches in order, where they leave the shift, the time worked. */
export function staffDay(staffId: string, punches: Punch[], from: Date, until: Date) {
  const last = punches.at(-1);
  return {
    staff_id: staffId,
    state: last ? STATE_AFTER[last.kind] : ('off' as ShiftState),
    worked_minutes: workedMinutes(punches, from, until),
    punches,
  };
}
