/** Incidents as the API shows them. */
import type { IncidentRow } from './tables.ts';

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
  device_id: row.device_id,
  location_id: row.location_id,
  source: row.source,
  source_event_id: row.source_event_id,
  occurrences: Number(row.occurrences),
  last_occurred_at: row.last_occurred_at,
  created_at: row.created_at,
  updated_at: row.updated_at,
  acknowledged_at: row.acknowledged_at,
  acknowledged_by: row.acknowledged_by,
  resolved_at: row.resolved_at,
  resolved_by: row.resolved_by,
});

export type Incident = ReturnType<typeof toIncident>;
