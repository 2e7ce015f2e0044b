import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregate, bucketOf, POINTS_PER_METRIC } from '../../../shared/devices/telemetry.ts';
import { newId } from '../../../shared/ids.ts';
import { createHlc } from '../../../shared/sync/hlc.ts';
import type { Change } from '../../../shared/sync/protocol.ts';
import { backends } from '../../support/stores.ts';
import {
  type DeviceCloud,
  deviceCloud,
  enrolledDevice,
  expectError,
  expectOk,
  registerDevice,
} from './device-client.ts';

const MINUTE = 60_000;

describe('telemetry aggregation', () => {
  const from = new Date('2026-01-01T00:00:00.000Z');
  const at = (minutes: number) => new Date(from.getTime() + minutes * MINUTE).toISOString();
  const bucket = (minutes: number, metrics: Record<string, unknown>, samples = 1) =>
    bucketOf(Date.parse(at(minutes)), samples, JSON.stringify(metrics));

  it('gives min, max, mean and last per metric, ignoring what is not a finite number', () => {
    const buckets = [
      bucket(1, { temp: 4, door: 'open', load: 0.5 }),
      bucket(2, { temp: 8, load: null }),
      bucket(30, { temp: 3 }),
    ];
    const result = aggregate(buckets, from.getTime(), 60 * MINUTE);
    expect(Object.keys(result)).toEqual(['load', 'temp']);
    expect(result.temp).toMatchObject({ count: 3, min: 3, max: 8, avg: 5, last: 3, last_at: at(30) });
    expect(result.temp!.points).toEqual([
      { at: at(1), value: 4 },
      { at: at(2), value: 8 },
      { at: at(30), value: 3 },
    ]);
    expect(result.load).toMatchObject({ count: 1, last: 0.5 });
  });

  it('merges minute summaries by their counts, and skips malformed ones', () => {
    const buckets = [
      bucket(1, { temp: { count: 3, min: 2, max: 6, avg: 4, last: 6 } }, 3),
      bucket(2, { temp: 10, bad: { count: 0, min: 1, max: 1, avg: 1, last: 1 }, worse: { count: 2 } }),
    ];
    const result = aggregate(buckets, from.getTime(), 60 * MINUTE);
    expect(Object.keys(result)).toEqual(['temp']);
    expect(result.temp).toMatchObject({ count: 4, min: 2, max: 10, avg: 5.5, last: 10 });
  });

  it('bounds the points: each is the mean of its slice of the period', () => {
    const buckets = Array.from({ length: 7 * 24 * 60 }, (_, minute) => bucket(minute + 1, { n: minute % 2 }));
    const result = aggregate(buckets, from.getTime(), 7 * 24 * 60 * MINUTE);
    expect(result.n!.points).toHaveLength(POINTS_PER_METRIC);
    expect(result.n!.count).toBe(buckets.length);
    for (const point of result.n!.points) expect(point.value).toBeCloseTo(0.5, 2);
  });
});

describe.each(backends)('device telemetry and presence from the store on %s', (backend) => {
  let context: DeviceCloud;
  let storeA: string;
  let storeB: string;
  const hlc = createHlc('appliance-test');
  beforeAll(async () => {
    context = await deviceCloud(backend);
    const sync = context.cloud.services.sync;
    storeA = (
      await sync.provisionAppliance(context.a.tenant.id, { location_id: context.a.location.id, name: 'A' })
    ).credential;
    storeB = (
      await sync.provisionAppliance(context.b.tenant.id, { location_id: context.b.location.id, name: 'B' })
    ).credential;
  });
  afterAll(() => context.cloud.close());

  const read = (deviceId: string, query = '', as = context.managerA) =>
    as.call('GET', `/v1/iot/devices/${deviceId}/telemetry${query}`);
  const ago = (ms: number) => new Date(context.cloud.clock.now().getTime() - ms).toISOString();
  const minuteAgo = (ms: number) => {
    const at = Date.parse(ago(ms));
    return new Date(at - (at % MINUTE)).toISOString();
  };

  const change = (table: string, rowId: string, fields: Record<string, unknown>, version = 1): Change => ({
    change_id: newId(),
    table,
    row_id: rowId,
    op: version === 1 ? 'insert' : 'update',
    base_version: version - 1,
    version,
    hlc: hlc.tick(),
    fields,
  });
  /** Pushes as the store's appliance does, through the real sync endpoint. */
  async function push(credential: string, changes: Change[]) {
    const response = await context.cloud.app.inject({
      method: 'POST',
      url: '/v1/sync/push',
      headers: { authorization: `Appliance ${credential}` },
      payload: { changes, queue_depth: 0 },
    });
    expect(response.statusCode, response.body).toBe(200);
    return response.json().data as { results: Array<{ status: string; reason?: string }> };
  }
  const storeDevice = (id: string, locationId: string, overrides: Record<string, unknown> = {}) => ({
    id,
    location_id: locationId,
    device_type: 'sensor',
    status: 'online',
    firmware: '1.4.2',
    first_seen_at: ago(3 * 86_400_000),
    last_seen_at: ago(MINUTE),
    updated_at: ago(MINUTE),
    ...overrides,
  });
  const minute = (deviceId: string, locationId: string, at: string, temps: number[]) => ({
    id: newId(),
    device_id: deviceId,
    location_id: locationId,
    minute: at,
    samples: temps.length,
    metrics: JSON.stringify({
      temperature_c: {
        count: temps.length,
        min: Math.min(...temps),
        max: Math.max(...temps),
        avg: temps.reduce((a, b) => a + b, 0) / temps.length,
        last: temps.at(-1),
      },
    }),
  });

  it('answers /v1/iot from the minutes the store synced, per period, and never counts a resent minute twice', async () => {
    const device = await enrolledDevice(context, { device_type: 'sensor' });
    const location = context.a.location.id;
    const rows = [
      minute(device.device_id, location, minuteAgo(5 * 86_400_000), [0]),
      minute(device.device_id, location, minuteAgo(3 * 86_400_000), [20, 20]),
      minute(device.device_id, location, minuteAgo(2 * 3_600_000), [12]),
      minute(device.device_id, location, minuteAgo(30 * MINUTE), [3, 5]),
      minute(device.device_id, location, minuteAgo(10 * MINUTE), [6]),
    ];
    const pushed = await push(
      storeA,
      rows.map((row) => change('device_telemetry_minutes', row.id, row)),
    );
    expect(pushed.results.map((r) => r.status)).toEqual(rows.map(() => 'applied'));
    // A store that lost the answer sends the same minute again, under a new change id.
    await push(storeA, [change('device_telemetry_minutes', rows[4]!.id, rows[4]!)]);

    const hour = expectOk(await read(device.device_id));
    expect(hour).toMatchObject({ device_id: device.device_id, period: '1h', samples: 3, truncated: false });
    expect(hour.metrics.temperature_c).toMatchObject({ count: 3, min: 3, max: 6, avg: 14 / 3, last: 6 });
    expect(hour.metrics.temperature_c.points).toHaveLength(2);
    const day = expectOk(await read(device.device_id, '?period=24h'));
    expect(day.metrics.temperature_c).toMatchObject({ count: 4, min: 3, max: 12 });
    const week = expectOk(await read(device.device_id, '?period=7d'));
    expect(week).toMatchObject({ samples: 7 });
    expect(week.metrics.temperature_c).toMatchObject({ count: 7, min: 0, max: 20, last: 6 });
  });

  it('takes presence, last sighting and firmware from the store’s device rows, for enrolled devices of that store only', async () => {
    const device = await enrolledDevice(context, { device_type: 'sensor' });
    const pending = await registerDevice(context.adminA, context.a.location.id, {
      serial_number: 'PENDING-1',
    });
    const location = context.a.location.id;
    const seen = ago(MINUTE);
    await push(storeA, [
      change(
        'store_devices',
        device.device_id,
        storeDevice(device.device_id, location, { last_seen_at: seen }),
      ),
      change('store_devices', pending.id, storeDevice(pending.id, location)),
    ]);
    const record = expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${device.device_id}`));
    expect(record).toMatchObject({ state: 'online', firmware_version: '1.4.2', last_seen_at: seen });
    const stillPending = expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${pending.id}`));
    expect(stillPending).toMatchObject({ state: 'pending_activation', last_seen_at: seen });

    // The device goes away; a later version of the row says so, with an older sighting kept out.
    await push(storeA, [
      change(
        'store_devices',
        device.device_id,
        storeDevice(device.device_id, location, {
          status: 'offline',
          firmware: null,
          last_seen_at: ago(5 * MINUTE),
        }),
        2,
      ),
    ]);
    expect(expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${device.device_id}`))).toMatchObject({
      state: 'offline',
      firmware_version: '1.4.2',
      last_seen_at: seen,
    });
  });

  it('lets no store touch another tenant’s device: its rows and minutes are applied to its own scope only', async () => {
    const device = await enrolledDevice(context, { device_type: 'sensor' });
    const before = expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${device.device_id}`));
    const row = minute(device.device_id, context.b.location.id, minuteAgo(2 * MINUTE), [99]);
    const pushed = await push(storeB, [
      change(
        'store_devices',
        device.device_id,
        storeDevice(device.device_id, context.b.location.id, { firmware: 'evil' }),
      ),
      change('device_telemetry_minutes', row.id, row),
    ]);
    expect(pushed.results.map((r) => r.status)).toEqual(['applied', 'applied']);
    expect(expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${device.device_id}`))).toEqual(before);
    expect(expectOk(await read(device.device_id))).toMatchObject({ samples: 0, metrics: {} });
    expectError(await read(device.device_id, '', context.adminB), 404, 'DEVICE_NOT_FOUND');
  });

  it('takes presence from the fleet link for enrolled devices only, within the tenant', async () => {
    const services = context.cloud.services.devices;
    const device = await enrolledDevice(context);
    const seen = context.cloud.clock.now();
    expect(await services.markPresence(context.a.tenant.id, device.device_id, 'online', seen)).toMatchObject({
      state: 'online',
      last_seen_at: seen.toISOString(),
    });
    const earlier = new Date(seen.getTime() - MINUTE);
    expect(
      await services.markPresence(context.a.tenant.id, device.device_id, 'offline', earlier),
    ).toMatchObject({
      state: 'offline',
      last_seen_at: seen.toISOString(),
    });
    const pending = await services.register(context.a.tenant.id, {
      location_id: context.a.location.id,
      device_type: 'pos',
      name: 'Till',
      serial_number: 'TILL-1',
    });
    expect((await services.markPresence(context.a.tenant.id, pending.id, 'online', seen)).state).toBe(
      'pending_activation',
    );
    await expect(
      services.markPresence(context.b.tenant.id, device.device_id, 'online', seen),
    ).rejects.toMatchObject({
      code: 'DEVICE_NOT_FOUND',
    });
  });

  it('answers an empty period, and 400 to a period it does not know', async () => {
    const device = await enrolledDevice(context);
    expect(expectOk(await read(device.device_id, '?period=1h'))).toMatchObject({ samples: 0, metrics: {} });
    const error = expectError(await read(device.device_id, '?period=2h'), 400, 'INVALID_REQUEST');
    expect(error.details).toEqual([{ field: 'querystring.period', message: expect.any(String) }]);
  });
});
