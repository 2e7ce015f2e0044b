import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openApplianceDb } from '../../../../appliance/db/index.ts';
import { createFleetHandlers, type FleetVision } from '../../../../appliance/fleet/handlers.ts';
import { createCommandJournal } from '../../../../appliance/fleet/journal.ts';
import { createApplianceFleetLink } from '../../../../appliance/fleet/link.ts';
import { createDetector, type Detector } from '../../../../appliance/vision/detect/detector.ts';
import { loadModel } from '../../../../appliance/vision/detect/model.ts';
import { createModelStore } from '../../../../appliance/vision/models/index.ts';
import { loadCloudConfig } from '../../../../cloud/config.ts';
import { startCloud } from '../../../../cloud/main.ts';
import { systemClock } from '../../../../shared/clock.ts';
import type { FleetCommand } from '../../../../shared/devices/fleet-protocol.ts';
import { bundledModels, cloudTenant, detectOptions, frame } from './support.ts';

const log = pino({ level: 'silent' });
const context = () => ({ progress: () => {}, signal: new AbortController().signal });
const command = (
  kind: FleetCommand['kind'],
  payload: Record<string, unknown>,
  deviceId?: string,
): FleetCommand => ({
  id: `c-${kind}`,
  kind,
  payload,
  ...(deviceId ? { device_id: deviceId } : {}),
  issued_at: new Date().toISOString(),
  expires_at: new Date(Date.now() + 60_000).toISOString(),
});
const handlersWith = (vision?: FleetVision) =>
  createFleetHandlers({
    syncNow: undefined,
    restartSelf: () => {},
    devices: undefined as never,
    deviceCommands: undefined,
    settings: undefined as never,
    updater: undefined,
    vision,
  });

describe('the fleet handlers of the camera pipeline', () => {
  it('refuses calibration and model syncs where no camera pipeline runs', async () => {
    const handlers = handlersWith();
    await expect(
      handlers.calibrate!(command('calibrate', { camera_id: 'lane-1' }), context()),
    ).rejects.toThrow('this appliance runs no camera pipeline');
    await expect(handlers.models_sync!(command('models_sync', { models: [] }), context())).rejects.toThrow(
      'this appliance runs no camera pipeline',
    );
  });

  it('hands a calibration to the pipeline with its camera, checked', async () => {
    const asked: string[] = [];
    const handlers = handlersWith({
      calibrate: async (cameraId) => {
        asked.push(cameraId);
        return { camera_id: cameraId, calibrated: true };
      },
    });
    expect(await handlers.calibrate!(command('calibrate', { camera_id: 'lane-1' }), context())).toEqual({
      camera_id: 'lane-1',
      calibrated: true,
    });
    await expect(handlers.calibrate!(command('calibrate', {}), context())).rejects.toThrow(/camera_id/);
    await expect(handlers.calibrate!(command('calibrate', { camera_id: 7 }), context())).rejects.toThrow(
      /camera_id/,
    );
    expect(asked).toEqual(['lane-1']);
    // A pipeline that cannot sync models says so.
    await expect(handlers.models_sync!(command('models_sync', {}), context())).rejects.toThrow(
      'this appliance runs no camera pipeline',
    );
    await expect(handlers.models_sync!(command('models_sync', {}, 'some-device'), context())).rejects.toThrow(
      /not on a store device/,
    );
  });
});

describe('a model sync from the cloud’s API to the appliance’s detector, over the fleet link', () => {
  const closers: Array<() => Promise<void> | void> = [];
  const applianceClosers: Array<() => Promise<void> | void> = [];
  let cloud: Awaited<ReturnType<typeof startCloud>>;
  let tenant: Awaited<ReturnType<typeof cloudTenant>>;
  let detector: Detector;
  let modelsDir: string;
  let cloudUrl: string;
  let bundledDir: string;
  let progress: number[];

  // The cloud, the versions it offers and the bundled model are only read by the tests: built once.
  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'models-cloud-'));
    closers.push(() => rmSync(dataDir, { recursive: true, force: true }));
    cloud = await startCloud(
      {
        ...loadCloudConfig({
          DATA_DIR: dataDir,
          CLOUD_PORT: '0',
          LOG_LEVEL: 'silent',
          CLOUD_RATE_LIMIT: 'false',
        }),
        hashing: { memoryCost: 1024, timeCost: 1 },
      },
      { log },
    );
    closers.push(cloud.stop);
    tenant = await cloudTenant(cloud.app, cloud.services, { host: `127.0.0.1:${cloud.port}` });
    await tenant.publish('1.1.0');
    await tenant.publish('2.0.0-broken', Buffer.from('bytes that load as no model'));
    cloudUrl = `http://127.0.0.1:${cloud.port}`;
    bundledDir = bundledModels();
    closers.push(() => rmSync(bundledDir, { recursive: true, force: true }));
  });
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  // Each test gets an appliance of its own, running the bundled model: a sync changes its model
  // store and its detector, which the next test would otherwise find already changed. They are the
  // cloud's one edge, so a test waits for every sync it queues: the link would hand one still
  // queued to the next test's appliance.
  beforeEach(async () => {
    // The appliance: its model store, the detector running the bundled model, its fleet link.
    const applianceDir = mkdtempSync(join(tmpdir(), 'models-appliance-'));
    applianceClosers.push(() => rmSync(applianceDir, { recursive: true, force: true }));
    modelsDir = join(applianceDir, 'models');
    const store = createModelStore({
      dir: modelsDir,
      bundledDir,
      cloudUrl,
      applianceKey: tenant.credential,
      log,
    });
    const running = await createDetector(await loadModel(store.resolve('rectangles')), { maxBatch: 1, log });
    detector = running;
    applianceClosers.push(() => running.close());
    const db = openApplianceDb(applianceDir);
    applianceClosers.push(() => {
      db.close();
    });
    progress = [];
    // How the runtime wires it: the store's sync with the detector's swap.
    const vision: FleetVision = {
      calibrate: async (cameraId) => ({ camera_id: cameraId }),
      syncModels: (payload, options) =>
        store.syncModels(payload, {
          ...options,
          onProgress: (fraction) => {
            progress.push(fraction);
            options.onProgress(fraction);
          },
          apply: (_name, loaded) => running.swap(loaded),
        }),
    };
    const link = createApplianceFleetLink({
      url: cloud.fleet!.url,
      username: tenant.edgeId,
      password: tenant.credential,
      tenantId: tenant.tenantId,
      applianceId: tenant.edgeId,
      version: '1.0.0',
      journal: createCommandJournal(db),
      handlers: handlersWith(vision),
      clock: systemClock,
      log,
    });
    applianceClosers.push(() => link.close());
    await link.start();
  });
  afterEach(async () => {
    for (const close of applianceClosers.splice(0).reverse()) await close();
  });

  const state = (commandId: string) =>
    tenant.call('GET', `/v1/vision/edge/${tenant.edgeId}/models/sync/${commandId}`);

  it('installs the version: the API shows it succeeded, the detector runs it', async () => {
    const { commandId } = await tenant.syncPayload(['1.1.0']);
    await expect.poll(async () => (await state(commandId)).status, { timeout: 15_000 }).toBe('succeeded');
    expect(await state(commandId)).toMatchObject({
      progress: 1,
      models: [{ model_id: 'rectangles', version: '1.1.0', status: 'installed', reason: null }],
    });
    expect(progress.at(-1)).toBe(1);
    expect(detector.manifest.version).toBe('1.1.0');
    expect(JSON.parse(readFileSync(join(modelsDir, 'rectangles', 'current.json'), 'utf8'))).toMatchObject({
      version: '1.1.0',
    });
    const result = await detector.detect(frame('green'), detectOptions);
    expect(result.detections.map((d) => d.className)).toEqual(['green']);
  });

  it('reports a model that cannot run as failed, with the previous one still running', async () => {
    // The previous one: 1.1.0, installed by a sync of its own.
    const installed = await tenant.syncPayload(['1.1.0']);
    await expect
      .poll(async () => (await state(installed.commandId)).status, { timeout: 15_000 })
      .toBe('succeeded');
    const { commandId } = await tenant.syncPayload(['2.0.0-broken']);
    await expect.poll(async () => (await state(commandId)).status, { timeout: 15_000 }).toBe('failed');
    expect((await state(commandId)).models).toEqual([
      {
        model_id: 'rectangles',
        version: '2.0.0-broken',
        status: 'failed',
        reason: expect.stringMatching(/cannot run/),
      },
    ]);
    expect(detector.manifest.version).toBe('1.1.0');
    const result = await detector.detect(frame('red'), detectOptions);
    expect(result.detections.map((d) => d.className)).toEqual(['red']);
  });
});
