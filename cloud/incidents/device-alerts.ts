/**
 * Device alerts become incidents, whether a create request or a store's synced
 * `device.temperature_alert` event brings them: the device form of an incident.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { DomainEventRow, EventConsumer } from '../events/index.ts';
import { appendTimeline, openOrRepeat } from './store.ts';
import {
  DEFAULT_SEVERITY,
  INCIDENT_SEVERITIES,
  type IncidentRow,
  type IncidentSeverity,
  type IncidentSource,
  type TimelineRow,
} from './tables.ts';

export const DEVICE_ALERT_EVENTS = ['device.temperature_alert'] as const;

const TITLE_MAX = 200;
const DESCRIPTION_MAX = 2000;

export interface DeviceAlert {
  tenantId: string;
  type: string;
  deviceId: string | null;
  locationId: string | null;
  severity: IncidentSeverity;
  description: string | null;
  /** How the title names the device and the store: a type or a name when known, else the id. */
  deviceLabel: string;
  locationLabel: string;
  occurredAt: string;
  source: IncidentSource;
  sourceEventId: string | null;
}

/** `temperature_alert` → `Temperature alert`. */
const humanize = (type: string) => {
  const words = type.replaceAll('_', ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
};

export const deviceAlertTitle = (alert: Pick<DeviceAlert, 'type' | 'deviceLabel' | 'locationLabel'>) =>
  `${humanize(alert.type)}: ${alert.deviceLabel} at ${alert.locationLabel}`.slice(0, TITLE_MAX);

export const deviceLabel = (deviceType: string | undefined, deviceId: string | null) =>
  deviceType ?? (deviceId ? `device ${deviceId}` : 'unknown device');

export const locationLabel = (name: string | undefined, locationId: string | null) =>
  name ?? (locationId ? `location ${locationId}` : 'unknown location');

export function deviceIncidentRow(alert: DeviceAlert, id: string, now: string): IncidentRow {
  return {
    id,
    tenant_id: alert.tenantId,
    type: alert.type,
    title: deviceAlertTitle(alert),
    severity: alert.severity,
    status: 'open',
    service: null,
    description: alert.description?.slice(0, DESCRIPTION_MAX) ?? null,
    runbook_url: null,
    device_id: alert.deviceId,
    location_id: alert.locationId,
    source: alert.source,
    source_event_id: alert.sourceEventId,
    occurrences: 1,
    last_occurred_at: alert.occurredAt,
    created_at: now,
    updated_at: now,
    acknowledged_at: null,
    acknowledged_by: null,
    resolved_at: null,
    resolved_by: null,
    alert_id: null,
    channel_id: null,
    runbook_id: null,
    responders: null,
    started_at: alert.occurredAt,
    last_activity_at: now,
  };
}

/** The timeline entry of a device alert: `opened` for a new incident, `alert` for a fold. */
export function occurrenceEntry(
  row: IncidentRow,
  openedId: string,
  entryId: string,
  at: string,
  description: string | null,
): TimelineRow {
  const opened = row.id === openedId;
  return {
    id: entryId,
    tenant_id: row.tenant_id,
    incident_id: row.id,
    at,
    kind: opened ? 'opened' : 'alert',
    actor: null,
    text: opened ? `Opened: ${row.title}` : `Repeat alert (${row.occurrences}): ${description ?? row.title}`,
    data: null,
    dedupe_key: null,
  };
}

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

const severityOf = (value: unknown): IncidentSeverity =>
  (INCIDENT_SEVERITIES as readonly unknown[]).includes(value)
    ? (value as IncidentSeverity)
    : DEFAULT_SEVERITY;

function parseData(json: string): Record<string, unknown> | undefined {
  try {
    const data: unknown = JSON.parse(json);
    return typeof data === 'object' && data !== null && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function isoOr(value: unknown, fallback: string) {
  const at = typeof value === 'string' ? new Date(value) : undefined;
  return at && !Number.isNaN(at.getTime()) ? at.toISOString() : fallback;
}

/**
 * The alert an event carries. The store that pushed it is authoritative for its location (sync
 * checked the scope), so the event's location wins over one in its data.
 */
export function alertFromEvent(event: DomainEventRow): DeviceAlert | undefined {
  const data = parseData(event.data);
  if (!data) return undefined;
  const deviceId = text(data.device_id)?.slice(0, 128) ?? null;
  const locationId = event.location_id ?? text(data.location_id) ?? null;
  return {
    tenantId: event.tenant_id,
    // The event's name classifies it (`device.temperature_alert` → `temperature_alert`).
    type: event.type.slice('device.'.length),
    deviceId,
    locationId,
    severity: severityOf(data.severity),
    description: text(data.description) ?? null,
    deviceLabel: deviceLabel(text(data.device_type)?.slice(0, 64), deviceId),
    locationLabel: locationLabel(text(data.location_name)?.slice(0, 120), locationId),
    occurredAt: isoOr(event.occurred_at, event.received_at),
    source: 'event',
    sourceEventId: event.id,
  };
}

/**
 * The event log's consumer: runs in the transaction that appends the events (a sync push), reads
 * and writes only through it, and never throws for an event's content, which would refuse the
 * store's whole batch; an unreadable alert is logged and skipped.
 */
export function incidentsFromEvents(deps: { clock: Clock; newId: IdGenerator; log: Logger }): EventConsumer {
  const alertEvents = new Set<string>(DEVICE_ALERT_EVENTS);
  return async (db, events) => {
    for (const event of events) {
      if (!alertEvents.has(event.type)) continue;
      const alert = alertFromEvent(event);
      if (!alert) {
        deps.log.warn({ event_id: event.id, tenant_id: event.tenant_id }, 'device alert event unreadable');
        continue;
      }
      const at = deps.clock.now().toISOString();
      const id = deps.newId();
      const row = await openOrRepeat(db, deviceIncidentRow(alert, id, at));
      await appendTimeline(db, occurrenceEntry(row, id, deps.newId(), at, alert.description));
    }
  };
}
