import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aggregate, POINTS_PER_METRIC } from '../../../cloud/devices/telemetry.ts';
import { backends } from '../../support/stores.ts';
import { type DeviceCloud, deviceCloud, enrolledDevice, expectError, expectOk } from './device-client.ts';

const MINUTE = 60_000;

describe('telemetry aggregation', () => {
  const from = new Date('2026-01-01T00:00:00.000Z');
  const at = (minutes: number) => new Date(from.getTime() + minutes * MINUTE).toISOString();

  it('gives min, max, mean and last per metric, ignoring what is not a finite number', () => {
    const rows = [
      { at: at(1), metrics: JSON.stringify({ temp: 4, door: 'open', load: 0.5 }) },
      { at: at(2), metrics: JSON.stringify({ temp: 8, load: null }) },
      { at: at(30), metrics: JSON.stringify({ temp: 3 }) },
    ];
    const result = aggregate(rows, from, 60 * MINUTE);
    expect(Object.keys(result)).toEqual(['load', 'temp']);
    expect(result.temp).toMatchObject({ count: 3, min: 3, max: 8, avg: 5, last: 3, last_at: at(30) });
    expect(result.temp!.points).toEqual([
      { at: at(1), value: 4 },
      { at: at(2), value: 8 },
      { at: at(30), value: 3 },
    ]);
    expect(result.load).toMatchObject({ count: 1, last: 0.5 });
  });

  it('bounds the points: each is the mean of its slice of the period', () => {
    const rows = Array.from({ length: 7 * 24 * 60 }, (_, minute) => ({
      at: at(minute + 1),
      metrics: JSON.stringify({ n: minute % 2 }),
    }));
    const result = aggregate(rows, from, 7 * 24 * 60 * MINUTE);
    expect(result.n!.points).toHaveLength(POINTS_PER_METRIC);
    expect(result.n!.count).toBe(rows.length);
    for (const point of result.n!.points) expect(point.value).toBeCloseTo(0.5, 2);
  });
});

describe.each(backends)('device telemetry on %s', (backend) => {
  let context: DeviceCloud;
  beforeAll(async () => {
    context = await deviceCloud(backend);
  });
  afterAll(() => context.cloud.close());

  const read = (deviceId: string, query = '', as = context.managerA) =>
    as.call('GET', `/v1/iot/devices/${deviceId}/telemetry${query}`);

  it('aggregates the period asked for, and keeps last_seen_at moving forward only', async () => {
    const device = await enrolledDevice(context, { device_type: 'sensor' });
    const now = context.cloud.clock.now().getTime();
    const ago = (ms: number) => new Date(now - ms);
    const recorded = await context.cloud.services.devices.recordTelemetry(
      context.a.tenant.id,
      device.device_id,
      [
        { at: ago(30 * MINUTE), metrics: { temperature_c: 4 } },
        { at: ago(10 * MINUTE), metrics: { temperature_c: 6, humidity: 40 } },
        { at: ago(2 * 3_600_000), metrics: { temperature_c: 12 } },
        { at: ago(3 * 86_400_000), metrics: { temperature_c: 20 } },
      ],
    );
    expect(recorded).toBe(4);
    await context.cloud.services.devices.recordTelemetry(context.a.tenant.id, device.device_id, [
      { at: ago(5 * 86_400_000), metrics: { temperature_c: 0 } },
    ]);

    const hour = expectOk(await read(device.device_id));
    expect(hour).toMatchObject({ device_id: device.device_id, period: '1h', samples: 2, truncated: false });
    expect(hour.metrics.temperature_c).toMatchObject({ count: 2, min: 4, max: 6, avg: 5, last: 6 });
    expect(hour.metrics.humidity).toMatchObject({ count: 1, last: 40 });
    expect(hour.metrics.temperature_c.points).toHaveLength(2);

    const day = expectOk(await read(device.device_id, '?period=24h'));
    expect(day.metrics.temperature_c).toMatchObject({ count: 3, min: 4, max: 12 });
    const week = expectOk(await read(device.device_id, '?period=7d'));
    expect(week.metrics.temperature_c).toMatchObject({ count: 5, min: 0, max: 20, last: 6 });

    const record = expectOk(await context.adminA.call('GET', `/v1/mdm/devices/${device.device_id}`));
    expect(record.last_seen_at).toBe(ago(10 * MINUTE).toISOString());
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
    await expect(
      services.recordTelemetry(context.b.tenant.id, device.device_id, [{ at: seen, metrics: { t: 1 } }]),
    ).rejects.toMatchObject({ code: 'DEVICE_NOT_FOUND' });
  });

  it('answers an empty period, and 400 to a period it does not know', async () => {
    const device = await enrolledDevice(context);
    expect(expectOk(await read(device.device_id, '?period=1h'))).toMatchObject({ samples: 0, metrics: {} });
    const error = expectError(await read(device.device_id, '?period=2h'), 400, 'INVALID_REQUEST');
    expect(error.details).toEqual([{ field: 'querystring.period', message: expect.any(String) }]);
  });
});
