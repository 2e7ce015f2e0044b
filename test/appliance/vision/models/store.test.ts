import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDetector, type Detector } from '../../../../appliance/vision/detect/detector.ts';
import { loadModel } from '../../../../appliance/vision/detect/model.ts';
import { createModelStore, type ModelStore } from '../../../../appliance/vision/models/index.ts';
import { createTestCloud, type TestCloud } from '../../../support/cloud.ts';
import {
  bundledModels,
  cloudTenant,
  detectOptions,
  fixtureBytes,
  fixtureManifest,
  frame,
  sha256,
} from './support.ts';

const log = pino({ level: 'silent' });
type Tenant = Awaited<ReturnType<typeof cloudTenant>>;
type Entry = {
  name: string;
  version: string;
  sha256: string;
  size: number;
  url: string;
  manifest: Record<string, unknown>;
};

describe('the appliance’s model store, syncing from a real cloud', () => {
  let cloud: TestCloud;
  let cloudUrl: string;
  let tenant: Tenant;
  let bundledDir: string;
  let dataDir: string;
  let store: ModelStore;
  let detector: Detector;
  const cleanups: Array<() => Promise<void> | void> = [];
  const apply = (_name: string, loaded: Awaited<ReturnType<typeof loadModel>>) => detector.swap(loaded);
  const modelFolder = () => join(dataDir, 'models', 'rectangles');
  const filesOnDisk = () => readdirSync(modelFolder()).sort();
  const currentJson = () => JSON.parse(readFileSync(join(modelFolder(), 'current.json'), 'utf8'));
  async function detects(color: 'red' | 'green' = 'red') {
    const result = await detector.detect(frame(color), detectOptions);
    return result.detections.map((d) => d.className);
  }

  /**
   * Models folders as the store's syncs of some versions, one after the other, left them, by those
   * versions. Each is built once and then only copied: a test starts on the versions synced before
   * it without syncing them again and loading each into its detector, the slow part.
   */
  const syncedFolders = new Map<string, Promise<string>>();
  async function syncedFolder(versions: string[]) {
    const dir = mkdtempSync(join(tmpdir(), 'synced-models-'));
    const syncing = createModelStore({ dir, bundledDir, cloudUrl, applianceKey: tenant.credential, log });
    for (const version of versions) {
      const result = await syncing.syncModels((await tenant.syncPayload([version])).payload, {
        // Nothing runs here: an appliance started on a copy runs what the folder names current.
        apply: async () => {},
      });
      expect(result.models).toEqual([{ name: 'rectangles', version, status: 'installed' }]);
    }
    return dir;
  }
  /**
   * Starts the test's appliance as it starts after syncs of these versions, one after the other
   * (none: nothing installed): its models folder as they left it, its detector running the model
   * the store names current.
   */
  async function startAppliance(...synced: string[]) {
    if (synced.length > 0) {
      const key = synced.join(' ');
      if (!syncedFolders.has(key)) syncedFolders.set(key, syncedFolder(synced));
      cpSync(await syncedFolders.get(key)!, join(dataDir, 'models'), { recursive: true });
    }
    const running = await createDetector(await loadModel(store.resolve('rectangles')), { maxBatch: 2, log });
    cleanups.push(() => running.close());
    detector = running;
  }

  // The cloud, the versions it offers and the bundled model are only read by the tests: built once.
  beforeAll(async () => {
    cloud = await createTestCloud('sqlite', { config: { rateLimit: false } });
    await cloud.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = cloud.app.server.address() as AddressInfo;
    cloudUrl = `http://127.0.0.1:${port}`;
    tenant = await cloudTenant(cloud.app, cloud.services, { host: `127.0.0.1:${port}` });
    // Re-versioned copies of the fixture, and bytes that are no model at all under a true digest.
    for (const version of ['1.1.0', '1.2.0', '1.3.0']) await tenant.publish(version);
    await tenant.publish('2.0.0-broken', Buffer.from('not an onnx model, though its digest is right'));
    bundledDir = bundledModels();
  });
  afterAll(async () => {
    await cloud.close();
    rmSync(bundledDir, { recursive: true, force: true });
    for (const folder of syncedFolders.values()) rmSync(await folder, { recursive: true, force: true });
  });

  // Each test gets an appliance of its own (started by startAppliance): the versions a test
  // installs or rolls back are on its disk and in its detector only.
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'appliance-models-'));
    store = createModelStore({
      dir: join(dataDir, 'models'),
      bundledDir,
      cloudUrl,
      applianceKey: tenant.credential,
      log,
    });
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs the bundled model while nothing is installed', async () => {
    await startAppliance();
    expect(store.resolve('rectangles')).toBe(join(bundledDir, 'rectangles'));
    expect(store.current('rectangles')).toMatchObject({ version: '1.0.0', source: 'bundled' });
    expect(() => store.resolve('nothing')).toThrow(/no model "nothing"/);
    expect(detector.manifest.version).toBe('1.0.0');
  });

  it('installs a version from the cloud: downloaded, checked, swapped in, then named current', async () => {
    await startAppliance();
    const { payload } = await tenant.syncPayload(['1.1.0']);
    const progress: number[] = [];
    const result = await store.syncModels(payload, { apply, onProgress: (f) => progress.push(f) });
    expect(result).toEqual({ models: [{ name: 'rectangles', version: '1.1.0', status: 'installed' }] });
    // Progress in steps of at least 5%, ending at 1.
    expect(progress.length).toBeGreaterThan(3);
    expect(progress.at(-1)).toBe(1);
    for (let i = 1; i < progress.length; i += 1) {
      expect(progress[i]! - progress[i - 1]!).toBeGreaterThanOrEqual(i === progress.length - 1 ? 0 : 0.05);
    }
    expect(store.resolve('rectangles')).toBe(join(modelFolder(), '1.1.0'));
    expect(currentJson()).toMatchObject({ version: '1.1.0', sha256: sha256(fixtureBytes), previous: null });
    expect(filesOnDisk()).toEqual(['1.1.0.json', '1.1.0.onnx', 'current.json']);
    expect(detector.manifest.version).toBe('1.1.0');
    expect(await detects('red')).toEqual(['red']);

    // Asked again, it is already there: nothing is downloaded or swapped.
    const again = await store.syncModels(payload, {
      apply: async () => {
        throw new Error('must not be swapped');
      },
    });
    expect(again.models).toEqual([{ name: 'rectangles', version: '1.1.0', status: 'unchanged' }]);
  });

  it('keeps the version before the current one for a rollback, and no other', async () => {
    await startAppliance('1.1.0');
    await store.syncModels((await tenant.syncPayload(['1.2.0'])).payload, { apply });
    expect(currentJson()).toMatchObject({ version: '1.2.0', previous: '1.1.0' });
    await store.syncModels((await tenant.syncPayload(['1.3.0'])).payload, { apply });
    expect(currentJson()).toMatchObject({ version: '1.3.0', previous: '1.2.0' });
    expect(store.versions('rectangles')).toEqual(['1.2.0', '1.3.0']);
    expect(detector.manifest.version).toBe('1.3.0');
  });

  it('refuses a download whose digest is not the manifest’s; the previous model stays current and running', async () => {
    await startAppliance('1.1.0', '1.2.0', '1.3.0');
    const { payload } = await tenant.syncPayload(['1.1.0']);
    // The bytes served are the fixture's; the command says they must be something else.
    const [entry] = payload.models as Entry[];
    const wrong = sha256(Buffer.from('some other model'));
    const tampered = {
      models: [
        {
          ...entry!,
          version: '1.4.0',
          sha256: wrong,
          manifest: { ...entry!.manifest, version: '1.4.0', sha256: wrong },
        },
      ],
    };
    const result = await store.syncModels(tampered, { apply });
    expect(result.models[0]).toMatchObject({
      version: '1.4.0',
      status: 'failed',
      reason: expect.stringMatching(/sha256 mismatch/),
    });
    expect(currentJson()).toMatchObject({ version: '1.3.0' });
    expect(filesOnDisk()).toEqual(['1.2.0.json', '1.2.0.onnx', '1.3.0.json', '1.3.0.onnx', 'current.json']);
    expect(detector.manifest.version).toBe('1.3.0');
    expect(await detects('green')).toEqual(['green']);
  });

  it('rolls back a model whose bytes are right but cannot run', async () => {
    await startAppliance('1.1.0', '1.2.0', '1.3.0');
    const { payload } = await tenant.syncPayload(['2.0.0-broken']);
    const result = await store.syncModels(payload, { apply });
    expect(result.models[0]).toMatchObject({
      version: '2.0.0-broken',
      status: 'failed',
      reason: expect.stringMatching(/cannot run/),
    });
    expect(currentJson()).toMatchObject({ version: '1.3.0', previous: '1.2.0' });
    expect(store.versions('rectangles')).toEqual(['1.2.0', '1.3.0']);
    expect(detector.manifest.version).toBe('1.3.0');
    expect(await detects('red')).toEqual(['red']);
  });

  it('installs what it can of several models and says what it could not', async () => {
    await startAppliance('1.1.0', '1.2.0', '1.3.0');
    const { payload } = await tenant.syncPayload(['1.1.0']);
    const [good] = payload.models as Entry[];
    const mixed = {
      models: [
        {
          ...good!,
          name: 'other',
          url: good!.url.replace('/rectangles/', '/other/'),
          manifest: { ...good!.manifest, name: 'other' },
        },
        good!,
      ],
    };
    const result = await store.syncModels(mixed, { apply });
    expect(result.models).toEqual([
      {
        name: 'other',
        version: '1.1.0',
        status: 'failed',
        reason: expect.stringMatching(/cloud answered 404/),
      },
      { name: 'rectangles', version: '1.1.0', status: 'installed' },
    ]);
    expect(existsSync(join(dataDir, 'models', 'other', '1.1.0.onnx'))).toBe(false);
    // 1.1.0 had been pruned, so it came down again; 1.3.0 is kept as the one before.
    expect(currentJson()).toMatchObject({ version: '1.1.0', previous: '1.3.0' });
  });

  it('goes back to the kept version by hand', async () => {
    // As the syncs before left it: 1.1.0 current, 1.3.0 kept before it.
    await startAppliance('1.1.0', '1.2.0', '1.3.0', '1.1.0');
    expect(await store.rollback('rectangles', apply)).toEqual({
      name: 'rectangles',
      version: '1.3.0',
      previous: '1.1.0',
    });
    expect(currentJson()).toMatchObject({ version: '1.3.0', previous: null });
    expect(store.versions('rectangles')).toEqual(['1.3.0']);
    expect(detector.manifest.version).toBe('1.3.0');
    await expect(store.rollback('rectangles', apply)).resolves.toMatchObject({ version: '1.0.0' });
    expect(store.current('rectangles')).toMatchObject({ source: 'bundled', version: '1.0.0' });
    expect(store.versions('rectangles')).toEqual([]);
  });

  it('sends its credential only to its own cloud, and refuses payloads that are not a sync', async () => {
    await startAppliance();
    const { payload } = await tenant.syncPayload(['1.2.0']);
    const [entry] = payload.models as Entry[];
    let asked = 0;
    const other = createServer((_request, response) => {
      asked += 1;
      response.end();
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => other.close(() => resolve())));
    const elsewhere = `http://127.0.0.1:${(other.address() as AddressInfo).port}/file`;
    const result = await store.syncModels({ models: [{ ...entry!, url: elsewhere }] }, { apply });
    expect(result.models[0]).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/not on this appliance's cloud/),
    });
    expect(asked).toBe(0);
    await expect(
      store.syncModels({ models: [{ ...entry!, version: '../../x' }] }, { apply }),
    ).rejects.toThrow(/models_sync/);
    await expect(store.syncModels({}, { apply })).rejects.toThrow(/models_sync/);
  });
});

describe('an interrupted download', () => {
  let server: Server;
  let dataDir: string;
  let bundledDir: string;
  let detector: Detector;
  let mode: 'drop' | 'hang' = 'drop';
  const bytes = fixtureBytes;

  beforeAll(async () => {
    // Serves half the model, then drops the connection or stops sending.
    server = createServer((_request, response) => {
      response.writeHead(200, { 'content-length': bytes.length, 'content-type': 'application/octet-stream' });
      response.write(bytes.subarray(0, bytes.length >> 1));
      if (mode === 'drop') setTimeout(() => response.destroy(), 20);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    bundledDir = bundledModels();
    dataDir = mkdtempSync(join(tmpdir(), 'appliance-models-'));
    detector = await createDetector(await loadModel(join(bundledDir, 'rectangles')), { maxBatch: 1, log });
  });
  afterAll(async () => {
    await detector.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(bundledDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  const payload = (version: string) => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/vision/models/rectangles/versions/${version}/file`;
    const manifest = { ...fixtureManifest, version, sha256: sha256(bytes) };
    return {
      models: [{ name: 'rectangles', version, sha256: sha256(bytes), size: bytes.length, url, manifest }],
    };
  };
  const storeFor = () =>
    createModelStore({
      dir: join(dataDir, 'models'),
      bundledDir,
      cloudUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      applianceKey: 'sak_x.y',
      log,
    });

  it('leaves no partial file and no new current when the connection drops', async () => {
    const store = storeFor();
    // What a stop in the middle of an earlier download left behind is cleared first.
    mkdirSync(join(dataDir, 'models', 'rectangles'), { recursive: true });
    writeFileSync(join(dataDir, 'models', 'rectangles', '.deadbeef.part'), 'half a model');
    mode = 'drop';
    const apply = (_: string, loaded: Awaited<ReturnType<typeof loadModel>>) => detector.swap(loaded);
    const result = await store.syncModels(payload('1.5.0'), { apply });
    expect(result.models[0]).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/download failed|ended after/),
    });
    expect(readdirSync(join(dataDir, 'models', 'rectangles'))).toEqual([]);
    expect(store.current('rectangles')).toMatchObject({ source: 'bundled', version: '1.0.0' });
    expect(detector.manifest.version).toBe('1.0.0');
  });

  it('stops when the command is cancelled, leaving nothing behind', async () => {
    const store = storeFor();
    mode = 'hang';
    const controller = new AbortController();
    const apply = (_: string, loaded: Awaited<ReturnType<typeof loadModel>>) => detector.swap(loaded);
    const progress: number[] = [];
    const running = store.syncModels(payload('1.6.0'), {
      apply,
      signal: controller.signal,
      onProgress: (fraction) => {
        progress.push(fraction);
        if (fraction >= 0.3) controller.abort();
      },
    });
    const result = await running;
    expect(result.models[0]).toMatchObject({ status: 'failed', reason: 'cancelled' });
    expect(readdirSync(join(dataDir, 'models', 'rectangles'))).toEqual([]);
    expect(store.current('rectangles')).toMatchObject({ source: 'bundled' });
    expect(await detector.detect(frame('red'), detectOptions)).toMatchObject({
      detections: [expect.objectContaining({ className: 'red' })],
    });
  });
});
