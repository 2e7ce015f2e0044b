/** Remediation's tables (created by migration 0017 with the cockpit's). */

export const RISKS = ['low', 'medium', 'high'] as const;
export type Risk = (typeof RISKS)[number];

/**
 * `dry_run`: checks reported, nothing done. `pending_approval`: waits for a cockpit operator.
 * `executing` → `executed` | `failed` | `timed_out`. `rejected`: the operator said no. `refused`: a
 * safety check (kill switch, rate limit, target) stopped it; kept so refusals can be counted.
 */
export const REMEDIATION_STATUSES = [
  'dry_run',
  'pending_approval',
  'executing',
  'executed',
  'failed',
  'timed_out',
  'rejected',
  'refused',
] as const;
export type RemediationStatus = (typeof REMEDIATION_STATUSES)[number];

export interface RemediationRow {
  id: string;
  tenant_id: string;
  alert_id: string;
  action: string;
  risk: Risk;
  /** JSON object: the parameters asked for (after an operator's modification, those approved). */
  parameters: string;
  environment: string | null;
  /** What the action acts on (`device:<id>`, `location:<id>`, or an executor's own key). */
  target: string | null;
  /** restart or scale: which hourly limit the action counts against; null for none. */
  rate_group: string | null;
  runbook: string | null;
  status: RemediationStatus;
  dry_run: number;
  auto_approved: number;
  /** JSON array of { check, passed, auto_approved?, detail }. */
  safety_checks: string;
  /** JSON object: { success, old_replicas, new_replicas, execution_time_ms, ... } or null. */
  result: string | null;
  /** How long the executor took; null until it ran. */
  execution_ms: number | null;
  /** The safety check that refused it (`rate_limit`, `agent_rate_limit`, `kill_switch`...). */
  refused_by: string | null;
  approval_id: string | null;
  /** A retried request with the same Idempotency-Key answers this record. */
  idempotency_key: string | null;
  requested_by: string;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface RemediationTables {
  remediations: RemediationRow;
}
