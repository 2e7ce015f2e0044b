/** Alerting records as the API shows them; JSON columns parsed at the store boundary. */
import type { EscalationPlan, PolicyLevel } from './routing.ts';
import type { AlertRow, MaintenanceWindowRow, PolicyRow, Severity } from './tables.ts';

const json = <T>(text: string | null, fallback: T): T => (text ? (JSON.parse(text) as T) : fallback);

export const toAlert = (row: AlertRow) => ({
  id: row.id,
  severity: row.severity,
  title: row.title,
  service: row.service,
  status: row.status,
  started_at: row.started_at,
  acknowledged_by: row.acknowledged_by,
  escalation_level: Number(row.escalation_level),
  source: row.source,
  description: row.description,
  environment: row.environment,
  labels: json<Record<string, string>>(row.labels, {}),
  runbook_url: row.runbook_url,
  fingerprint: row.fingerprint,
  occurrences: Number(row.occurrences),
  last_seen_at: row.last_seen_at,
  acknowledged_at: row.acknowledged_at,
  note: row.note,
  resolved_at: row.resolved_at,
  resolved_by: row.resolved_by,
  resolution_note: row.resolution_note,
  suppressed: Number(row.suppressed) === 1,
  maintenance_window_id: row.maintenance_window_id,
  maintenance_type: row.maintenance_type,
  original_severity: row.original_severity,
  policy_id: row.policy_id,
});

export type AlertView = ReturnType<typeof toAlert>;

export const planOf = (row: AlertRow) => json<EscalationPlan | null>(row.escalation, null);

export const toPolicy = (row: PolicyRow) => ({
  id: row.id,
  name: row.name,
  is_default: Number(row.is_default) === 1,
  match: {
    services: json<string[]>(row.match_services, []),
    severities: json<Severity[]>(row.match_severities, []),
    labels: json<Record<string, string>>(row.match_labels, {}),
  },
  mode: row.mode,
  skip_when_acknowledged: Number(row.skip_when_acknowledged) === 1,
  levels: json<PolicyLevel[]>(row.levels, []),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export type PolicyView = ReturnType<typeof toPolicy>;

export const toWindow = (row: MaintenanceWindowRow) => ({
  id: row.id,
  name: row.name,
  type: row.type,
  starts_at: row.starts_at,
  ends_at: row.ends_at,
  match: {
    services: json<string[]>(row.match_services, []),
    labels: json<Record<string, string>>(row.match_labels, {}),
    location_ids: json<string[]>(row.match_location_ids, []),
  },
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export type WindowView = ReturnType<typeof toWindow>;
