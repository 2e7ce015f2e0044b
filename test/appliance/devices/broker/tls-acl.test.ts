import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DeviceType,
  deviceTopic,
  storeChannelFilter,
  storeStatusFilter,
} from '../../../../shared/mqtt/topics.ts';
import { expired } from '../../../support/device-certs.ts';
import {
  grants,
  inbox,
  OTHER_STORE,
  type Pki,
  STORE,
  sleep,
  startTestBroker,
  type TestBroker,
  testPki,
  waitFor,
} from './support.ts';

const MANAGER = '01900000-0000-7000-8000-000000000001';
const CASHIER = '01900000-0000-7000-8000-000000000002';
interface Device {
  deviceType: DeviceType;
  locationId: string;
  deviceId: string;
}
const fridge: Device = { deviceType: 'sensor', locationId: STORE, deviceId: 'fridge-1' };
const kds: Device = { deviceType: 'kds', locationId: STORE, deviceId: 'kds-1' };
const topicOf = (device: Device, channel: 'status' | 'telemetry' | 'alert' | 'ack' | 'cmd') =>
  deviceTopic({ ...device, channel });

let pki: Pki;
let rig: TestBroker;
const revoked = new Set<string>();

beforeAll(async () => {
  pki = await testPki();
  rig = await startTestBroker(pki, { isRevoked: (serial) => revoked.has(serial) });
});
afterAll(() => rig.close());

const deviceCert = (device: Device) => pki.ca.device(device.deviceType, device.locationId, device.deviceId);

describe('TLS identity at connect', () => {
  it('admits a device whose client id is its device id', async () => {
    const client = await rig.tlsClient(await deviceCert(fridge), fridge.deviceId);
    expect(client.connected).toBe(true);
  });

  it('refuses a client id other than the device id (identifier rejected)', async () => {
    const cert = await deviceCert(fridge);
    await expect(rig.tlsClient(cert, 'someone-else')).rejects.toMatchObject({ code: 2 });
    expect(rig.find('connection refused').at(-1)).toMatchObject({ clientId: 'someone-else', returnCode: 2 });
  });

  it('refuses a device of another store (not authorized)', async () => {
    const cert = await pki.ca.device('printer', OTHER_STORE, 'printer-9');
    await expect(rig.tlsClient(cert, 'printer-9')).rejects.toMatchObject({ code: 5 });
  });

  it('refuses a certificate that names no edge identity', async () => {
    const cert = await pki.ca.anonymous('just-a-cert');
    await expect(rig.tlsClient(cert, 'just-a-cert')).rejects.toMatchObject({ code: 5 });
  });

  it('refuses a revoked certificate at its next connection', async () => {
    const device = { ...fridge, deviceId: 'fridge-revoked' };
    const cert = await deviceCert(device);
    const first = await rig.tlsClient(cert, device.deviceId);
    await first.endAsync();
    revoked.add(cert.serial);
    await expect(rig.tlsClient(cert, device.deviceId)).rejects.toMatchObject({ code: 5 });
    expect(rig.find('connection refused').at(-1)?.reason).toMatch(/revoked/);
  });

  it('shows new connections the renewed server certificate, and keeps the connected ones', async () => {
    const serverSerial = async (device: Device) => {
      let serial = '';
      const client = await rig.tlsClient(await deviceCert(device), device.deviceId, {
        checkServerIdentity: (_host: string, certificate: { serialNumber: string }) => {
          serial = certificate.serialNumber;
          return undefined;
        },
      } as object);
      return { client, serial };
    };
    const before = await serverSerial(kds);
    const renewed = await pki.ca.server();
    rig.broker.renewTls({ key: renewed.key, cert: renewed.cert, ca: pki.ca.cert });
    const after = await serverSerial({ ...kds, deviceId: 'kds-2' });
    expect(after.serial).not.toBe(before.serial);
    expect(after.serial.toLowerCase()).toBe(new X509Certificate(renewed.cert).serialNumber.toLowerCase());
    expect(before.client.connected).toBe(true);
    await before.client.endAsync();
    await after.client.endAsync();
  });

  it('refuses an expired certificate in the TLS handshake', async () => {
    const cert = await pki.ca.device('sensor', STORE, 'fridge-old', expired());
    await expect(rig.tlsClient(cert, 'fridge-old')).rejects.toThrow();
    await waitFor(() => rig.find('TLS handshake refused').length > 0);
    expect(rig.find('client connected').some((line) => line.clientId === 'fridge-old')).toBe(false);
  });
});

describe('device ACL', () => {
  it('lets a device publish its own channels and read its own commands', async () => {
    const manager = await rig.tlsClient(await pki.ca.staff(MANAGER, ['manager'], STORE), MANAGER);
    await manager.subscribeAsync(storeChannelFilter(STORE, 'telemetry'), { qos: 1 });
    const seen = inbox(manager);
    const device = await rig.tlsClient(await deviceCert(kds), kds.deviceId);
    const granted = await device.subscribeAsync(topicOf(kds, 'cmd'), { qos: 1 });
    expect(granted[0]?.qos).toBe(1);
    const commands = inbox(device);
    await device.publishAsync(topicOf(kds, 'telemetry'), '{"cpu":3}', { qos: 1 });
    await manager.publishAsync(topicOf(kds, 'cmd'), 'restart', { qos: 1 });
    expect(await seen.next(1)).toMatchObject([{ topic: topicOf(kds, 'telemetry'), payload: '{"cpu":3}' }]);
    expect(await commands.next(1)).toMatchObject([
      { topic: topicOf(kds, 'cmd'), payload: 'restart', qos: 1 },
    ]);
  });

  it('grants 0x80 for any filter but its own cmd topic, wildcards included', async () => {
    const device = await rig.tlsClient(await deviceCert({ ...kds, deviceId: 'kds-2' }), 'kds-2');
    const granted = await grants(device, [
      topicOf({ ...kds, deviceId: 'kds-2' }, 'cmd'),
      topicOf(kds, 'cmd'),
      'edge/kds/+/kds-2/cmd',
      'edge/#',
      '#',
    ]);
    expect(granted).toEqual([0, 128, 128, 128, 128]);
    expect(rig.find('subscribe denied').map((line) => line.topic)).toEqual(
      expect.arrayContaining([topicOf(kds, 'cmd'), 'edge/#', '#']),
    );
  });

  it("drops a publish to another device's topic, logs it, and disconnects after repeated denials", async () => {
    const manager = await rig.tlsClient(
      await pki.ca.staff(MANAGER, ['manager'], `${STORE}`),
      `${MANAGER}:spy`,
    );
    await manager.subscribeAsync(storeChannelFilter(STORE, 'telemetry'), { qos: 1 });
    const seen = inbox(manager);
    const rogue = { ...fridge, deviceId: 'fridge-rogue' };
    const device = await rig.tlsClient(await deviceCert(rogue), rogue.deviceId);
    await device.publishAsync(topicOf(fridge, 'telemetry'), 'forged', { qos: 1 });
    await device.publishAsync(topicOf(rogue, 'cmd'), 'self-command', { qos: 1 });
    expect(device.connected).toBe(true);
    const closed = new Promise<void>((resolve) => device.once('close', () => resolve()));
    device.publish(topicOf(fridge, 'alert'), 'forged again', { qos: 0 });
    await closed;
    await sleep(100);
    expect(seen.messages).toEqual([]);
    const denials = rig.find('publish denied; dropped').filter((line) => line.clientId === rogue.deviceId);
    expect(denials.map((line) => [line.topic, line.reason])).toEqual([
      [topicOf(fridge, 'telemetry'), "another device's topic"],
      [topicOf(rogue, 'cmd'), 'devices do not publish cmd'],
    ]);
    expect(rig.find('publish denied; disconnecting after repeated denials').at(-1)?.clientId).toBe(
      rogue.deviceId,
    );
  });
});

describe('staff over TLS', () => {
  it('gives every role the status board, retained per device, and managers alerts and telemetry', async () => {
    const device = await rig.tlsClient(await deviceCert({ ...fridge, deviceId: 'fridge-7' }), 'fridge-7');
    // Sent without the retain flag: the broker keeps the last status anyway.
    await device.publishAsync(topicOf({ ...fridge, deviceId: 'fridge-7' }, 'status'), 'online', { qos: 0 });
    await sleep(50);
    const cashier = await rig.tlsClient(await pki.ca.staff(CASHIER, ['staff'], STORE), CASHIER);
    const board = inbox(cashier);
    const granted = await grants(cashier, [
      storeStatusFilter(STORE),
      storeChannelFilter(STORE, 'alert'),
      storeStatusFilter(OTHER_STORE),
    ]);
    expect(granted).toEqual([0, 128, 128]);
    const messages = await board.next(1);
    expect(messages.find((m) => m.topic.endsWith('fridge-7/status'))).toMatchObject({
      payload: 'online',
      retain: true,
    });

    const manager = await rig.tlsClient(
      await pki.ca.staff(MANAGER, ['restaurant_manager'], STORE),
      `${MANAGER}:2`,
    );
    // At QoS 2: alerts are granted at nothing less (qos-policy.test.ts).
    const managerGrants = await grants(
      manager,
      [
        storeChannelFilter(STORE, 'alert'),
        storeChannelFilter(STORE, 'telemetry'),
        storeChannelFilter(STORE, 'ack'),
        'edge/+/+/+/alert',
      ],
      2,
    );
    expect(managerGrants).toEqual([2, 2, 128, 128]);
  });

  it('lets only managers command a device', async () => {
    const cashier = await rig.tlsClient(await pki.ca.staff(CASHIER, ['staff'], STORE), `${CASHIER}:cmd`);
    const device = await rig.tlsClient(await deviceCert({ ...kds, deviceId: 'kds-9' }), 'kds-9');
    await device.subscribeAsync(topicOf({ ...kds, deviceId: 'kds-9' }, 'cmd'), { qos: 1 });
    const commands = inbox(device);
    await cashier.publishAsync(topicOf({ ...kds, deviceId: 'kds-9' }, 'cmd'), 'reboot', { qos: 1 });
    await sleep(100);
    expect(commands.messages).toEqual([]);
    expect(rig.find('publish denied; dropped').at(-1)).toMatchObject({ reason: 'commands need a manager' });
  });

  it('refuses a staff client id that is not the user’s own', async () => {
    const cert = await pki.ca.staff(CASHIER, ['staff'], STORE);
    await expect(rig.tlsClient(cert, 'kds-1')).rejects.toMatchObject({ code: 2 });
  });
});

describe('plain TCP (development)', () => {
  it('allows everything and says so in the log', async () => {
    const dev = await rig.tcpClient('developer-1');
    const granted = await dev.subscribeAsync('#', { qos: 2 });
    expect(granted[0]?.qos).toBe(2);
    expect(rig.find('developer client connected: no identity, no ACL').at(-1)?.clientId).toBe('developer-1');
  });
});
