/**
 * On-call: each team's schedule (weekly, daily, custom or follow-the-sun rotation in its own time
 * zone), the overrides that replace it for a date range, and who is primary and secondary at an
 * instant. Owns the oncall_schedules and oncall_overrides tables; served under /api/v1/oncall.
 * Alerting asks `current(tenantId, team)` whom to page.
 */
export type { Person, Region } from './model.ts';
export { onCallAt } from './on-call.ts';
export { oncallRoutes } from './routes.ts';
export { createOncallService, type OnCallNow, type OncallDeps, type OncallService } from './service.ts';
export type { OncallTables } from './tables.ts';
