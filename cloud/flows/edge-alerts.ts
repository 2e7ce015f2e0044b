/**
 * A store's alerts become alerting's alerts: the synced `device.temperature_alert` and
 * `vision.alert` events are ingested with source `edge_metrics`, in the transaction of the push that
 * brought them (the event log's consumers). Labels carry device_id, location_id and type, so the
 * incident flow can fold an alert-born incident into the device's open incident. A vision alert
 * that clears resolves its alert.
 */
import type { Logger } from 'pino';
import type { AlertingService, IngestBody, Severity } from '../alerting/index.ts';
import type { DomainEventRow, EventLog } from '../events/index.ts';

export const EDGE_SOURCE = 'edge_metrics';

const TEMPERATURE_SEVERITY: Record<string, Severity> = {
  critical: 'P1',
  high: 'P2',
  medium: 'P3',
  low: 'P4',
};
const VISION_SEVERITY: Record<string, Severity> = { critical: 'P2', warning: 'P3' };

const text = (value: unknown, max: number) =>
  typeof value === 'string' && value.trim() !== '' ? value.slice(0, max) : undefined;

function parse(event: DomainEventRow): Record<string, unknown> | undefined {
  try {
    const data: unknown = JSON.parse(event.data);
    return typeof data === 'object' && data !== null && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const labelsOf = (entries: Record<string, string | undefined>) =>
  Object.fromEntries(
    Object.entries(entries).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );

/** The store that pushed an event is authoritative for its location (sync checked the scope). */
function temperatureAlert(event: DomainEventRow, data: Record<string, unknown>): IngestBody | undefined {
  const deviceId = text(data.device_id, 128);
  if (!deviceId) return undefined;
  const deviceType = text(data.device_type, 64) ?? 'device';
  return {
    source: EDGE_SOURCE,
    severity: TEMPERATURE_SEVERITY[String(data.severity)] ?? 'P2',
    title: `Temperature alert: ${deviceType} ${deviceId}`,
    description: text(data.description, 4000) ?? 'temperature out of bounds',
    service: 'devices',
    labels: labelsOf({
      type: 'temperature_alert',
      device_id: deviceId,
      location_id: event.location_id ?? text(data.location_id, 100),
      device_type: deviceType,
    }),
  };
}

function visionAlert(event: DomainEventRow, data: Record<string, unknown>): IngestBody | undefined {
  const cameraId = text(data.camera_id, 128);
  const metric = text(data.metric, 64);
  if (!cameraId || !metric) return undefined;
  const value = typeof data.value === 'number' ? data.value : null;
  return {
    source: EDGE_SOURCE,
    severity: VISION_SEVERITY[String(data.severity)] ?? 'P3',
    title: `Camera ${metric} out of bounds: ${cameraId}`,
    description: `${metric} is ${value ?? 'unknown'} (threshold ${String(data.threshold ?? 'unknown')}, ${String(data.severity ?? 'warning')})`,
    service: 'vision',
    labels: labelsOf({
      type: `vision_${metric}`,
      device_id: cameraId,
      camera_id: cameraId,
      location_id: event.location_id ?? undefined,
      metric,
      model_id: text(data.model_id, 128),
    }),
  };
}

/** The event log's consumer: never throws for an event's content (it would refuse the store's batch). */
export function linkEdgeAlerts(events: EventLog, alerting: AlertingService, log: Logger) {
  events.consume(async (tx, rows) => {
    for (const event of rows) {
      if (event.type !== 'device.temperature_alert' && event.type !== 'vision.alert') continue;
      const data = parse(event);
      const alert =
        data && (event.type === 'vision.alert' ? visionAlert(event, data) : temperatureAlert(event, data));
      if (!data || !alert) {
        log.warn(
          { eventId: event.id, tenantId: event.tenant_id, type: event.type },
          'edge alert event unreadable',
        );
        continue;
      }
      if (data.state === 'cleared') await alerting.resolveWithin(tx, event.tenant_id, alert, EDGE_SOURCE);
      else await alerting.ingestWithin(tx, event.tenant_id, alert);
    }
  });
}
