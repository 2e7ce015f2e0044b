import type { MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceType, deviceTopic, storeChannelFilter } from '../../../../shared/mqtt/topics.ts';
import { inbox, type Pki, STORE, startTestBroker, type TestBroker, testPki, waitFor } from './support.ts';

interface Device {
  deviceType: DeviceType;
  locationId: string;
  deviceId: string;
}
const device = (deviceType: DeviceType, deviceId: string): Device => ({
  deviceType,
  locationId: STORE,
  deviceId,
});

let pki: Pki;
let rig: TestBroker;
const revoked = new Set<string>();
/** Serials the broker hears of only after its check at connection (a revocation learned mid-CONNECT). */
const revokedAfterConnect = new Set<string>();
const isRevoked = (serial: string) => revoked.has(serial);

beforeAll(async () => {
  pki = await testPki();
  rig = await startTestBroker(pki, {
    isRevoked: (serial) => {
      if (!revokedAfterConnect.delete(serial)) return isRevoked(serial);
      revoked.add(serial);
      return false;
    },
  });
});
afterAll(() => rig.close());

const certOf = (d: Device) => pki.ca.device(d.deviceType, d.locationId, d.deviceId);

/** Resolves when the client's connection closes; fails after `ms`. */
const closed = (client: MqttClient, ms = 5000) =>
  new Promise<void>((resolve, reject) => {
    if (!client.connected) return resolve();
    const timer = setTimeout(() => reject(new Error(`${client.options.clientId} still connected`)), ms);
    client.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });

describe('cutting the sessions of revoked certificates', () => {
  it('closes the sessions of revoked certificates only, and refuses them when they come back', async () => {
    const fridge = device('sensor', 'fridge-cut');
    const screen = device('kds', 'kds-cut');
    const fridgeCert = await certOf(fridge);
    const watcher = await rig.tcpClient('watcher');
    await watcher.subscribeAsync(storeChannelFilter(STORE, 'telemetry'), { qos: 1 });
    const seen = inbox(watcher);
    const fridgeClient = await rig.tlsClient(fridgeCert, fridge.deviceId);
    const screenClient = await rig.tlsClient(await certOf(screen), screen.deviceId);

    expect(rig.broker.disconnectRevoked(isRevoked)).toEqual([]);
    revoked.add(fridgeCert.serial);
    expect(rig.broker.disconnectRevoked(isRevoked)).toEqual([fridge.deviceId]);
    await closed(fridgeClient);
    expect(rig.find('session closed: its certificate was revoked')).toContainEqual(
      expect.objectContaining({ clientId: fridge.deviceId, serial: fridgeCert.serial }),
    );

    // The other device keeps its session, and what it sends still reaches its readers.
    expect(screenClient.connected).toBe(true);
    await screenClient.publishAsync(deviceTopic({ ...screen, channel: 'telemetry' }), '{"temperature_c":4}', {
      qos: 1,
    });
    await seen.next(1);
    expect(seen.messages.map((message) => message.topic)).toEqual([
      deviceTopic({ ...screen, channel: 'telemetry' }),
    ]);
    // A development client on plain TCP has no certificate to revoke.
    expect(watcher.connected).toBe(true);

    await expect(rig.tlsClient(fridgeCert, fridge.deviceId)).rejects.toMatchObject({ code: 5 });
    expect(rig.broker.disconnectRevoked(isRevoked)).toEqual([]);
  });

  it('closes a client its revocation reached while it was connecting, once the broker registers it', async () => {
    const sensor = device('sensor', 'fridge-mid-connect');
    const cert = await certOf(sensor);
    revokedAfterConnect.add(cert.serial);
    // Admitted at CONNECT (the list did not know yet), then closed before it could use its session.
    const attempt = rig.tlsClient(cert, sensor.deviceId).then(
      (client) => closed(client),
      () => undefined,
    );
    await attempt;
    await waitFor(() =>
      rig
        .find('session closed: its certificate was revoked')
        .some((line) => line.clientId === sensor.deviceId),
    );
    expect(revoked.has(cert.serial)).toBe(true);
    await expect(rig.tlsClient(cert, sensor.deviceId)).rejects.toMatchObject({ code: 5 });
  });
});
