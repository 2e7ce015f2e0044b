/**
 * Device alerts: a temperature past the limits a device's settings give, and the alerts devices
 * raise themselves. Each becomes a kiosk alert (device_alerts, read by GET /v1/devices/alerts);
 * a temperature alert is also the domain event `device.temperature_alert`, written through the
 * change log so it syncs up, whose data is the alerting API's device form of an incident. Turning
 * it into an incident is the cloud's alerting (issue 10), not the store's.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { Clock } from '../../../shared/clock.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import type { ChangeLog } from '../../db/index.ts';
import type { AlertRow, DeviceRow, DeviceStore, TemperatureState } from './store.ts';

export const DeviceSettingsSchema = Type.Object(
  {
    max_temperature_c: Type.Optional(Type.Number({ minimum: -100, maximum: 300 })),
    min_temperature_c: Type.Optional(Type.Number({ minimum: -100, maximum: 300 })),
  },
  { additionalProperties: false },
);
export type DeviceSettings = Static<typeof DeviceSettingsSchema>;

/** The metric names a temperature arrives under. */
export const TEMPERATURE_METRICS = ['temperature_c', 'temperature'] as const;
/**
 * Back within its limits by this much before an alert clears: a fridge hovering at its maximum
 * would otherwise raise an alert every few samples.
 */
export const HYSTERESIS_C = 0.5;

const SEVERITIES = ['low', 'medium', 'high', 'critical'];

/** What a device may say on its alert topic; anything else in the object is ignored. */
export interface DeviceAlertMessage {
  type?: unknown;
  severity?: unknown;
  description?: unknown;
  message?: unknown;
}

export interface AlertDeps {
  store: DeviceStore;
  changes: ChangeLog;
  clock: Clock;
  newId: IdGenerator;
  locationId: string;
}

const label = (device: DeviceRow) => `${device.device_type} ${device.id}`;

export function createDeviceAlerts(deps: AlertDeps) {
  const { store, changes } = deps;

  /** Inside the caller's transaction: the kiosk alert, and for temperature the domain event. */
  function raise(device: DeviceRow, alert: Pick<AlertRow, 'source' | 'type' | 'severity' | 'description'>) {
    const temperature = alert.type.includes('temperature');
    const eventId = temperature
      ? changes.emit('device.temperature_alert', {
          type: 'temperature_alert',
          device_id: device.id,
          location_id: device.location_id,
          severity: 'high',
          description: alert.description,
          // Beyond the documented form: the cloud names the device by it in the incident's title.
          device_type: device.device_type,
        })
      : null;
    const row: AlertRow = {
      id: deps.newId(),
      device_id: device.id,
      ...alert,
      raised_at: deps.clock.now().toISOString(),
      cleared_at: null,
      event_id: eventId,
    };
    store.insertAlert(row);
    return row;
  }

  function settingsOf(deviceId: string): DeviceSettings {
    const raw = store.settings(deviceId);
    return raw ? (JSON.parse(raw) as DeviceSettings) : {};
  }

  function stateFor(value: number, current: TemperatureState, limits: DeviceSettings): TemperatureState {
    const { max_temperature_c: max, min_temperature_c: min } = limits;
    if (max !== undefined && value > max) return 'high';
    if (min !== undefined && value < min) return 'low';
    if (current === 'high' && max !== undefined && value > max - HYSTERESIS_C) return 'high';
    if (current === 'low' && min !== undefined && value < min + HYSTERESIS_C) return 'low';
    return 'ok';
  }

  return {
    settingsOf,

    /** Replaces a device's settings (a manager, or the cloud's settings command for the device). */
    putSettings(deviceId: string, settings: DeviceSettings) {
      store.putSettings(deviceId, JSON.stringify(settings), deps.clock.now().toISOString());
      return settings;
    },

    /** Inside the telemetry flush: one sample's temperature against the device's limits. */
    checkSample(device: DeviceRow, metrics: Record<string, unknown>): AlertRow | undefined {
      const name = TEMPERATURE_METRICS.find((metric) => typeof metrics[metric] === 'number');
      if (!name) return undefined;
      const value = metrics[name] as number;
      const limits = settingsOf(device.id);
      const next = stateFor(value, device.temperature_state, limits);
      if (next === device.temperature_state) return undefined;
      store.setTemperatureState(device.id, next);
      device.temperature_state = next;
      if (next === 'ok') {
        store.clearThresholdAlerts(device.id, deps.clock.now().toISOString());
        return undefined;
      }
      const limit = next === 'high' ? limits.max_temperature_c : limits.min_temperature_c;
      const description = `${label(device)} reads ${value} °C, ${next === 'high' ? 'above its maximum' : 'below its minimum'} of ${limit} °C`;
      return raise(device, { source: 'threshold', type: 'temperature_alert', severity: 'high', description });
    },

    /** Inside a transaction: what a device published on its alert topic. */
    deviceAlert(device: DeviceRow, message: DeviceAlertMessage) {
      const type =
        typeof message.type === 'string' && message.type ? message.type.slice(0, 64) : 'device_alert';
      const severity =
        typeof message.severity === 'string' && SEVERITIES.includes(message.severity)
          ? message.severity
          : 'high';
      const text = [message.description, message.message].find((v) => typeof v === 'string' && v);
      const description = (typeof text === 'string' ? text : `${label(device)} raised ${type}`).slice(0, 500);
      return raise(device, { source: 'device', type, severity, description });
    },

    list: (options: { open: boolean; limit: number }) => store.alerts(options),
  };
}

export type DeviceAlerts = ReturnType<typeof createDeviceAlerts>;

export const isDeviceSettings = (value: unknown): value is DeviceSettings =>
  Value.Check(DeviceSettingsSchema, value);
