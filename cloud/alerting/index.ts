/**
 * Alerting: ingest from any source with fingerprint dedupe, the documented severity routing, escalation
 * policies run by a persisted step worker, and maintenance windows. Owns the alerts, escalation
 * steps, policies and maintenance windows tables; notifies through notify, asks oncall who is on
 * call, and tells its listeners (incident flow, AIOps) of each new alert after it commits.
 */
export { ALERTING_SETTINGS, ALERTING_VARIABLES, type AlertingConfig, loadAlertingConfig } from './config.ts';
export { alertingRoutes } from './routes.ts';
export { type EscalationPlan, type PolicyLevel, SEVERITY_CHANNELS, type Target } from './routing.ts';
export type { IngestBody } from './schemas.ts';
export {
  type Alert,
  type AlertChanged,
  type AlertFired,
  type AlertingDeps,
  type AlertingService,
  createAlertingService,
} from './service.ts';
export type { AlertingTables } from './tables.ts';
export { SEVERITIES, type Severity } from './tables.ts';
