/**
 * Alerts become incidents: one incident per alert however often its listener runs, and an alert
 * about a device (labels `device_id` and `type`) folds into that device's unresolved incident of
 * the same type, as a repeat of the device form does.
 */
import type { NewIncidentBody } from './schemas.ts';
import type { IncidentRow, IncidentSeverity } from './tables.ts';

/** What the incident module reads of an alert (alerting's record has more). */
export interface AlertSnapshot {
  id: string;
  severity: string;
  title: string;
  service: string;
  started_at: string;
  description?: string | null | undefined;
  labels?: Record<string, string> | null | undefined;
  runbook_url?: string | null | undefined;
}

const SEVERITY_OF_PRIORITY: Record<string, IncidentSeverity> = {
  P1: 'critical',
  P2: 'high',
  P3: 'medium',
  P4: 'low',
  P5: 'low',
};

/** P1 critical, P2 high, P3 medium, P4 and P5 low. */
export const incidentSeverity = (priority: string): IncidentSeverity =>
  SEVERITY_OF_PRIORITY[priority] ?? 'high';

const TEXT = { title: 200, description: 2000, label: 128 };

/** The device and type an alert names through its labels, when it names both. */
export function deviceOfAlert(alert: AlertSnapshot) {
  const labels = alert.labels ?? {};
  const deviceId = labels.device_id?.trim();
  const type = labels.type?.trim();
  if (!deviceId || !type) return undefined;
  return {
    deviceId: deviceId.slice(0, TEXT.label),
    type: type.slice(0, 64),
    locationId: labels.location_id?.trim().slice(0, TEXT.label) || null,
  };
}

export function alertIncidentRow(
  tenantId: string,
  alert: AlertSnapshot,
  id: string,
  now: string,
): IncidentRow {
  const device = deviceOfAlert(alert);
  return {
    id,
    tenant_id: tenantId,
    type: device?.type ?? alert.labels?.type?.slice(0, 64) ?? null,
    title: alert.title.slice(0, TEXT.title),
    severity: incidentSeverity(alert.severity),
    status: 'open',
    service: alert.service,
    description: alert.description?.slice(0, TEXT.description) ?? null,
    runbook_url: null,
    device_id: device?.deviceId ?? null,
    location_id: device?.locationId ?? null,
    source: 'alert',
    source_event_id: null,
    occurrences: 1,
    last_occurred_at: alert.started_at,
    created_at: now,
    updated_at: now,
    acknowledged_at: null,
    acknowledged_by: null,
    resolved_at: null,
    resolved_by: null,
    alert_id: alert.id,
    channel_id: null,
    runbook_id: null,
    responders: null,
    started_at: alert.started_at,
    last_activity_at: now,
  };
}

/** The title form's incident (POST /api/v1/incidents). */
export function titleIncidentRow(
  tenantId: string,
  input: NewIncidentBody,
  id: string,
  now: string,
  runbook: { url: string | null; id: string | null },
): IncidentRow {
  return {
    ...alertIncidentRow(
      tenantId,
      { id: '', severity: '', title: input.title, service: '', started_at: now },
      id,
      now,
    ),
    severity: input.severity,
    service: input.service ?? null,
    description: input.description ?? null,
    source: 'api',
    alert_id: null,
    runbook_url: runbook.url,
    runbook_id: runbook.id,
  };
}
