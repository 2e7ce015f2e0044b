import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requiredSubscriptionQos } from '../../../../appliance/devices/broker/qos-policy.ts';
import {
  type DeviceChannel,
  deviceTopic,
  storeChannelFilter,
  storeStatusFilter,
} from '../../../../shared/mqtt/topics.ts';
import {
  grants,
  inbox,
  type Pki,
  STORE,
  startTestBroker,
  type TestBroker,
  testPki,
  waitFor,
} from './support.ts';

const MANAGER = '01900000-0000-7000-8000-000000000001';
const fridge = { deviceType: 'sensor' as const, locationId: STORE, deviceId: 'fridge-qos' };
const topicOf = (channel: DeviceChannel, deviceId = fridge.deviceId) =>
  deviceTopic({ ...fridge, deviceId, channel });

describe('the QoS a subscription must ask for', () => {
  it.each([
    ['#', 2],
    ['edge/#', 2],
    ['edge/+/+/+/+', 2],
    ['+/+/+/+/alert', 2],
    [storeChannelFilter(STORE, 'alert'), 2],
    [`${storeChannelFilter(STORE, 'alert')}/#`, 2], // `alert/#` matches `alert` itself
    [topicOf('alert'), 2],
    [storeChannelFilter(STORE, 'telemetry'), 0],
    [storeStatusFilter(STORE), 0],
    ['edge/+/+/+/alert/x', 0],
    ['edge/+/+/alert', 0],
    ['edge/toaster/+/+/alert', 0], // not a device type
    ['acme/+/+/+/alert', 0], // another prefix
    ['a/b', 0],
  ])('%s: %i', (filter, required) => {
    expect(requiredSubscriptionQos(filter, 'edge')).toBe(required);
  });
});

let pki: Pki;
let rig: TestBroker;
beforeAll(async () => {
  pki = await testPki();
  rig = await startTestBroker(pki);
});
afterAll(() => rig.close());

const deviceClient = async (deviceId: string) =>
  rig.tlsClient(await pki.ca.device(fridge.deviceType, STORE, deviceId), deviceId);
const managerClient = async (clientId: string, extra = {}) =>
  rig.tlsClient(await pki.ca.staff(MANAGER, ['manager'], STORE), clientId, extra);

describe('a device topic travels at its channel’s QoS from the broker on', () => {
  it('routes an alert published at QoS 0 at QoS 2, and warns once per device and channel', async () => {
    const manager = await managerClient(`${MANAGER}:alerts`);
    await manager.subscribeAsync(storeChannelFilter(STORE, 'alert'), { qos: 2 });
    const seen = inbox(manager);
    const device = await deviceClient('fridge-qos-1');
    await device.publishAsync(topicOf('alert', 'fridge-qos-1'), 'warm', { qos: 0 });
    await device.publishAsync(topicOf('alert', 'fridge-qos-1'), 'warmer', { qos: 0 });
    expect(await seen.next(2)).toEqual([
      { topic: topicOf('alert', 'fridge-qos-1'), payload: 'warm', qos: 2, retain: false },
      { topic: topicOf('alert', 'fridge-qos-1'), payload: 'warmer', qos: 2, retain: false },
    ]);
    const warned = rig.find("publish at a QoS other than its channel's: routed at the channel's");
    expect(warned.filter((line) => line.clientId === 'fridge-qos-1')).toMatchObject([
      { topic: topicOf('alert', 'fridge-qos-1'), publishedQos: 0, channelQos: 2 },
    ]);
  });

  it('queues an alert published at QoS 0 for a persistent session that is away, and delivers it on return', async () => {
    const clientId = `${MANAGER}:away`;
    const away = await managerClient(clientId, { clean: false });
    await away.subscribeAsync(storeChannelFilter(STORE, 'alert'), { qos: 2 });
    await away.endAsync();
    const device = await deviceClient('fridge-qos-2');
    await device.publishAsync(topicOf('alert', 'fridge-qos-2'), 'door open', { qos: 0 });
    const back = await managerClient(clientId, { clean: false });
    const seen = inbox(back);
    expect(await seen.next(1)).toEqual([
      { topic: topicOf('alert', 'fridge-qos-2'), payload: 'door open', qos: 2, retain: false },
    ]);
  });

  it('routes telemetry sent at QoS 0 at QoS 1, and a status sent at QoS 1 at QoS 0', async () => {
    const manager = await managerClient(`${MANAGER}:board`);
    await manager.subscribeAsync([storeChannelFilter(STORE, 'telemetry'), storeStatusFilter(STORE)], {
      qos: 2,
    });
    const seen = inbox(manager);
    const device = await deviceClient('fridge-qos-3');
    await device.publishAsync(topicOf('telemetry', 'fridge-qos-3'), '{"temperature_c":4}', { qos: 0 });
    await device.publishAsync(topicOf('status', 'fridge-qos-3'), '{"online":true}', { qos: 1 });
    const messages = await seen.next(2);
    expect(messages.map(({ topic, qos }) => [topic, qos])).toEqual([
      [topicOf('telemetry', 'fridge-qos-3'), 1],
      [topicOf('status', 'fridge-qos-3'), 0],
    ]);
  });
});

describe('a subscription that can match alerts', () => {
  it('is refused (0x80) below QoS 2 and logged; other channels are granted as asked', async () => {
    const manager = await managerClient(`${MANAGER}:grants`);
    const alerts = storeChannelFilter(STORE, 'alert');
    const telemetry = storeChannelFilter(STORE, 'telemetry');
    expect(await grants(manager, [alerts, telemetry], 0)).toEqual([128, 0]);
    expect(await grants(manager, [alerts, telemetry], 1)).toEqual([128, 1]);
    expect(await grants(manager, [alerts, telemetry], 2)).toEqual([2, 2]);
    await waitFor(() => rig.find('subscribe denied').filter((line) => line.topic === alerts).length === 2);
    expect(rig.find('subscribe denied').filter((line) => line.topic === alerts)).toMatchObject([
      { clientId: `${MANAGER}:grants`, reason: 'it can match alerts, delivered at QoS 2 only; asked for 0' },
      { clientId: `${MANAGER}:grants`, reason: 'it can match alerts, delivered at QoS 2 only; asked for 1' },
    ]);
  });

  it('is refused below QoS 2 on the development listener too, `#` included', async () => {
    const developer = await rig.tcpClient('developer-grants');
    expect(await grants(developer, ['#', 'edge/+/+/+/+', storeStatusFilter(STORE)], 0)).toEqual([
      128, 128, 0,
    ]);
    expect(await grants(developer, ['#'], 2)).toEqual([2]);
  });
});
