import type { Logger } from 'pino';
import type { Clock } from '../../../shared/clock.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import type { DeviceType } from '../../../shared/mqtt/topics.ts';
import type { ApplianceDatabase, ChangeLog } from '../../db/index.ts';
import { createDeviceAlerts, type DeviceAlertMessage, type DeviceSettings } from './alerts.ts';
import { alertNotFound, deviceNotFound } from './errors.ts';
import { createDeviceStore, type DeviceRow, type DeviceStatus } from './store.ts';
import { createTelemetry, type TelemetryPeriod } from './telemetry.ts';

export interface DeviceRef {
  deviceId: string;
  deviceType: DeviceType;
}

export interface DeviceRegistryDeps {
  db: ApplianceDatabase;
  changes: ChangeLog;
  clock: Clock;
  newId: IdGenerator;
  locationId: string;
  log?: Logger | undefined;
}

export interface DeviceRegistryOptions {
  telemetryRetentionDays: number;
  /** Samples and sightings are written together this often: one commit, not one per message. */
  flushIntervalMs: number;
  /** Minute summaries, sightings for the cloud and retention run this often. */
  maintenanceIntervalMs: number;
  /** The cloud hears of a device still being around at most this often (without other news). */
  sightingSyncMs: number;
}

export const DEFAULT_REGISTRY_OPTIONS: DeviceRegistryOptions = {
  telemetryRetentionDays: 7,
  flushIntervalMs: 1000,
  maintenanceIntervalMs: 60_000,
  sightingSyncMs: 5 * 60_000,
};

/** Samples held at most before a flush is brought forward. */
const MAX_PENDING = 1000;

const toDevice = (row: DeviceRow, settings: DeviceSettings) => ({
  id: row.id,
  device_type: row.device_type,
  location_id: row.location_id,
  status: row.status,
  firmware: row.firmware,
  first_seen_at: row.first_seen_at,
  last_seen_at: row.last_seen_at,
  last_telemetry:
    row.last_telemetry === null ? null : (JSON.parse(row.last_telemetry) as Record<string, unknown>),
  last_telemetry_at: row.last_telemetry_at,
  settings,
});
export type Device = ReturnType<typeof toDevice>;

/**
 * The store's devices as its broker sees them: first and last seen, online or offline, firmware,
 * last telemetry, with every sample kept for a while and the rest of the story synced up. What
 * changes a device's synced row (it came, went, changed firmware) is written at once with its
 * outbox row; the stream of samples and sightings is gathered and written once a second.
 */
export function createDeviceRegistry(deps: DeviceRegistryDeps, options: Partial<DeviceRegistryOptions> = {}) {
  const settings = { ...DEFAULT_REGISTRY_OPTIONS, ...options };
  const { db, changes, clock } = deps;
  const store = createDeviceStore(db);
  const alerts = createDeviceAlerts({ ...deps, store });
  const telemetry = createTelemetry({ ...deps, store });
  let pending: Array<{ deviceId: string; atMs: number; metrics: Record<string, unknown> }> = [];
  const sightings = new Map<string, string>();
  const timers: NodeJS.Timeout[] = [];
  let running = false;
  const now = () => clock.now().toISOString();
  /** Work on a timer: a failure is logged and the next turn tries again; it never ends the process. */
  const onTimer = (what: string, work: () => void) => () => {
    if (!running) return;
    try {
      work();
    } catch (error) {
      deps.log?.error({ err: error, what }, 'device registry work failed');
    }
  };

  /** A device's synced row: created when first seen, revised only when what syncs changed. */
  function write(ref: DeviceRef, patch: { status?: DeviceStatus; firmware?: string | undefined }) {
    return db.transaction(() => {
      const at = now();
      const row = store.device(ref.deviceId);
      if (!row) {
        store.insertDevice({
          id: ref.deviceId,
          location_id: deps.locationId,
          device_type: ref.deviceType,
          status: patch.status ?? 'online',
          firmware: patch.firmware ?? null,
          first_seen_at: at,
          last_seen_at: at,
          updated_at: at,
        });
        changes.recordChange({
          table: 'store_devices',
          rowId: ref.deviceId,
          operation: 'insert',
          version: 1,
        });
        deps.log?.info({ deviceId: ref.deviceId, deviceType: ref.deviceType }, 'device first seen');
        return store.device(ref.deviceId)!;
      }
      const status = patch.status ?? row.status;
      const firmware = patch.firmware ?? row.firmware;
      if (status === row.status && firmware === row.firmware) return row;
      const version = store.revise(row.id, status, firmware, at);
      changes.recordChange({ table: 'store_devices', rowId: row.id, operation: 'update', version });
      if (status !== row.status) deps.log?.info({ deviceId: row.id, status }, 'device status changed');
      return store.device(row.id)!;
    })();
  }

  const known = (ref: DeviceRef) => store.device(ref.deviceId) ?? write(ref, {});

  function flush() {
    if (pending.length === 0 && sightings.size === 0) return;
    const samples = pending;
    pending = [];
    const seen = [...sightings];
    sightings.clear();
    db.transaction(() => {
      const devices = new Map<string, DeviceRow | undefined>();
      for (const sample of samples) {
        const at = new Date(sample.atMs).toISOString();
        const json = JSON.stringify(sample.metrics);
        store.insertSample(sample.deviceId, sample.atMs, json);
        store.setTelemetry(sample.deviceId, json, at);
        if (!devices.has(sample.deviceId)) devices.set(sample.deviceId, store.device(sample.deviceId));
        const device = devices.get(sample.deviceId);
        if (device) alerts.checkSample(device, sample.metrics);
      }
      for (const [deviceId, at] of seen) store.touch(deviceId, at);
    })();
  }

  /** The cloud hears that a quiet device is still around, at most every sightingSyncMs. */
  function syncSightings() {
    const before = new Date(clock.now().getTime() - settings.sightingSyncMs).toISOString();
    db.transaction(() => {
      for (const row of store.staleSightings(before)) {
        const version = store.revise(row.id, row.status, row.firmware, row.last_seen_at);
        changes.recordChange({ table: 'store_devices', rowId: row.id, operation: 'update', version });
      }
    })();
  }

  function maintain() {
    flush();
    const summaries = telemetry.summarize();
    syncSightings();
    const cutoff = new Date(clock.now().getTime() - settings.telemetryRetentionDays * 86_400_000);
    const pruned = store.prune(cutoff);
    if (pruned.samples > 0) deps.log?.info({ ...pruned, summaries }, 'device telemetry pruned');
  }

  /** Marks every device offline: at start nobody is connected yet, whatever the last run saw. */
  function markAllOffline() {
    for (const row of store.devices())
      if (row.status === 'online')
        write({ deviceId: row.id, deviceType: row.device_type }, { status: 'offline' });
  }

  function requireDevice(id: string) {
    const row = store.device(id);
    if (!row) throw deviceNotFound();
    return row;
  }

  return {
    connected: (ref: DeviceRef) => void write(ref, { status: 'online' }),
    disconnected(deviceId: string) {
      const row = store.device(deviceId);
      if (row?.status === 'online') write({ deviceId, deviceType: row.device_type }, { status: 'offline' });
    },
    /** A device's status message: `online` (true unless said otherwise) and its firmware. */
    reported(ref: DeviceRef, status: { online?: unknown; firmware?: unknown }) {
      const firmware = typeof status.firmware === 'string' ? status.firmware.slice(0, 64) : undefined;
      const online = status.online !== false;
      write(ref, { status: online ? 'online' : 'offline', firmware });
      // A repeated status is a heartbeat: it moves the last sighting, not the synced row.
      if (online) sightings.set(ref.deviceId, now());
    },
    /** The device said something: it is around. Written with the next flush. */
    sighted(ref: DeviceRef) {
      known(ref);
      sightings.set(ref.deviceId, now());
    },
    telemetry(ref: DeviceRef, metrics: Record<string, unknown>) {
      known(ref);
      pending.push({ deviceId: ref.deviceId, atMs: clock.now().getTime(), metrics });
      if (pending.length === MAX_PENDING) setImmediate(onTimer('flush', flush));
    },
    deviceAlert(ref: DeviceRef, message: DeviceAlertMessage) {
      const device = known(ref);
      return db.transaction(() => alerts.deviceAlert(device, message))();
    },
    flush,
    maintain,
    summarize: () => telemetry.summarize(),

    device: (id: string): Device | undefined => {
      const row = store.device(id);
      return row && toDevice(row, alerts.settingsOf(id));
    },
    get: (id: string) => toDevice(requireDevice(id), alerts.settingsOf(id)),
    list: () => store.devices().map((row) => toDevice(row, alerts.settingsOf(row.id))),
    telemetryFor: (id: string, period: TelemetryPeriod) => telemetry.query(requireDevice(id).id, period),
    alerts: (options: { open: boolean; limit: number }) => alerts.list(options),
    clearAlert(id: string) {
      if (!store.alert(id)) throw alertNotFound();
      store.clearAlert(id, now());
      return store.alert(id)!;
    },
    /** A device's settings; the device need not have connected yet (the cloud may set them first). */
    putSettings: (deviceId: string, value: DeviceSettings) => alerts.putSettings(deviceId, value),
    settingsOf: (deviceId: string) => alerts.settingsOf(deviceId),

    start() {
      markAllOffline();
      running = true;
      timers.push(
        setInterval(onTimer('flush', flush), settings.flushIntervalMs),
        setInterval(onTimer('maintain', maintain), settings.maintenanceIntervalMs),
      );
      for (const timer of timers) timer.unref();
    },
    /** Writes what is gathered; call it before the store closes. */
    stop() {
      running = false;
      for (const timer of timers.splice(0)) clearInterval(timer);
      flush();
    },
  };
}

export type DeviceRegistry = ReturnType<typeof createDeviceRegistry>;
