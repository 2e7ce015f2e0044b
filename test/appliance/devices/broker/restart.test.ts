import { connect, type IClientOptions, type MqttClient } from 'mqtt';
import type { IConnackPacket, IPublishPacket } from 'mqtt-packet';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deviceTopic, storeChannelFilter } from '../../../../shared/mqtt/topics.ts';
import type { IssuedCert } from '../../../support/device-certs.ts';
import { connectPacket, rawClient } from './raw-client.ts';
import { inbox, type Pki, STORE, sleep, startTestBroker, type TestBroker, testPki } from './support.ts';

const MANAGER = '01900000-0000-7000-8000-000000000001';
const printer = { deviceType: 'printer' as const, locationId: STORE, deviceId: 'printer-1' };
const fridge = { deviceType: 'sensor' as const, locationId: STORE, deviceId: 'fridge-1' };

let pki: Pki;
let rig: TestBroker | undefined;
const opened: MqttClient[] = [];
beforeAll(async () => {
  pki = await testPki();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.endAsync(true).catch(() => {})));
  await rig?.close();
  rig = undefined;
});

/** A persistent-session client whose inbox is listening before the broker flushes its queue. */
async function sessionClient(cert: IssuedCert, clientId: string, extra: IClientOptions = {}) {
  const client = connect(`mqtts://127.0.0.1:${rig!.broker.tlsPort}`, {
    ca: pki.ca.cert,
    cert: cert.cert,
    key: cert.key,
    clientId,
    clean: false,
    protocolVersion: 4,
    reconnectPeriod: 0,
    ...extra,
  });
  opened.push(client);
  const box = inbox(client);
  await new Promise<void>((resolve, reject) => {
    client.once('connect', () => resolve());
    client.once('error', reject);
  });
  return { client, box };
}

describe('persistent sessions across a broker restart', () => {
  it('delivers a command queued for an offline device exactly once when it returns', async () => {
    rig = await startTestBroker(pki);
    const deviceCert = await pki.ca.device(printer.deviceType, STORE, printer.deviceId);
    const cmd = deviceTopic({ ...printer, channel: 'cmd' });
    const first = await sessionClient(deviceCert, printer.deviceId);
    await first.client.subscribeAsync(cmd, { qos: 1 });
    await first.client.endAsync();

    const manager = await rig.tlsClient(await pki.ca.staff(MANAGER, ['manager'], STORE), MANAGER);
    await manager.publishAsync(cmd, '{"command":"print_test_page"}', { qos: 1 });
    await manager.endAsync();
    await sleep(50);
    await rig.restart();

    const back = await sessionClient(deviceCert, printer.deviceId);
    expect(await back.box.next(1)).toMatchObject([
      { topic: cmd, payload: '{"command":"print_test_page"}', qos: 1 },
    ]);
    await sleep(200);
    await back.client.endAsync();
    const again = await sessionClient(deviceCert, printer.deviceId);
    await sleep(300);
    expect(back.box.messages).toHaveLength(1);
    expect(again.box.messages).toEqual([]);
  });

  it('routes a QoS 2 alert exactly once when the restart falls between PUBREC and PUBREL', async () => {
    rig = await startTestBroker(pki);
    const alert = deviceTopic({ ...fridge, channel: 'alert' });
    const managerCert = await pki.ca.staff(MANAGER, ['manager'], STORE);
    const board = await sessionClient(managerCert, MANAGER);
    await board.client.subscribeAsync(storeChannelFilter(STORE, 'alert'), { qos: 2 });

    const deviceCert = await pki.ca.device(fridge.deviceType, STORE, fridge.deviceId);
    const tls = { ca: pki.ca.cert, cert: deviceCert.cert, key: deviceCert.key };
    const publish: IPublishPacket = {
      cmd: 'publish',
      topic: alert,
      payload: Buffer.from('{"temperature_c":9.5}'),
      qos: 2,
      messageId: 7,
      retain: false,
      dup: false,
    };
    const device = await rawClient(rig.broker.tlsPort!, { tls });
    device.send(connectPacket(fridge.deviceId, false));
    expect(((await device.take('connack')) as IConnackPacket).returnCode).toBe(0);
    device.send(publish);
    expect(await device.take('pubrec')).toMatchObject({ messageId: 7 });
    expect(await board.box.next(1)).toMatchObject([{ topic: alert, qos: 2 }]);
    await sleep(100);

    await rig.restart(); // the device's PUBREL never left
    device.close();
    const boardBack = await sessionClient(managerCert, MANAGER);
    // As a screen does when unsure its session survived: subscribing again changes nothing.
    await boardBack.client.subscribeAsync(storeChannelFilter(STORE, 'alert'), { qos: 2 });

    // Back, the device cannot know whether its PUBLISH arrived: it sends it again (DUP), then PUBREL.
    const deviceBack = await rawClient(rig.broker.tlsPort!, { tls });
    deviceBack.send(connectPacket(fridge.deviceId, false));
    expect(((await deviceBack.take('connack')) as IConnackPacket).returnCode).toBe(0);
    deviceBack.send({ ...publish, dup: true });
    expect(await deviceBack.take('pubrec')).toMatchObject({ messageId: 7 });
    deviceBack.send({ cmd: 'pubrel', messageId: 7 });
    expect(await deviceBack.take('pubcomp')).toMatchObject({ messageId: 7 });
    await sleep(300);
    deviceBack.close();

    expect(board.box.messages).toHaveLength(1);
    expect(boardBack.box.messages).toEqual([]);
  });
});
