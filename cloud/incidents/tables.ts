/**
 * `open` when raised; `acknowledged` once a responder has taken it; `resolved` for good. Open may go
 * to acknowledged or straight to resolved, acknowledged to resolved; nothing leaves resolved (the
 * next alert opens a new incident). A repeat alert while open or acknowledged keeps the state.
 */
export const INCIDENT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** The severities the store's devices raise (spec 3: `high` and `critical` occur). */
export const INCIDENT_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];
export const DEFAULT_SEVERITY: IncidentSeverity = 'high';

/** `api`: a create request; `event`: a domain event that reached the cloud's event log. */
export const INCIDENT_SOURCES = ['api', 'event'] as const;
export type IncidentSource = (typeof INCIDENT_SOURCES)[number];

export interface IncidentRow {
  id: string;
  tenant_id: string;
  /** The device form's `type` (e.g. `temperature_alert`); null for the title form. */
  type: string | null;
  title: string;
  severity: IncidentSeverity;
  status: IncidentStatus;
  service: string | null;
  description: string | null;
  runbook_url: string | null;
  device_id: string | null;
  location_id: string | null;
  source: IncidentSource;
  /** The domain event that opened it; unique per tenant, so a re-sent event never opens another. */
  source_event_id: string | null;
  /** Alerts folded into this incident, the first included. */
  occurrences: number;
  last_occurred_at: string;
  created_at: string;
  updated_at: string;
  acknowledged_at: string | null;
  /** The user id of who acknowledged it. */
  acknowledged_by: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
}

export interface IncidentTables {
  incidents: IncidentRow;
}
