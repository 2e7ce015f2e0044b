import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import mqtt, { type MqttClient } from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { createFleetHandlers } from '../../../appliance/fleet/handlers.ts';
import { startAppliance } from '../../../appliance/main.ts';
import { deviceTopic } from '../../../shared/mqtt/topics.ts';
import { LOCATION, TENANT } from '../../support/appliance.ts';
import { type ArchiveServer, manifestFor, releaseArchive, sha256, startArchiveServer } from './releases.ts';
import { type FleetRig, startFleetRig } from './support.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');

const printer = { deviceType: 'printer' as const, locationId: LOCATION, deviceId: 'printer-1' };

let rig: FleetRig | undefined;
const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await rig?.close();
  rig = undefined;
});

/** A printer on the appliance's broker, with a persistent session on its own command topic. */
async function connectPrinter(answer: boolean) {
  const client: MqttClient = await mqtt.connectAsync(`mqtt://127.0.0.1:${rig!.appliance.broker.tcpPort}`, {
    clientId: printer.deviceId,
    clean: false,
    reconnectPeriod: 0,
  });
  closers.push(() => client.endAsync(true));
  const received: Array<Record<string, unknown>> = [];
  client.on('message', (_topic, payload) => {
    const command = JSON.parse(payload.toString()) as Record<string, unknown>;
    received.push(command);
    if (answer)
      client.publish(
        deviceTopic({ ...printer, channel: 'ack' }),
        JSON.stringify({ command_id: command.command_id, state: 'succeeded' }),
        {
          qos: 1,
        },
      );
  });
  await client.subscribeAsync(deviceTopic({ ...printer, channel: 'cmd' }), { qos: 1 });
  await client.publishAsync(
    deviceTopic({ ...printer, channel: 'status' }),
    JSON.stringify({ online: true, firmware: '3.0' }),
  );
  await expect.poll(() => rig!.appliance.services.devices.device(printer.deviceId)?.status).toBe('online');
  return { client, received };
}

describe('fleet commands on the appliance', () => {
  it('restarts itself after answering, and runs sync now only where sync is configured', async () => {
    rig = await startFleetRig();
    const restart = await rig.run('restart');
    expect(rig.statesOf(restart.command_id)).toEqual(['received', 'succeeded']);
    expect(restart.result).toEqual({ restarting: true });
    await expect.poll(() => rig!.restarts).toBe(1);

    const sync = await rig.run('sync_now');
    expect(sync).toMatchObject({ state: 'failed', reason: 'sync is not configured on this appliance' });
  });

  it('passes a restart on to a store device and succeeds when the device answers', async () => {
    rig = await startFleetRig();
    const device = await connectPrinter(true);
    const done = await rig.run('restart', {}, { device_id: printer.deviceId });
    expect(done).toMatchObject({
      state: 'succeeded',
      result: { device_id: printer.deviceId, answered: true },
    });
    expect(device.received).toEqual([
      { command_id: done.command_id, kind: 'restart', expires_at: expect.any(String) },
    ]);
    expect(rig.restarts).toBe(0);

    const unknown = await rig.run('restart', {}, { device_id: 'nobody' });
    expect(unknown).toMatchObject({
      state: 'failed',
      reason: expect.stringContaining('has never connected'),
    });
  });

  it('fails a restart the device does not answer in time, which the device still gets when back', async () => {
    rig = await startFleetRig();
    const silent = await connectPrinter(false);
    const unanswered = await rig.run('restart', {}, { device_id: printer.deviceId });
    expect(unanswered).toMatchObject({ state: 'failed', reason: 'device printer-1 did not answer in time' });
    expect(silent.received).toHaveLength(1);

    await silent.client.endAsync();
    await expect.poll(() => rig!.appliance.services.devices.device(printer.deviceId)?.status).toBe('offline');
    const away = await rig.run('restart', {}, { device_id: printer.deviceId });
    expect(away).toMatchObject({
      state: 'failed',
      reason: expect.stringContaining('is offline and did not answer in time'),
    });
    const back = await connectPrinter(false);
    await expect.poll(() => back.received.map((c) => c.command_id)).toEqual([away.command_id]);
  });

  it('stores pushed settings and a device’s limits, and refuses what it does not know', async () => {
    rig = await startFleetRig();
    const pushed = await rig.run('settings', {
      edge: { video_retention_days: 7 },
      cameras: { 'cam-1': { inference_fps: 10 } },
    });
    expect(pushed).toMatchObject({ state: 'succeeded', result: { sections: ['edge', 'camera:cam-1'] } });
    const settings = rig.appliance.fleet!.settings;
    expect(settings.section('edge')).toEqual({ video_retention_days: 7 });
    expect(settings.section('camera:cam-1')).toEqual({ inference_fps: 10 });

    const typo = await rig.run('settings', { edge: { video_retention: 7 } });
    expect(typo).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^settings refused: \/edge/),
    });
    expect(settings.section('edge')).toEqual({ video_retention_days: 7 });

    const limits = await rig.run('settings', { max_temperature_c: 5 }, { device_id: 'fridge-1' });
    expect(limits.state).toBe('succeeded');
    expect(rig.appliance.services.devices.settingsOf('fridge-1')).toEqual({ max_temperature_c: 5 });
    const fridge = await rig.run('settings', { max_temperature_c: 'warm' }, { device_id: 'fridge-1' });
    expect(fridge.state).toBe('failed');
  });
});

describe('over-the-air updates through the fleet link', () => {
  let server: ArchiveServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const PACKAGE_VERSION = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;

  it('applies a signed update with progress, then restarts into it; refuses a bad signature', async () => {
    rig = await startFleetRig();
    server = await startArchiveServer();
    // In pieces, so the download reports progress more than once.
    server.state.bytesPerTick = 64 * 1024;
    const bytes = releaseArchive('1.1.0', { padding: 640 * 1024 });
    const url = server.publish('1.1.0.tar.gz', bytes);
    const forged = await rig.run('update', {
      ...manifestFor('1.1.0', url, bytes, generateKeyPairSync('ed25519').privateKey),
    });
    expect(forged).toMatchObject({
      state: 'failed',
      reason: 'refused: the signature does not verify with the update key',
    });

    const update = await rig.run('update', { ...manifestFor('1.1.0', url, bytes, rig.updateKey) });
    expect(update).toMatchObject({
      state: 'succeeded',
      result: { version: '1.1.0', previous: null, restarting: true },
    });
    const states = rig.statesOf(update.command_id);
    expect(states[0]).toBe('received');
    expect(states.filter((state) => state === 'progress').length).toBeGreaterThanOrEqual(2);
    const progress = rig.acks.filter((a) => a.command_id === update.command_id && a.state === 'progress');
    expect(progress.at(-1)?.progress).toBe(1);
    expect(readlinkSync(join(rig.dataDir, 'updates', 'current'))).toBe(join('versions', '1.1.0'));
    await expect.poll(() => rig!.restarts).toBe(1);
    // The link reports the bundle that runs, not the version waiting for the restart.
    expect(rig.statuses.at(-1)).toMatchObject({ online: true, version: PACKAGE_VERSION });
  });

  it('fails an update whose new version fails its health check as rolled_back, with the reason', async () => {
    rig = await startFleetRig();
    server = await startArchiveServer();
    const bytes = releaseArchive('1.1.0', { health: 'unhealthy' });
    const url = server.publish('1.1.0.tar.gz', bytes);
    const update = await rig.run('update', { ...manifestFor('1.1.0', url, bytes, rig.updateKey) });
    expect(update).toMatchObject({
      state: 'failed',
      reason: "rolled_back: migrations: the database is at migration 99, newer than this version's 20",
    });
    expect(existsSync(join(rig.dataDir, 'updates', 'current'))).toBe(false);
    expect(rig.restarts).toBe(0);
  });

  it('resumes a download a cancelled command left, when the cloud sends the update again', async () => {
    rig = await startFleetRig();
    server = await startArchiveServer();
    server.state.bytesPerTick = 16 * 1024;
    const bytes = releaseArchive('1.1.0', { padding: 400 * 1024 });
    const manifest = { ...manifestFor('1.1.0', server.publish('1.1.0.tar.gz', bytes), bytes, rig.updateKey) };
    const first = await rig.send('update', manifest);
    await expect.poll(() => rig!.statesOf(first).includes('progress')).toBe(true);
    await rig.run('cancel_update', { command_id: first });
    expect(await rig.ended(first)).toMatchObject({ state: 'failed', reason: 'cancelled' });
    const part = join(rig.dataDir, 'updates', 'downloads', `${sha256(bytes)}.part`);
    const kept = statSync(part).size;
    expect(kept).toBeGreaterThan(0);

    server.state.bytesPerTick = 0;
    const again = await rig.run('update', manifest);
    expect(again).toMatchObject({ state: 'succeeded', result: { version: '1.1.0' } });
    expect(server.requests.at(-1)?.range).toBe(`bytes=${kept}-`);
  });

  it('refuses every update when no update key is configured', async () => {
    rig = await startFleetRig({ APPLIANCE_UPDATE_PUBLIC_KEY: '' });
    const refused = await rig.run('update', { version: '1.1.0' });
    expect(refused).toMatchObject({
      state: 'failed',
      reason: expect.stringContaining('APPLIANCE_UPDATE_PUBLIC_KEY'),
    });
  });
});

describe('the fleet link while the cloud is away', () => {
  it('lets the appliance start and stop without ever reaching the fleet broker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'appliance-fleet-away-'));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    const config = loadApplianceConfig({
      TENANT_ID: TENANT,
      LOCATION_ID: LOCATION,
      APPLIANCE_DATA_DIR: dir,
      APPLIANCE_PORT: '0',
      APPLIANCE_HOST: '127.0.0.1',
      APPLIANCE_CLOUD_CREDENTIAL: `sak_01900000-0000-7000-8000-0000000000f1.${'x'.repeat(24)}`,
      // Nothing listens on port 1.
      APPLIANCE_FLEET_URL: 'mqtt://127.0.0.1:1',
      LOG_LEVEL: 'silent',
    });
    const appliance = await startAppliance(config);
    expect(appliance.fleet?.link.connected()).toBe(false);
    const started = Date.now();
    await appliance.stop();
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('sync now', () => {
  it('answers with the round it ran, and fails when the round did not reach the cloud', async () => {
    const rounds = [{ pushed: 3, pulled: 1, conflicts: 0, rejected: 0 }, undefined];
    const handlers = createFleetHandlers({
      syncNow: async () => rounds.shift(),
      restartSelf: () => {},
      devices: undefined as never,
      deviceCommands: undefined,
      settings: undefined as never,
      updater: undefined,
    });
    const command = {
      id: 'c1',
      kind: 'sync_now' as const,
      payload: {},
      issued_at: new Date().toISOString(),
      expires_at: new Date().toISOString(),
    };
    const context = { progress: () => {}, signal: new AbortController().signal };
    expect(await handlers.sync_now!(command, context)).toEqual({
      pushed: 3,
      pulled: 1,
      conflicts: 0,
      rejected: 0,
    });
    await expect(handlers.sync_now!(command, context)).rejects.toThrow('did not reach the cloud');
  });
});
