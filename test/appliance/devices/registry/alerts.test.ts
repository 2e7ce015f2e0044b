import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createEventPoller } from '../../../../appliance/kitchen/feed.ts';
import { type DeviceType, deviceTopic } from '../../../../shared/mqtt/topics.ts';
import { LOCATION } from '../../../support/appliance.ts';
import { type Pki, testPki } from '../broker/support.ts';
import { type DeviceRig, startDeviceRig } from './support.ts';

const topic = (deviceType: DeviceType, deviceId: string, channel: 'status' | 'telemetry' | 'alert') =>
  deviceTopic({ deviceType, locationId: LOCATION, deviceId, channel });

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

describe('device alerts', () => {
  it('raises a temperature above the limit once, as an event, a kiosk alert and in the outbox', async () => {
    const { rig: broker, devices, outbox, get, appliance } = await rig();
    const put = (token: string, body: object) =>
      appliance.app.inject({
        method: 'PUT',
        url: '/v1/devices/fridge-1/settings',
        payload: body,
        headers: { authorization: `Bearer ${token}` },
      });
    expect((await put(appliance.cashier, { max_temperature_c: 5 })).statusCode).toBe(403);
    expect((await put(appliance.manager, { max_temp: 5 })).statusCode).toBe(400);
    expect((await put(appliance.manager, { max_temperature_c: 5 })).statusCode).toBe(200);

    const fridge = await broker.tcpClient('fridge-1');
    // Above, still above, back but within the hysteresis (so above again is the same alert),
    // cleared, above again.
    for (const temperature_c of [4.8, 6.2, 7, 4.8, 5.5, 4.2, 6]) {
      await fridge.publishAsync(topic('sensor', 'fridge-1', 'telemetry'), JSON.stringify({ temperature_c }), {
        qos: 1,
      });
    }
    devices.flush();

    const alerts = appliance.events().filter((e) => e.type === 'device.temperature_alert');
    expect(alerts.map((e) => e.data)).toEqual([
      {
        type: 'temperature_alert',
        device_id: 'fridge-1',
        location_id: LOCATION,
        severity: 'high',
        description: 'sensor fridge-1 reads 6.2 °C, above its maximum of 5 °C',
        device_type: 'sensor',
      },
      expect.objectContaining({ description: 'sensor fridge-1 reads 6 °C, above its maximum of 5 °C' }),
    ]);
    expect(outbox('events').filter((c) => c.fields.type === 'device.temperature_alert')).toHaveLength(2);

    const kiosk = await get(appliance.cashier, '/v1/devices/alerts');
    expect(kiosk.statusCode).toBe(200);
    expect(
      kiosk
        .json()
        .data.map((a: { source: string; cleared_at: string | null }) => [a.source, a.cleared_at === null]),
    ).toEqual([
      ['threshold', true],
      ['threshold', false],
    ]);
    const open = await get(appliance.cashier, '/v1/devices/alerts?open=true');
    expect(open.json().data).toHaveLength(1);
  });

  it('shows what a device raises itself, and makes a temperature alert an event', async () => {
    const { rig: broker, appliance, get } = await rig();
    // The kitchen feed's WebSocket reads the same events table: a screen sees the alert live.
    const feed: string[] = [];
    const poller = createEventPoller(appliance.db, 5);
    const unsubscribe = poller.subscribe((message) => feed.push(JSON.parse(message).type));
    const fridge = await broker.tcpClient('fridge-1');
    const alert = topic('sensor', 'fridge-1', 'alert');
    await fridge.publishAsync(
      alert,
      JSON.stringify({ type: 'door_open', severity: 'medium', description: 'Door open 5 min' }),
      { qos: 2 },
    );
    await fridge.publishAsync(
      alert,
      JSON.stringify({ type: 'temperature_high', description: 'Compressor fault' }),
      { qos: 2 },
    );
    const listed = async () =>
      (await get(appliance.cashier, '/v1/devices/alerts')).json().data as Array<Record<string, unknown>>;
    await expect.poll(async () => (await listed()).length).toBe(2);
    const [temperature, door] = await listed();
    expect(door).toMatchObject({ source: 'device', type: 'door_open', severity: 'medium', event_id: null });
    expect(temperature).toMatchObject({
      source: 'device',
      type: 'temperature_high',
      severity: 'high',
      description: 'Compressor fault',
    });
    expect(appliance.events()).toEqual([
      {
        type: 'device.temperature_alert',
        data: {
          type: 'temperature_alert',
          device_id: 'fridge-1',
          location_id: LOCATION,
          severity: 'high',
          description: 'Compressor fault',
          device_type: 'sensor',
        },
      },
    ]);

    await expect.poll(() => feed).toEqual(['device.temperature_alert']);
    unsubscribe();

    const cleared = await appliance.app.inject({
      method: 'POST',
      url: `/v1/devices/alerts/${door!.id}/clear`,
      headers: { authorization: `Bearer ${appliance.cashier}` },
    });
    expect(cleared.json().data.cleared_at).not.toBeNull();
    expect((await get(appliance.cashier, '/v1/devices/alerts?open=true')).json().data).toHaveLength(1);
  });
});
