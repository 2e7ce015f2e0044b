import type { MqttClient } from 'mqtt';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { deviceTopic } from '../../../../shared/mqtt/topics.ts';
import { LOCATION } from '../../../support/appliance.ts';
import { type Pki, testPki } from '../broker/support.ts';
import { type DeviceRig, startDeviceRig } from './support.ts';

const kds = { deviceType: 'kds' as const, locationId: LOCATION, deviceId: 'kds-1' };
const command = (id: string) => ({
  command_id: id,
  kind: 'restart' as const,
  expires_at: '2026-06-10T20:00:00.000Z',
});

let pki: Pki;
let s: DeviceRig | undefined;
beforeAll(async () => {
  pki = await testPki();
});
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** The KDS over TLS with its certificate, reading its own commands. */
async function screen(rig: DeviceRig) {
  const client = await rig.rig.tlsClient(await pki.ca.device('kds', LOCATION, 'kds-1'), 'kds-1');
  await client.subscribeAsync(deviceTopic({ ...kds, channel: 'cmd' }), { qos: 1 });
  await expect.poll(() => rig.devices.device('kds-1')?.status).toBe('online');
  return client;
}

const answer = (client: MqttClient, body: object) =>
  client.publishAsync(deviceTopic({ ...kds, channel: 'ack' }), JSON.stringify(body), { qos: 1 });

describe('commands passed on to a store device', () => {
  it('wait for the device’s own answer, and take a failure with its reason', async () => {
    s = await startDeviceRig(pki);
    const client = await screen(s);
    client.on('message', (_topic, payload) => {
      const { command_id } = JSON.parse(payload.toString()) as { command_id: string };
      const final =
        command_id === 'ok' ? { command_id } : { command_id, state: 'failed', reason: 'paper jam' };
      answer(client, { command_id, state: 'received' })
        .then(() => answer(client, final))
        .catch(() => {}); // the test may end first
    });
    await expect(s.commands.send('kds-1', command('ok'))).resolves.toEqual({
      command_id: 'ok',
      state: 'succeeded',
    });
    await expect(s.commands.send('kds-1', command('bad'))).rejects.toThrow('the device failed it: paper jam');
  });

  it('ignore an answer from another device, and give up after the time-out', async () => {
    s = await startDeviceRig(pki);
    await screen(s);
    const other = await s.rig.tcpClient('printer-1');
    const sent = s.commands.send('kds-1', command('c1'));
    // The developer listener lets anyone publish anywhere; only kds-1's own ack topic counts.
    await other.publishAsync(
      deviceTopic({ ...kds, deviceId: 'printer-1', deviceType: 'printer', channel: 'ack' }),
      JSON.stringify({ command_id: 'c1' }),
      { qos: 1 },
    );
    await expect(sent).rejects.toThrow('device kds-1 did not answer in time');
  });

  it('stop waiting when the command is cancelled', async () => {
    s = await startDeviceRig(pki);
    await screen(s);
    const controller = new AbortController();
    const sent = s.commands.send('kds-1', command('c2'), controller.signal);
    controller.abort();
    await expect(sent).rejects.toThrow('cancelled');
  });
});
