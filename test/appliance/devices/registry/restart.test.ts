import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MqttClient } from 'mqtt';
import pino from 'pino';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApplianceApp, createApplianceServices } from '../../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../../appliance/config.ts';
import { openApplianceDb } from '../../../../appliance/db/index.ts';
import { attachDeviceRegistry, createDeviceCommands } from '../../../../appliance/devices/index.ts';
import { createManualClock } from '../../../../shared/clock.ts';
import { createSecretHasher } from '../../../../shared/identity/secrets.ts';
import { newId } from '../../../../shared/ids.ts';
import { deviceTopic } from '../../../../shared/mqtt/topics.ts';
import { CASHIER, createTestAppliance, LOCATION, MANAGER, TENANT } from '../../../support/appliance.ts';
import { type Pki, startTestBroker, testPki } from '../broker/support.ts';

const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });
const TIMEOUT_MS = 600;
const kds = { deviceType: 'kds' as const, locationId: LOCATION, deviceId: 'kds-1' };

/**
 * The appliance's API with device commands over a real broker, wired as main.ts wires them, and
 * a manager and a cashier signed in.
 */
async function startRig(pki: Pki) {
  const dir = mkdtempSync(join(tmpdir(), 'appliance-restart-'));
  const db = openApplianceDb(dir);
  const loaded = loadApplianceConfig({
    TENANT_ID: TENANT,
    LOCATION_ID: LOCATION,
    APPLIANCE_TIMEZONE: 'America/New_York',
    APPLIANCE_DATA_DIR: dir,
  });
  const config = {
    ...loaded,
    logLevel: 'silent' as const,
    devices: { ...loaded.devices, commandTimeoutMs: TIMEOUT_MS },
  };
  const clock = createManualClock('2026-06-10T19:00:00.000Z');
  const deps = { db, clock, newId, hasher };
  const services = createApplianceServices(config, deps);
  const broker = await startTestBroker(pki);
  const log = pino({ level: 'silent' });
  const wiring = { aedes: broker.broker.aedes, prefix: 'edge', locationId: LOCATION, log };
  const commands = createDeviceCommands({
    ...wiring,
    device: (id) => services.devices.device(id),
    timeoutMs: TIMEOUT_MS,
  });
  const detach = attachDeviceRegistry({ ...wiring, registry: services.devices, commands });
  const app = await buildApplianceApp(config, { ...deps, deviceCommands: commands }, services);
  const login = async (id: string, username: string, roles: string[]) => {
    const staff = { id, username, email: `${username}@acme.test`, displayName: username, roles };
    await services.auth.upsertStaff({ ...staff, pin: '123456', version: 1 });
    const response = await app.inject({
      method: 'POST',
      url: '/v1/auth/login/pin',
      payload: { identifier: username, pin: '123456' },
    });
    return response.json().status.access_token as string;
  };
  const manager = await login(MANAGER, 'ann', ['manager']);
  const cashier = await login(CASHIER, 'bob', ['staff']);
  return {
    app,
    broker,
    clock,
    devices: services.devices,
    manager,
    cashier,
    restart: (deviceId: string, token: string | null = manager) =>
      app.inject({
        method: 'POST',
        url: `/v1/devices/${deviceId}/restart`,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      }),
    async close() {
      commands.close();
      detach();
      await app.close();
      await broker.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Rig = Awaited<ReturnType<typeof startRig>>;

let pki: Pki;
let rig: Rig | undefined;
beforeAll(async () => {
  pki = await testPki();
});
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

/** The KDS over TLS with its certificate, reading its commands and answering each with `answer`. */
async function screen(r: Rig, answer?: (command: { command_id: string }) => object[]) {
  const client = await r.broker.tlsClient(await pki.ca.device('kds', LOCATION, 'kds-1'), 'kds-1');
  const received: Array<Record<string, unknown>> = [];
  client.on('message', (_topic, payload) => {
    const command = JSON.parse(payload.toString()) as { command_id: string };
    received.push(command);
    for (const body of answer?.(command) ?? []) ack(client, body);
  });
  await client.subscribeAsync(deviceTopic({ ...kds, channel: 'cmd' }), { qos: 1 });
  await expect.poll(() => r.devices.device('kds-1')?.status).toBe('online');
  return { client, received };
}

const ack = (client: MqttClient, body: object) =>
  client
    .publishAsync(deviceTopic({ ...kds, channel: 'ack' }), JSON.stringify(body), { qos: 1 })
    .catch(() => {}); // the test may end first

describe('POST /v1/devices/:device_id/restart', () => {
  it('sends the restart over the broker and answers once the device acknowledges it', async () => {
    rig = await startRig(pki);
    const kdsScreen = await screen(rig, ({ command_id }) => [
      { command_id, state: 'received' },
      { command_id },
    ]);

    const response = await rig.restart('kds-1');
    expect(response.statusCode).toBe(200);
    const { command_id, state } = response.json().data;
    expect(state).toBe('succeeded');
    expect(kdsScreen.received).toEqual([
      { command_id, kind: 'restart', expires_at: '2026-06-10T19:00:00.600Z' },
    ]);
  });

  it('answers 502 with the device’s reason when it refuses, and 504 when it stays silent', async () => {
    rig = await startRig(pki);
    let silent = false;
    await screen(rig, ({ command_id }) =>
      silent ? [] : [{ command_id, state: 'failed', reason: 'printing a ticket' }],
    );

    const refused = await rig.restart('kds-1');
    expect(refused.statusCode).toBe(502);
    expect(refused.json().error).toMatchObject({ code: 'DEVICE_COMMAND_FAILED' });
    expect(refused.json().error.message).toContain('the device failed it: printing a ticket');

    silent = true;
    const unanswered = await rig.restart('kds-1');
    expect(unanswered.statusCode).toBe(504);
    expect(unanswered.json().error).toMatchObject({ code: 'DEVICE_COMMAND_TIMEOUT' });
    expect(unanswered.json().error.message).toContain('device kds-1 did not answer in time');
  });

  it('answers 404 for a device the broker never saw and 409 for one that is offline', async () => {
    rig = await startRig(pki);
    const { client } = await screen(rig);
    expect((await rig.restart('kds-9')).json().error.code).toBe('DEVICE_NOT_FOUND');
    await client.endAsync();
    await expect.poll(() => rig?.devices.device('kds-1')?.status).toBe('offline');
    const offline = await rig.restart('kds-1');
    expect(offline.statusCode).toBe(409);
    expect(offline.json().error.code).toBe('DEVICE_OFFLINE');
  });

  it('admits managers only, and refuses a device id that is not a topic level', async () => {
    rig = await startRig(pki);
    const { received } = await screen(rig);
    expect((await rig.restart('kds-1', null)).statusCode).toBe(401);
    expect((await rig.restart('kds-1', rig.cashier)).statusCode).toBe(403);
    const bad = await rig.restart('kds%2B1');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details).toEqual([{ field: 'params.device_id', message: expect.any(String) }]);
    expect(received).toEqual([]);
  });

  it('stops waiting for the device when the appliance shuts down', async () => {
    rig = await startRig(pki);
    const { received } = await screen(rig);
    const pending = rig.restart('kds-1');
    await expect.poll(() => received.length).toBe(1);
    const closed = rig.app.close();
    const response = await pending;
    await closed;
    expect(response.statusCode).toBe(503);
    expect(response.json().error.message).toContain('the appliance is stopping');
  });

  it('answers 503 where no broker carries commands', async () => {
    const t = await createTestAppliance();
    try {
      t.services.devices.connected({ deviceId: 'kds-1', deviceType: 'kds' });
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/devices/kds-1/restart',
        headers: { authorization: `Bearer ${t.manager}` },
      });
      expect(response.statusCode).toBe(503);
      expect(response.json().error.code).toBe('DEVICE_COMMANDS_UNAVAILABLE');
    } finally {
      await t.close();
    }
  });
});
