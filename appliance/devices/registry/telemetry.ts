/**
 * Telemetry: every sample kept for APPLIANCE_TELEMETRY_RETENTION_DAYS, and one summary per device
 * and finished minute written to the synced device_telemetry_minutes table, so the cloud's volume
 * does not follow a sensor's reporting rate. Periods read back as the cloud's telemetry endpoint
 * answers: per-metric count, min, max, mean, last and a bounded series of points.
 */
import type { Clock } from '../../../shared/clock.ts';
import {
  aggregate,
  type Bucket,
  bucketOf,
  summarise,
  TELEMETRY_PERIODS,
  type TelemetryPeriod,
} from '../../../shared/devices/telemetry.ts';
import type { IdGenerator } from '../../../shared/ids.ts';
import type { ApplianceDatabase, ChangeLog } from '../../db/index.ts';
import type { DeviceStore, SampleRow } from './store.ts';

export { TELEMETRY_PERIODS, type TelemetryPeriod } from '../../../shared/devices/telemetry.ts';

const MINUTE = 60_000;
/** How far back a summary pass looks when it has none to start after (a first start). */
const LOOKBACK_MS = 2 * 3_600_000;

const sampleBucket = (row: SampleRow): Bucket => bucketOf(row.at_ms, 1, row.metrics);
const minuteBucket = (row: { minute: string; samples: number; metrics: string }): Bucket =>
  bucketOf(Date.parse(row.minute), row.samples, row.metrics);

export interface TelemetryDeps {
  db: ApplianceDatabase;
  store: DeviceStore;
  changes: ChangeLog;
  clock: Clock;
  newId: IdGenerator;
  locationId: string;
}

export function createTelemetry(deps: TelemetryDeps) {
  const { db, store, changes, clock } = deps;
  const minutesOf = db.prepare<[string, string], { minute: string; samples: number; metrics: string }>(
    'select minute, samples, metrics from device_telemetry_minutes where device_id = ? and minute >= ? order by minute',
  );

  /** Writes a summary of each finished minute not summarised yet; answers how many. */
  function summarize(): number {
    const endMs = Math.floor(clock.now().getTime() / MINUTE) * MINUTE;
    const newest = store.newestMinute();
    const fromMs = newest ? Date.parse(newest) + MINUTE : store.oldestSample(endMs - LOOKBACK_MS);
    if (fromMs === undefined || fromMs >= endMs) return 0;
    const groups = new Map<string, SampleRow[]>();
    for (const sample of store.samplesBetween(fromMs, endMs)) {
      const key = `${sample.device_id}\n${Math.floor(sample.at_ms / MINUTE) * MINUTE}`;
      groups.set(key, [...(groups.get(key) ?? []), sample]);
    }
    let written = 0;
    db.transaction(() => {
      for (const [key, samples] of groups) {
        const [deviceId, minuteMs] = key.split('\n') as [string, string];
        const row = {
          id: deps.newId(),
          device_id: deviceId,
          location_id: deps.locationId,
          minute: new Date(Number(minuteMs)).toISOString(),
          samples: samples.length,
          metrics: JSON.stringify(summarise(samples.map(sampleBucket))),
        };
        if (!store.insertMinute(row)) continue;
        changes.recordChange({
          table: 'device_telemetry_minutes',
          rowId: row.id,
          operation: 'insert',
          version: 1,
        });
        written += 1;
      }
    })();
    return written;
  }

  /**
   * A device's telemetry over a period. An hour is read sample by sample; longer periods from the
   * minute summaries plus the samples of the minutes not summarised yet, so a week costs 10,080
   * rows rather than every sample.
   */
  function query(deviceId: string, period: TelemetryPeriod) {
    const to = clock.now();
    const periodMs = TELEMETRY_PERIODS[period];
    const fromMs = to.getTime() - periodMs;
    let buckets: Bucket[];
    if (period === '1h') buckets = store.samplesOf(deviceId, fromMs).map(sampleBucket);
    else {
      const minutes = minutesOf.all(deviceId, new Date(Math.ceil(fromMs / MINUTE) * MINUTE).toISOString());
      const after = minutes.length > 0 ? Date.parse(minutes.at(-1)!.minute) + MINUTE : fromMs;
      buckets = [...minutes.map(minuteBucket), ...store.samplesOf(deviceId, after).map(sampleBucket)];
    }
    const samples = buckets.reduce((n, bucket) => n + bucket.samples, 0);
    return {
      device_id: deviceId,
      period,
      from: new Date(fromMs).toISOString(),
      to: to.toISOString(),
      samples,
      metrics: aggregate(buckets, fromMs, periodMs),
    };
  }

  return { summarize, query };
}

export type Telemetry = ReturnType<typeof createTelemetry>;
