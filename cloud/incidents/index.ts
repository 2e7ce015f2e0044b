/**
 * Incidents: what goes wrong in a tenant's stores and who is on it. Owns the incidents table;
 * served under /v1/incidents (spec 3's device form). Opens incidents from a store's synced
 * `device.temperature_alert` events through the event log's consumers, in the transaction that
 * records them. Alerting, chat and AIOps build on the service, never on the table.
 */
export { DEVICE_ALERT_EVENTS } from './device-alerts.ts';
export { INCIDENT_ROLES, incidentRoutes } from './routes.ts';
export { type Actor, createIncidentService, type IncidentDeps, type IncidentService } from './service.ts';
export {
  INCIDENT_SEVERITIES,
  INCIDENT_SOURCES,
  INCIDENT_STATUSES,
  type IncidentSeverity,
  type IncidentStatus,
} from './tables.ts';
export type { Incident } from './views.ts';
