/**
 * Auto-remediation: risk-rated actions on an alert's target with approval (the cockpit's queue),
 * hourly rate limits, safety checks recorded on each record, dry runs, and pluggable executors
 * (the built-ins restart an appliance's service, rotate its logs and clear its caches through MDM
 * commands). Owns the remediations table (migration 0017, with the cockpit's).
 */
export { ACTIONS, type RemediationAction } from './actions.ts';
export type {
  ExecutionContext,
  ExecutionResult,
  RemediationAlert,
  RemediationExecutor,
  Target,
} from './executors/index.ts';
export { remediationRoutes } from './routes.ts';
export { createRemediationService, type RemediationDeps, type RemediationService } from './service.ts';
export type { RemediationTables } from './tables.ts';
