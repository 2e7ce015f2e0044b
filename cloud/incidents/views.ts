/** Incidents as the API shows them. */
import type { IncidentResponder, IncidentRow, RunbookRow, TimelineRow } from './tables.ts';

const parseJson = <T>(json: string | null, fallback: T): T => {
  if (json === null) return fallback;
  try {
    return JSON.parse(json) as T;
  } catch {
    return fallback;
  }
};

/**
 * The whole record. /v1/incidents' response schema shows the device form's fields of it;
 * /api/v1/incidents shows all of them.
 */
export const toIncident = (row: IncidentRow) => ({
  id: row.id,
  tenant_id: row.tenant_id,
  type: row.type,
  title: row.title,
  severity: row.severity,
  status: row.status,
  service: row.service,
  description: row.description,
  runbook_url: row.runbook_url,
  runbook_id: row.runbook_id,
  device_id: row.device_id,
  location_id: row.location_id,
  source: row.source,
  source_event_id: row.source_event_id,
  alert_id: row.alert_id,
  channel_id: row.channel_id,
  responders: parseJson<IncidentResponder[]>(row.responders, []),
  occurrences: Number(row.occurrences),
  started_at: row.started_at ?? row.created_at,
  last_occurred_at: row.last_occurred_at,
  last_activity_at: row.last_activity_at ?? row.updated_at,
  created_at: row.created_at,
  updated_at: row.updated_at,
  acknowledged_at: row.acknowledged_at,
  acknowledged_by: row.acknowledged_by,
  resolved_at: row.resolved_at,
  resolved_by: row.resolved_by,
});

export type Incident = ReturnType<typeof toIncident>;

export const toTimelineEntry = (row: TimelineRow) => ({
  id: row.id,
  incident_id: row.incident_id,
  at: row.at,
  kind: row.kind,
  actor: row.actor,
  text: row.text,
  data: parseJson<Record<string, unknown> | null>(row.data, null),
});

export type TimelineEntry = ReturnType<typeof toTimelineEntry>;

export const toRunbook = (row: RunbookRow) => ({
  id: row.id,
  name: row.name,
  url: row.url,
  match: {
    service: row.match_service,
    type: row.match_type,
    labels: parseJson<Record<string, string>>(row.match_labels, {}),
  },
  created_at: row.created_at,
  updated_at: row.updated_at,
});

export type Runbook = ReturnType<typeof toRunbook>;
