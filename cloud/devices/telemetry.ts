/**
 * Device telemetry in the cloud: the minute summaries stores sync up (one row per device and
 * minute, whatever rate a sensor reports at), read back per period as per-metric aggregates and a
 * bounded series of points, the same answer the appliance gives from its own samples.
 */
import {
  aggregate,
  bucketOf,
  TELEMETRY_PERIODS,
  type TelemetryPeriod,
} from '../../shared/devices/telemetry.ts';
import type { Db } from '../db/index.ts';
import { type DeviceContext, nowIso, requireDevice } from './context.ts';
import { deviceIdsAt } from './store.ts';
import * as queries from './store-commands.ts';
import type { DeviceTelemetryRow } from './tables.ts';

export { TELEMETRY_PERIODS, type TelemetryPeriod } from '../../shared/devices/telemetry.ts';

/** Rows read per answer at most (the newest): a week of minutes is 10,080. */
export const MAX_ROWS = 12_000;

const INSERT_CHUNK = 500;

/** A row of the store's device_telemetry_minutes as sync delivers it. */
export interface StoreMinute {
  id: string;
  device_id: string;
  minute: string;
  samples: number;
  /** JSON text or the object: metric name to `{count, min, max, avg, last}`. */
  metrics: unknown;
}

export function createTelemetry(context: DeviceContext) {
  const db = context.store.db;
  return {
    /**
     * In the transaction applying a store's push: its minutes of devices the cloud registered at
     * that store. Minutes of devices it does not know (a development device on the plain
     * listener, another store's id) are dropped: the registry decides which devices exist.
     */
    async recordStoreMinutes(trx: Db, tenantId: string, locationId: string, minutes: StoreMinute[]) {
      if (minutes.length === 0) return 0;
      const known = new Set(
        await deviceIdsAt(trx, tenantId, locationId, [...new Set(minutes.map((m) => m.device_id))]),
      );
      const rows: DeviceTelemetryRow[] = minutes
        .filter((minute) => known.has(minute.device_id) && !Number.isNaN(Date.parse(minute.minute)))
        .map((minute) => ({
          id: minute.id,
          tenant_id: tenantId,
          device_id: minute.device_id,
          at: new Date(minute.minute).toISOString(),
          samples: minute.samples,
          metrics: typeof minute.metrics === 'string' ? minute.metrics : JSON.stringify(minute.metrics),
        }));
      // Chunks keep each statement under SQLite's limit of bound parameters.
      for (let start = 0; start < rows.length; start += INSERT_CHUNK)
        await queries.insertTelemetry(trx, rows.slice(start, start + INSERT_CHUNK));
      if (rows.length < minutes.length)
        context.log.debug(
          { tenantId, locationId, dropped: minutes.length - rows.length },
          'telemetry of unregistered devices dropped',
        );
      return rows.length;
    },

    async telemetryFor(tenantId: string, deviceId: string, period: TelemetryPeriod) {
      await requireDevice(context, tenantId, deviceId);
      const to = context.clock.now();
      const from = new Date(to.getTime() - TELEMETRY_PERIODS[period]);
      const window = { from: from.toISOString(), to: nowIso(context) };
      const rows = await queries.telemetry(db, tenantId, deviceId, window, MAX_ROWS + 1);
      const truncated = rows.length > MAX_ROWS;
      const buckets = (truncated ? rows.slice(1) : rows).map((row) =>
        bucketOf(Date.parse(row.at), row.samples, row.metrics),
      );
      return {
        device_id: deviceId,
        period,
        from: window.from,
        to: window.to,
        samples: buckets.reduce((n, bucket) => n + bucket.samples, 0),
        truncated,
        metrics: aggregate(buckets, from.getTime(), TELEMETRY_PERIODS[period]),
      };
    },
  };
}
