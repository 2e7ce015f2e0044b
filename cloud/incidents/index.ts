/**
 * Incidents: what goes wrong in a tenant's stores and who is on it. Owns the incidents, their
 * timeline, the alert-to-incident links and the runbook catalog; served under /v1/incidents
 * (the device form) and /api/v1/incidents (the title form, timeline and runbooks). Opens
 * incidents from a store's synced `device.temperature_alert` events through the event log's
 * consumers, in the transaction that records them. The chat incident flow
 * (cloud/flows/alert-incident.ts) opens them from fired alerts through the service.
 */
export type { AlertSnapshot } from './alert-incidents.ts';
export {
  DEFAULT_INCIDENT_FLOW_CONFIG,
  INCIDENT_FLOW_SETTINGS,
  INCIDENT_FLOW_VARIABLES,
  type IncidentFlowConfig,
  loadIncidentFlowConfig,
} from './config.ts';
export { DEVICE_ALERT_EVENTS } from './device-alerts.ts';
export { INCIDENT_ROLES, incidentRoutes } from './routes.ts';
export { incidentApiRoutes } from './routes-api.ts';
export { bestRunbook, type RunbookSubject } from './runbooks.ts';
export {
  type Actor,
  createIncidentService,
  type IncidentChange,
  type IncidentDeps,
  type IncidentService,
} from './service.ts';
export type { IncidentTables } from './tables.ts';
export {
  INCIDENT_SEVERITIES,
  INCIDENT_SOURCES,
  INCIDENT_STATUSES,
  type IncidentResponder,
  type IncidentSeverity,
  type IncidentStatus,
  TIMELINE_KINDS,
  type TimelineKind,
} from './tables.ts';
export type { TimelineInput } from './timeline.ts';
export type { Incident, TimelineEntry } from './views.ts';
