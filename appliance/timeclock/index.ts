/**
 * The time clock: clock in and out, breaks, and managers' corrections. Owns time_punches, an
 * append-only log: corrections add a punch that replaces an earlier one.
 */
export {
  createTimeClockService,
  type Punch,
  type PunchKind,
  type ShiftState,
  type TimeClockService,
} from './service.ts';
