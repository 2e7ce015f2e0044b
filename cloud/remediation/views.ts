import type { RemediationRow } from './tables.ts';

export interface SafetyCheck {
  check: string;
  passed: boolean;
  auto_approved?: boolean;
  detail: string;
}

export interface RemediationResult {
  success: boolean;
  old_replicas: number | null;
  new_replicas: number | null;
  execution_time_ms: number;
  details?: unknown;
  error?: string;
}

const parse = <T>(text: string | null) => (text === null ? null : (JSON.parse(text) as T));

/** Spec 3's remediation record, with the id, risk, target, approval and times around it. */
export const toRemediation = (row: RemediationRow) => ({
  id: row.id,
  alert_id: row.alert_id,
  action: row.action,
  risk: row.risk,
  parameters: parse<Record<string, unknown>>(row.parameters) ?? {},
  environment: row.environment,
  target: row.target,
  runbook: row.runbook,
  status: row.status,
  dry_run: row.dry_run === 1,
  auto_approved: row.auto_approved === 1,
  approval_id: row.approval_id,
  result: parse<RemediationResult>(row.result),
  safety_checks: parse<SafetyCheck[]>(row.safety_checks) ?? [],
  requested_by: row.requested_by,
  created_at: row.created_at,
  updated_at: row.updated_at,
  started_at: row.started_at,
  finished_at: row.finished_at,
});
export type Remediation = ReturnType<typeof toRemediation>;
