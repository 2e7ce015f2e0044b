/**
 * The time clock: clock in and out, breaks, and managers' corrections. Owns time_punches: each
 * punch is a merge row (a Yjs document of its fields), corrected in place, so a correction at the
 * store and an edit in the cloud both survive sync.
 */

export type { DaySources } from './day.ts';
export { timeClockRoutes } from './routes.ts';
export {
  createTimeClockService,
  type Punch,
  type PunchKind,
  type ShiftState,
  type TimeClockService,
} from './service.ts';
