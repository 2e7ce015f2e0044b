import type { DeviceType } from '../../../shared/mqtt/topics.ts';
import type { ApplianceDatabase } from '../../db/index.ts';

export type DeviceStatus = 'online' | 'offline';
export type TemperatureState = 'ok' | 'high' | 'low';

export interface DeviceRow {
  id: string;
  location_id: string;
  device_type: DeviceType;
  status: DeviceStatus;
  firmware: string | null;
  first_seen_at: string;
  last_seen_at: string;
  updated_at: string;
  version: number;
  last_telemetry: string | null;
  last_telemetry_at: string | null;
  temperature_state: TemperatureState;
  synced_seen_at: string | null;
}

export interface SampleRow {
  device_id: string;
  at_ms: number;
  metrics: string;
}

export interface MinuteRow {
  id: string;
  device_id: string;
  location_id: string;
  minute: string;
  samples: number;
  metrics: string;
}

export interface AlertRow {
  id: string;
  device_id: string;
  source: 'threshold' | 'device';
  type: string;
  severity: string;
  description: string;
  raised_at: string;
  cleared_at: string | null;
  event_id: string | null;
}

/** The registry's tables: devices, their samples and minute summaries, settings and alerts. */
export function createDeviceStore(db: ApplianceDatabase) {
  const byId = db.prepare<[string], DeviceRow>('select * from store_devices where id = ?');
  const all = db.prepare<[], DeviceRow>('select * from store_devices order by device_type, id');
  const insert = db.prepare(
    `insert into store_devices (id, location_id, device_type, status, firmware, first_seen_at, last_seen_at, updated_at, synced_seen_at)
     values (@id, @location_id, @device_type, @status, @firmware, @first_seen_at, @last_seen_at, @updated_at, @last_seen_at)`,
  );
  // A new version: only what syncs (status, firmware, the sighting) moves it.
  const revise = db.prepare<
    [{ id: string; status: DeviceStatus; firmware: string | null; at: string }],
    { version: number }
  >(
    `update store_devices set status = @status, firmware = @firmware, last_seen_at = max(last_seen_at, @at),
       synced_seen_at = max(last_seen_at, @at), updated_at = @at, version = version + 1
     where id = @id returning version`,
  );
  const touch = db.prepare('update store_devices set last_seen_at = max(last_seen_at, ?) where id = ?');
  const setTelemetry = db.prepare(
    'update store_devices set last_telemetry = ?, last_telemetry_at = ?, last_seen_at = max(last_seen_at, ?) where id = ?',
  );
  const setTemperatureState = db.prepare('update store_devices set temperature_state = ? where id = ?');
  const staleSightings = db.prepare<[string], DeviceRow>(
    'select * from store_devices where synced_seen_at < ? and last_seen_at > synced_seen_at',
  );

  const insertSample = db.prepare(
    'insert into device_telemetry (device_id, at_ms, metrics) values (?, ?, ?)',
  );
  const samplesOf = db.prepare<[string, number], SampleRow>(
    'select device_id, at_ms, metrics from device_telemetry where device_id = ? and at_ms >= ? order by at_ms, id',
  );
  const samplesBetween = db.prepare<[number, number], SampleRow>(
    'select device_id, at_ms, metrics from device_telemetry where at_ms >= ? and at_ms < ? order by device_id, at_ms, id',
  );
  const oldestSample = db.prepare<[number], { at_ms: number | null }>(
    'select min(at_ms) as at_ms from device_telemetry where at_ms >= ?',
  );
  const newestMinute = db.prepare<[], { minute: string | null }>(
    'select max(minute) as minute from device_telemetry_minutes',
  );
  const insertMinute = db.prepare(
    `insert into device_telemetry_minutes (id, device_id, location_id, minute, samples, metrics)
     values (@id, @device_id, @location_id, @minute, @samples, @metrics) on conflict do nothing`,
  );

  const settingsOf = db.prepare<[string], { settings: string }>(
    'select settings from device_settings where device_id = ?',
  );
  const putSettings = db.prepare(
    `insert into device_settings (device_id, settings, updated_at) values (?, ?, ?)
     on conflict (device_id) do update set settings = excluded.settings, updated_at = excluded.updated_at`,
  );

  const insertAlert = db.prepare(
    `insert into device_alerts (id, device_id, source, type, severity, description, raised_at, cleared_at, event_id)
     values (@id, @device_id, @source, @type, @severity, @description, @raised_at, @cleared_at, @event_id)`,
  );
  const clearAlerts = db.prepare(
    "update device_alerts set cleared_at = ? where device_id = ? and source = 'threshold' and cleared_at is null",
  );
  const alertById = db.prepare<[string], AlertRow>('select * from device_alerts where id = ?');
  const clearAlert = db.prepare(
    'update device_alerts set cleared_at = ? where id = ? and cleared_at is null',
  );
  const alerts = db.prepare<[number], AlertRow>(
    'select * from device_alerts order by raised_at desc, id desc limit ?',
  );
  const openAlerts = db.prepare<[number], AlertRow>(
    'select * from device_alerts where cleared_at is null order by raised_at desc, id desc limit ?',
  );

  const pruneSamples = db.prepare('delete from device_telemetry where at_ms < ?');
  const pruneMinutes = db.prepare('delete from device_telemetry_minutes where minute < ?');
  const pruneAlerts = db.prepare('delete from device_alerts where cleared_at is not null and raised_at < ?');

  return {
    device: (id: string) => byId.get(id),
    devices: () => all.all(),
    insertDevice: (
      row: Omit<
        DeviceRow,
        'version' | 'last_telemetry' | 'last_telemetry_at' | 'temperature_state' | 'synced_seen_at'
      >,
    ) => insert.run(row),
    /** Writes what syncs of a device; answers its new version. */
    revise: (id: string, status: DeviceStatus, firmware: string | null, at: string) =>
      revise.get({ id, status, firmware, at })!.version,
    touch: (id: string, at: string) => touch.run(at, id),
    setTelemetry: (id: string, metrics: string, at: string) => setTelemetry.run(metrics, at, at, id),
    setTemperatureState: (id: string, state: TemperatureState) => setTemperatureState.run(state, id),
    /** Devices whose last sighting the cloud has not had since `before`. */
    staleSightings: (before: string) => staleSightings.all(before),

    insertSample: (deviceId: string, atMs: number, metrics: string) =>
      insertSample.run(deviceId, atMs, metrics),
    samplesOf: (deviceId: string, fromMs: number) => samplesOf.all(deviceId, fromMs),
    samplesBetween: (fromMs: number, toMs: number) => samplesBetween.all(fromMs, toMs),
    oldestSample: (fromMs: number) => oldestSample.get(fromMs)?.at_ms ?? undefined,
    newestMinute: () => newestMinute.get()?.minute ?? undefined,
    /** True when the summary is new (a minute is summarised once). */
    insertMinute: (row: MinuteRow) => insertMinute.run(row).changes === 1,

    settings: (deviceId: string) => settingsOf.get(deviceId)?.settings,
    putSettings: (deviceId: string, settings: string, at: string) => putSettings.run(deviceId, settings, at),

    insertAlert: (row: AlertRow) => insertAlert.run(row),
    clearThresholdAlerts: (deviceId: string, at: string) => clearAlerts.run(at, deviceId),
    alert: (id: string) => alertById.get(id),
    clearAlert: (id: string, at: string) => clearAlert.run(at, id),
    alerts: (options: { open: boolean; limit: number }) =>
      (options.open ? openAlerts : alerts).all(options.limit),

    prune(cutoff: Date) {
      return {
        samples: pruneSamples.run(cutoff.getTime()).changes,
        minutes: pruneMinutes.run(cutoff.toISOString()).changes,
        alerts: pruneAlerts.run(cutoff.toISOString()).changes,
      };
    },
  };
}

export type DeviceStore = ReturnType<typeof createDeviceStore>;
