/**
 * `open` when raised; `acknowledged` once a responder has taken it; `resolved` for good. Open may go
 * to acknowledged or straight to resolved, acknowledged to resolved; nothing leaves resolved (the
 * next alert opens a new incident). A repeat alert while open or acknowledged keeps the state.
 */
export const INCIDENT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** The severities the store's devices raise (`high` and `critical` occur). */
export const INCIDENT_SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];
export const DEFAULT_SEVERITY: IncidentSeverity = 'high';

/**
 * `api`: a create request; `event`: a domain event that reached the cloud's event log; `alert`: an
 * alert that fired (the chat incident flow).
 */
export const INCIDENT_SOURCES = ['api', 'event', 'alert'] as const;
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
  /** The alert that opened it (the chat incident flow); alerts folded in later are in incident_alerts. */
  alert_id: string | null;
  /** Its dedicated chat channel, once created. */
  channel_id: string | null;
  /** The catalog runbook attached; null when none or when the url came from the alert or request. */
  runbook_id: string | null;
  /** JSON `IncidentResponder[]`: who the escalation policy named, and whether they were invited. */
  responders: string | null;
  /** When the trouble began: the alert's start, else the creation. */
  started_at: string | null;
  /** The latest occurrence or timeline entry: what the quiet-incident sweeper measures from. */
  last_activity_at: string | null;
}

export interface IncidentResponder {
  name: string;
  email: string;
  /** The tenant user invited to the channel; null when the person is not a user of the tenant. */
  user_id: string | null;
  invited: boolean;
}

export const TIMELINE_KINDS = [
  'opened',
  'alert',
  'channel_created',
  'responder_invited',
  'runbook_attached',
  'summary_posted',
  'acknowledged',
  'escalated',
  'note',
  'resolved',
  'auto_resolved',
] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

export interface TimelineRow {
  id: string;
  tenant_id: string;
  incident_id: string;
  at: string;
  kind: TimelineKind;
  /** A user id, or null for the system. */
  actor: string | null;
  text: string;
  /** JSON object with the entry's particulars, or null. */
  data: string | null;
  /** Set for entries a retried flow must write once (unique per incident). */
  dedupe_key: string | null;
}

/** Which incident an alert went into: one row per alert, so a replayed alert never opens another. */
export interface IncidentAlertRow {
  tenant_id: string;
  alert_id: string;
  incident_id: string;
  created_at: string;
}

/** A tenant's runbook catalog entry and what it applies to (null: any). */
export interface RunbookRow {
  id: string;
  tenant_id: string;
  name: string;
  url: string;
  match_service: string | null;
  match_type: string | null;
  /** JSON object of label name to value, every one of which the alert must carry; null: none. */
  match_labels: string | null;
  created_at: string;
  updated_at: string;
}

export interface IncidentTables {
  incidents: IncidentRow;
  incident_timeline: TimelineRow;
  incident_alerts: IncidentAlertRow;
  incident_runbooks: RunbookRow;
}
