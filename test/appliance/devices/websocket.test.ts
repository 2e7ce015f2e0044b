import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectAsync, type MqttClient } from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createApplianceServices } from '../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { openApplianceDb } from '../../../appliance/db/index.ts';
import { DEFAULT_MAX_PACKET_BYTES } from '../../../appliance/devices/index.ts';
import { startAppliance } from '../../../appliance/main.ts';
import { systemClock } from '../../../shared/clock.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';
import { deviceTopic, storeChannelFilter, storeStatusFilter } from '../../../shared/mqtt/topics.ts';
import { grants, inbox } from './broker/support.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const LOCATION = '01900000-0000-7000-8000-0000000000c3';
const MANAGER = '01900000-0000-7000-8000-000000000001';
const CASHIER = '01900000-0000-7000-8000-000000000002';

let dir: string;
let appliance: Awaited<ReturnType<typeof startAppliance>>;
const clients: MqttClient[] = [];

/** The appliance as main.ts runs it, with the dev TCP listener on and two staff members seeded. */
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'appliance-mqtt-ws-'));
  const config = loadApplianceConfig({
    TENANT_ID: TENANT,
    LOCATION_ID: LOCATION,
    APPLIANCE_DATA_DIR: dir,
    APPLIANCE_PORT: '0',
    APPLIANCE_HOST: '127.0.0.1',
    APPLIANCE_MQTT_PORT: '0',
    LOG_LEVEL: 'silent',
  });
  const db = openApplianceDb(dir);
  const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });
  const { auth } = createApplianceServices(config, { db, clock: systemClock, newId, hasher });
  const staff = { pin: '123456', version: 1 };
  await auth.upsertStaff({
    ...staff,
    id: MANAGER,
    email: 'ann@acme.test',
    username: 'ann',
    displayName: 'Ann',
    roles: ['manager'],
  });
  await auth.upsertStaff({
    ...staff,
    id: CASHIER,
    email: 'bob@acme.test',
    username: 'bob',
    displayName: 'Bob',
    roles: ['staff'],
  });
  db.close();
  appliance = await startAppliance(config);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.endAsync(true).catch(() => {})));
  await appliance.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function login(identifier: string) {
  const response = await appliance.app.inject({
    method: 'POST',
    url: '/v1/auth/login/pin',
    payload: { identifier, pin: '123456' },
  });
  return response.json().status.access_token as string;
}

async function overWebSocket(token: string, clientId: string) {
  const client = await connectAsync(
    `ws://127.0.0.1:${appliance.port}/mqtt`,
    { username: 'bearer', password: token, clientId, protocolVersion: 4, reconnectPeriod: 0 },
    false,
  );
  clients.push(client);
  return client;
}

describe('MQTT over WebSocket at the local API’s /mqtt', () => {
  it('gives a cashier’s screen the device board and nothing more', async () => {
    const screen = await overWebSocket(await login('bob'), `${CASHIER}:board`);
    expect(
      await grants(screen, [storeStatusFilter(LOCATION), storeChannelFilter(LOCATION, 'alert')]),
    ).toEqual([0, 128]);
  });

  it('lets a manager read telemetry and command a device', async () => {
    const device = await connectAsync(`mqtt://127.0.0.1:${appliance.broker.tcpPort}`, {
      clientId: 'kds-dev',
      protocolVersion: 4,
      reconnectPeriod: 0,
    });
    clients.push(device);
    const cmd = deviceTopic({ deviceType: 'kds', locationId: LOCATION, deviceId: 'kds-1', channel: 'cmd' });
    await device.subscribeAsync(cmd, { qos: 1 });
    const commands = inbox(device);
    const manager = await overWebSocket(await login('ann'), MANAGER);
    expect(await grants(manager, [storeChannelFilter(LOCATION, 'telemetry')], 1)).toEqual([1]);
    await manager.publishAsync(cmd, 'refresh', { qos: 1 });
    expect(await commands.next(1)).toMatchObject([{ topic: cmd, payload: 'refresh' }]);
  });

  it('refuses a connection without a valid token (bad user name or password)', async () => {
    await expect(overWebSocket('not-a-token', `${CASHIER}:x`)).rejects.toMatchObject({ code: 4 });
  });

  it('closes a frame larger than the broker’s largest packet before buffering it (1009)', async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${appliance.port}/mqtt`, 'mqtt');
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(Buffer.alloc(DEFAULT_MAX_PACKET_BYTES + 1));
    expect(await closed).toBe(1009);
  });

  it('leaves the kitchen feed’s WebSocket working beside it', async () => {
    const token = await login('bob');
    const socket = new WebSocket(
      `ws://127.0.0.1:${appliance.port}/v1/commerce/kds/feed?access_token=${token}`,
    );
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    socket.close();
  });
});
