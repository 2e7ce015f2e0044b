import type { IConnectPacket } from 'mqtt-packet';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceType, deviceTopic } from '../../../../shared/mqtt/topics.ts';
import { checkFields } from '../../../../shared/sync/protocol.ts';
import { LOCATION } from '../../../support/appliance.ts';
import { connectPacket, rawClient } from '../broker/raw-client.ts';
import { type Pki, testPki } from '../broker/support.ts';
import { type DeviceRig, startDeviceRig } from './support.ts';

const topic = (deviceType: DeviceType, deviceId: string, channel: 'status' | 'telemetry' | 'alert') =>
  deviceTopic({ deviceType, locationId: LOCATION, deviceId, channel });
const status = (online: boolean, firmware?: string) =>
  JSON.stringify({ online, ...(firmware ? { firmware } : {}) });

let pki: Pki;
let s: DeviceRig | undefined;
beforeAll(async () => {
  pki = await testPki();
});
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const rig = async () => {
  s = await startDeviceRig(pki);
  return s;
};

describe('device registry', () => {
  it('knows a device by its certificate when it connects, reads its firmware, and sees it leave', async () => {
    const { rig: broker, devices, clock, outbox } = await rig();
    const client = await broker.tlsClient(await pki.ca.device('sensor', LOCATION, 'fridge-1'), 'fridge-1');
    await expect.poll(() => devices.device('fridge-1')?.status).toBe('online');
    expect(devices.device('fridge-1')).toMatchObject({
      device_type: 'sensor',
      location_id: LOCATION,
      firmware: null,
      first_seen_at: '2026-06-10T19:00:00.000Z',
    });

    clock.advance(5000);
    await client.publishAsync(topic('sensor', 'fridge-1', 'status'), status(true, '2.1.0'));
    await expect.poll(() => devices.device('fridge-1')?.firmware).toBe('2.1.0');
    clock.advance(5000);
    await client.endAsync();
    await expect.poll(() => devices.device('fridge-1')?.status).toBe('offline');

    expect(devices.device('fridge-1')).toMatchObject({
      first_seen_at: '2026-06-10T19:00:00.000Z',
      last_seen_at: '2026-06-10T19:00:10.000Z',
    });
    // Each move is a version of the synced row, in a shape the cloud accepts.
    const changes = outbox('store_devices');
    expect(changes.map((c) => [c.operation, c.row_version, c.fields.status, c.fields.firmware])).toEqual([
      ['insert', 1, 'online', null],
      ['update', 2, 'online', '2.1.0'],
      ['update', 3, 'offline', '2.1.0'],
    ]);
    for (const change of changes)
      expect(checkFields('store_devices', 'fridge-1', change.fields)).toBeUndefined();
  });

  it('learns a plain TCP device from the topics it publishes as itself', async () => {
    const { rig: broker, devices } = await rig();
    const printer = await broker.tcpClient('printer-1');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(devices.device('printer-1')).toBeUndefined();
    await printer.publishAsync(topic('printer', 'printer-1', 'status'), status(true, 'p-7'));
    await expect.poll(() => devices.device('printer-1')).toMatchObject({ status: 'online', firmware: 'p-7' });
    await printer.endAsync();
    await expect.poll(() => devices.device('printer-1')?.status).toBe('offline');
    // Known now: its next connection alone makes it online.
    await broker.tcpClient('printer-1');
    await expect.poll(() => devices.device('printer-1')?.status).toBe('online');
  });

  it('takes a device offline when its keepalive runs out', async () => {
    const { rig: broker, devices } = await rig();
    const kds = await rawClient(broker.broker.tcpPort!);
    kds.send({ ...(connectPacket('kds-1', true) as IConnectPacket), keepalive: 1 });
    await kds.take('connack');
    kds.send({
      cmd: 'publish',
      topic: topic('kds', 'kds-1', 'status'),
      payload: Buffer.from(status(true)),
      qos: 0,
      retain: false,
      dup: false,
    });
    await expect.poll(() => devices.device('kds-1')?.status).toBe('online');
    // It never pings: the broker gives up after one and a half keepalives.
    await expect.poll(() => devices.device('kds-1')?.status, { timeout: 4000 }).toBe('offline');
    await kds.closed;
  });

  it('takes a device offline by its will when its connection dies, as one change', async () => {
    const { rig: broker, devices, outbox } = await rig();
    const will = {
      topic: topic('sensor', 'fridge-1', 'status'),
      payload: Buffer.from(status(false)),
      qos: 0 as const,
      retain: true,
    };
    const client = await broker.tlsClient(await pki.ca.device('sensor', LOCATION, 'fridge-1'), 'fridge-1', {
      will,
    });
    await expect.poll(() => devices.device('fridge-1')?.status).toBe('online');
    client.stream.destroy();
    await expect.poll(() => devices.device('fridge-1')?.status).toBe('offline');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(outbox('store_devices').map((c) => c.fields.status)).toEqual(['online', 'offline']);
  });

  it('finds nobody connected when the appliance starts again', async () => {
    const { rig: broker, devices } = await rig();
    await broker
      .tcpClient('printer-1')
      .then((c) => c.publishAsync(topic('printer', 'printer-1', 'status'), status(true)));
    await expect.poll(() => devices.device('printer-1')?.status).toBe('online');
    devices.start();
    devices.stop();
    expect(devices.device('printer-1')?.status).toBe('offline');
  });
});

describe('device telemetry', () => {
  it('keeps every sample, syncs one summary per minute, and prunes after the retention', async () => {
    const { rig: broker, devices, clock, outbox, get, appliance } = await rig();
    const fridge = await broker.tcpClient('fridge-1');
    for (const temperature_c of [3.9, 4.1, 4.4]) {
      await fridge.publishAsync(
        topic('sensor', 'fridge-1', 'telemetry'),
        JSON.stringify({ temperature_c, door: 'shut' }),
        { qos: 1 },
      );
      clock.advance(10_000);
    }
    devices.flush();
    expect(devices.device('fridge-1')).toMatchObject({
      status: 'online',
      last_telemetry: { temperature_c: 4.4, door: 'shut' },
      last_telemetry_at: '2026-06-10T19:00:20.000Z',
    });
    const count = () =>
      (appliance.db.prepare('select count(*) as n from device_telemetry').get() as { n: number }).n;
    expect(count()).toBe(3);

    clock.set('2026-06-10T19:01:05.000Z');
    devices.maintain();
    devices.maintain();
    const minutes = outbox('device_telemetry_minutes');
    expect(minutes).toHaveLength(1);
    expect(checkFields('device_telemetry_minutes', minutes[0]!.row_id, minutes[0]!.fields)).toBeUndefined();
    expect(minutes[0]!.fields).toMatchObject({
      device_id: 'fridge-1',
      minute: '2026-06-10T19:00:00.000Z',
      samples: 3,
    });
    expect(JSON.parse(String(minutes[0]!.fields.metrics))).toEqual({
      temperature_c: { count: 3, min: 3.9, max: 4.4, avg: expect.closeTo(4.1333, 3), last: 4.4 },
    });

    // The same answer from every sample (an hour) and from the summaries (a day).
    for (const period of ['1h', '24h']) {
      const response = await get(appliance.manager, `/v1/devices/fridge-1/telemetry?period=${period}`);
      expect(response.statusCode).toBe(200);
      expect(response.json().data).toMatchObject({
        device_id: 'fridge-1',
        period,
        samples: 3,
        metrics: { temperature_c: { count: 3, min: 3.9, max: 4.4, last: 4.4 } },
      });
    }

    clock.advance(7 * 86_400_000 + 60_000);
    devices.maintain();
    expect(count()).toBe(0);
    expect(appliance.db.prepare('select count(*) as n from device_telemetry_minutes').get()).toEqual({
      n: 0,
    });
  });
});

describe('device routes', () => {
  it('list the devices for any staff, their telemetry for managers, and say what is unknown', async () => {
    const { rig: broker, devices, get, appliance } = await rig();
    const printer = await broker.tcpClient('printer-1');
    await printer.publishAsync(topic('printer', 'printer-1', 'status'), status(true, 'p-7'));
    await expect.poll(() => devices.device('printer-1')).toBeDefined();

    const list = await get(appliance.cashier, '/v1/devices');
    expect(list.statusCode).toBe(200);
    expect(list.json().data).toEqual([
      {
        id: 'printer-1',
        device_type: 'printer',
        location_id: LOCATION,
        status: 'online',
        firmware: 'p-7',
        first_seen_at: '2026-06-10T19:00:00.000Z',
        last_seen_at: '2026-06-10T19:00:00.000Z',
        last_telemetry: null,
        last_telemetry_at: null,
        settings: {},
      },
    ]);
    expect((await appliance.app.inject({ method: 'GET', url: '/v1/devices' })).statusCode).toBe(401);
    expect((await get(appliance.cashier, '/v1/devices/printer-1/telemetry')).statusCode).toBe(403);
    expect((await get(appliance.manager, '/v1/devices/printer-1/telemetry?period=2h')).statusCode).toBe(400);
    const missing = await get(appliance.manager, '/v1/devices/nobody/telemetry');
    expect([missing.statusCode, missing.json().error.code]).toEqual([404, 'DEVICE_NOT_FOUND']);
    expect((await get(appliance.cashier, '/v1/devices/nobody')).statusCode).toBe(404);
  });
});
