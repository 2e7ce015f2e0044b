/**
 * The alerting tables. An alert is `firing` when raised, `acknowledged` once a responder took it,
 * `resolved` for good; a repeat of its fingerprint while firing or acknowledged updates it, one
 * after resolution opens a new alert. JSON columns (labels, matchers, levels) are stored as text.
 */
export const SEVERITIES = ['P1', 'P2', 'P3', 'P4', 'P5'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ALERT_STATUSES = ['firing', 'acknowledged', 'resolved'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

export const ESCALATION_MODES = ['parallel', 'sequential', 'round_robin'] as const;
export type EscalationMode = (typeof ESCALATION_MODES)[number];

export const MAINTENANCE_TYPES = ['full_suppress', 'reduce_severity', 'notify_only'] as const;
export type MaintenanceType = (typeof MAINTENANCE_TYPES)[number];

export interface AlertRow {
  id: string;
  tenant_id: string;
  fingerprint: string;
  source: string;
  /** What routing used: the reported severity, or the reduced one in a reduce-severity window. */
  severity: Severity;
  /** The reported severity when a maintenance window reduced it; else null. */
  original_severity: Severity | null;
  title: string;
  description: string | null;
  service: string;
  environment: string | null;
  /** JSON object, string to string. */
  labels: string;
  runbook_url: string | null;
  status: AlertStatus;
  started_at: string;
  last_seen_at: string;
  occurrences: number;
  escalation_level: number;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  note: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
  resolution_note: string | null;
  /** 1 when a full-suppress maintenance window held it back: no notification, no escalation. */
  suppressed: number;
  maintenance_window_id: string | null;
  maintenance_type: MaintenanceType | null;
  policy_id: string | null;
  /** JSON EscalationPlan: the policy as it was when the alert opened, so edits do not move it. */
  escalation: string | null;
  updated_at: string;
}

export interface EscalationStepRow {
  id: string;
  tenant_id: string;
  alert_id: string;
  level: number;
  /** Sequential and round-robin: which target of the level (0 first); parallel: 0. */
  position: number;
  due_at: string;
  done_at: string | null;
  /** `notified`, `stopped` (acknowledged, resolved or suppressed by then). */
  outcome: string | null;
  /** 1 for a level-1 step written by the event flow: the alert counts as fired when it runs. */
  fires_alert: number;
  created_at: string;
}

export interface PolicyRow {
  id: string;
  tenant_id: string;
  name: string;
  is_default: number;
  /** JSON arrays / object: empty matches anything. */
  match_services: string;
  match_severities: string;
  match_labels: string;
  mode: EscalationMode;
  skip_when_acknowledged: number;
  /** JSON PolicyLevel[]. */
  levels: string;
  /** Round-robin: alerts this policy has opened so far; the next alert starts at this mod n. */
  rotation: number;
  created_at: string;
  updated_at: string;
}

export interface MaintenanceWindowRow {
  id: string;
  tenant_id: string;
  name: string;
  type: MaintenanceType;
  starts_at: string;
  ends_at: string;
  match_services: string;
  match_labels: string;
  match_location_ids: string;
  created_at: string;
  updated_at: string;
}

export interface AlertingTables {
  alerts: AlertRow;
  alert_escalation_steps: EscalationStepRow;
  alert_policies: PolicyRow;
  alert_maintenance_windows: MaintenanceWindowRow;
}
