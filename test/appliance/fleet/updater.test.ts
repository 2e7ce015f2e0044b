import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { readlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pino from 'pino';
import { create as createTar } from 'tar';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { settleInstall } from '../../../appliance/fleet/confirm.ts';
import {
  installPaths,
  pointCurrentAt,
  readInstallState,
  writeInstallState,
} from '../../../appliance/fleet/install-state.ts';
import {
  createUpdater,
  type DiskSpaceReader,
  type UpdateProgress,
} from '../../../appliance/fleet/updater.ts';
import { startAppliance } from '../../../appliance/main.ts';
import { bundle } from '../../../scripts/build.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { endorseKey, signManifest, updateKeyId } from '../../../shared/devices/update-manifest.ts';
import { LOCATION, TENANT } from '../../support/appliance.ts';
import {
  type ArchiveServer,
  type FixtureHealth,
  manifestFor,
  releaseArchive,
  sha256,
  startArchiveServer,
  tarOf,
} from './releases.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const keys = generateKeyPairSync('ed25519');
const otherKeys = generateKeyPairSync('ed25519');
const log = pino({ level: 'silent' });
const clock = createManualClock('2026-06-10T19:00:00.000Z');

let dataDir: string;
let server: ArchiveServer;
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'updater-'));
  // The store's database, which the new version's check gets a copy of.
  const db = new Database(join(dataDir, 'appliance.sqlite'));
  db.exec("create table marker (value text); insert into marker values ('the store')");
  db.close();
  server = await startArchiveServer();
});
afterEach(async () => {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const paths = () => installPaths(dataDir);
const record = () => join(dataDir, 'check-record.json');

function updater(
  options: { progress?: UpdateProgress[]; statfs?: DiskSpaceReader; checkTimeoutMs?: number } = {},
) {
  return createUpdater({
    dataDir,
    publicKey: keys.publicKey,
    runningVersion: '1.0.0',
    env: {
      TENANT_ID: 'the-store-tenant',
      FIXTURE_RECORD: record(),
      APPLIANCE_FLEET_URL: 'mqtt://fleet.example',
    },
    clock,
    log,
    onProgress: (p) => options.progress?.push(p),
    statfs: options.statfs,
    checkTimeoutMs: options.checkTimeoutMs,
  });
}

function publish(
  version: string,
  options: { health?: FixtureHealth; releaseVersion?: string; padding?: number } = {},
) {
  const bytes = releaseArchive(version, options);
  return {
    bytes,
    manifest: manifestFor(version, server.publish(`${version}.tar.gz`, bytes), bytes, keys.privateKey),
  };
}

const partOf = (bytes: Buffer) => join(paths().downloads, `${sha256(bytes)}.part`);

describe('an update, from manifest to switch', () => {
  it('downloads with progress, unpacks, has the new version check itself on a scratch copy, and switches', async () => {
    const progress: UpdateProgress[] = [];
    const { bytes, manifest } = publish('2.0.0');
    const outcome = await updater({ progress }).apply(manifest);
    expect(outcome).toEqual({ state: 'applied', version: '2.0.0', previous: undefined });
    expect(await readlink(paths().current)).toBe(join('versions', '2.0.0'));
    expect(readFileSync(join(paths().version('2.0.0'), 'release.json'), 'utf8')).toContain('"2.0.0"');
    expect(await readlink(join(paths().version('2.0.0'), 'node_modules/.bin/tool'))).toBe('../tool/cli.js');
    expect(await readInstallState(dataDir)).toEqual({
      confirming: { version: '2.0.0', previous: undefined, boots: 0 },
      reverted: null,
    });
    expect(progress.at(-1)).toEqual({ version: '2.0.0', received: bytes.length, total: bytes.length });
    expect(progress.length).toBeGreaterThan(1);
    // The archive is gone once unpacked, and so is the check's scratch copy.
    expect(readdirSync(paths().downloads)).toEqual([]);
    expect(existsSync(paths().checks) ? readdirSync(paths().checks) : []).toEqual([]);

    const check = JSON.parse(readFileSync(record(), 'utf8'));
    expect(check).toMatchObject({
      argv: ['--health-check'],
      execArgv: ['--max-semi-space-size=4'],
      cwd: paths().version('2.0.0'),
      env: {
        APPLIANCE_PORT: '0',
        APPLIANCE_HOST: '127.0.0.1',
        APPLIANCE_MQTT_PORT: '',
        APPLIANCE_MQTT_TLS_PORT: '0',
        APPLIANCE_FLEET_URL: '',
        APPLIANCE_VISION: 'off',
        APPLIANCE_ENROLLMENT_TOKEN: '',
        TENANT_ID: 'the-store-tenant',
      },
      data: ['.health-check-scratch', 'appliance.sqlite'],
    });
    expect(check.env.APPLIANCE_DATA_DIR.startsWith(`${paths().checks}/2.0.0-`)).toBe(true);
  });

  it('refuses an update signed by another key, or changed after signing, before fetching a byte', async () => {
    const bytes = releaseArchive('2.0.0');
    const url = server.publish('2.0.0.tar.gz', bytes);
    const forged = manifestFor('2.0.0', url, bytes, otherKeys.privateKey);
    expect(await updater().apply(forged)).toMatchObject({
      state: 'refused',
      reason: expect.stringContaining('signature'),
    });
    const tampered = { ...manifestFor('2.0.1', url, bytes, keys.privateKey), url: `${url}?elsewhere` };
    expect(await updater().apply(tampered)).toMatchObject({ state: 'refused' });
    expect(server.requests).toEqual([]);
  });

  it('does nothing for the version it runs', async () => {
    const { manifest } = publish('1.0.0');
    expect(await updater().apply(manifest)).toEqual({
      state: 'applied',
      version: '1.0.0',
      previous: '1.0.0',
    });
    expect(server.requests).toEqual([]);
  });

  it('throws away bytes that are not the ones the manifest pins, and keeps the running version', async () => {
    const { bytes, manifest } = publish('2.0.0');
    server.publish('2.0.0.tar.gz', Buffer.from(bytes).fill(0, 1000, 2000));
    expect(await updater().apply(manifest)).toMatchObject({
      state: 'failed',
      reason: 'the artifact does not match its SHA-256',
    });
    expect(readdirSync(paths().downloads)).toEqual([]);
    server.publish('2.0.0.tar.gz', bytes.subarray(0, 1000));
    expect(await updater().apply(manifest)).toMatchObject({
      state: 'failed',
      reason: `the artifact is 1000 bytes, its manifest says ${bytes.length}`,
    });
    expect(readdirSync(paths().downloads)).toEqual([]);
    expect(await updater().current()).toBeUndefined();
  });

  it('keeps the running version when the new one fails its check, and says why', async () => {
    const { manifest } = publish('2.0.0', { health: 'unhealthy' });
    const outcome = await updater().apply(manifest);
    expect(outcome).toEqual({
      state: 'rolled_back',
      version: '2.0.0',
      previous: undefined,
      reason: "migrations: the database is at migration 99, newer than this version's 20",
    });
    expect(existsSync(paths().current)).toBe(false);
    expect(existsSync(paths().version('2.0.0'))).toBe(false);
    expect((await readInstallState(dataDir)).reverted).toEqual({
      version: '2.0.0',
      previous: undefined,
      reason: "migrations: the database is at migration 99, newer than this version's 20",
      at: clock.now().toISOString(),
    });
  });

  it('kills a check that outlives its time limit, and counts it unhealthy', async () => {
    const { manifest } = publish('2.0.0', { health: 'hang' });
    const started = Date.now();
    const outcome = await updater({ checkTimeoutMs: 1500 }).apply(manifest);
    expect(outcome).toMatchObject({
      state: 'rolled_back',
      reason: 'process: the check did not finish within 1.5 s and was killed',
    });
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  it('refuses an update the disk cannot hold, naming what it needs and what is free', async () => {
    const { bytes, manifest } = publish('2.0.0');
    const outcome = await updater({ statfs: async () => ({ bavail: 1000, bsize: 4096 }) }).apply(manifest);
    expect(outcome.state).toBe('refused');
    const reason = (outcome as { reason: string }).reason;
    const needed = bytes.length * 4 + statSync(join(dataDir, 'appliance.sqlite')).size + 64 * 1024 * 1024;
    expect(reason).toContain(`needs ${needed} bytes`);
    expect(reason).toContain('4096000 bytes (3.9 MB) are free');
    expect(server.requests).toEqual([]);
  });
});

describe('resuming a download', () => {
  it('goes on from the part file after a cancel, with a Range request, and reports the resumed bytes', async () => {
    const { bytes, manifest } = publish('2.0.0');
    server.state.bytesPerTick = 16 * 1024;
    const controller = new AbortController();
    const first = updater().apply(manifest, controller.signal);
    await expect
      .poll(() => (existsSync(partOf(bytes)) ? statSync(partOf(bytes)).size : 0))
      .toBeGreaterThan(32 * 1024);
    controller.abort();
    expect(await first).toEqual({ state: 'cancelled', version: '2.0.0' });
    const kept = statSync(partOf(bytes)).size;
    expect(kept).toBeLessThan(bytes.length);

    server.state.bytesPerTick = 0;
    const progress: UpdateProgress[] = [];
    expect(await updater({ progress }).apply(manifest)).toMatchObject({ state: 'applied' });
    expect(server.requests.at(-1)?.range).toBe(`bytes=${kept}-`);
    expect(progress[0]?.received).toBe(kept);
    expect(progress.at(-1)?.received).toBe(bytes.length);
  });

  it.each([
    ['ignores the Range (200)', 'ignore', [`bytes=`]],
    ['does not know the range (416)', 'refuse', ['bytes=', undefined]],
    ['answers another range than asked', 'wrong', ['bytes=', undefined]],
  ] as const)('starts over when the server %s', async (_case, mode, ranges) => {
    const { bytes, manifest } = publish('2.0.0');
    mkdirSync(paths().downloads, { recursive: true });
    writeFileSync(partOf(bytes), bytes.subarray(0, 50_000));
    server.state.range = mode;
    expect(await updater().apply(manifest)).toMatchObject({ state: 'applied' });
    expect(server.requests.map((request) => request.range?.slice(0, 6))).toEqual(ranges);
    expect(server.requests[0]?.range).toBe('bytes=50000-');
  });

  it('starts over when the part on disk was damaged', async () => {
    const { bytes, manifest } = publish('2.0.0');
    mkdirSync(paths().downloads, { recursive: true });
    writeFileSync(partOf(bytes), Buffer.alloc(50_000, 1));
    // The resumed whole fails its digest; the part is thrown away and the next attempt starts clean.
    expect(await updater().apply(manifest)).toMatchObject({
      state: 'failed',
      reason: expect.stringContaining('SHA-256'),
    });
    expect(existsSync(partOf(bytes))).toBe(false);
    expect(await updater().apply(manifest)).toMatchObject({ state: 'applied' });
  });

  it('survives a kill -9 of the process downloading: the next one resumes and finishes with the right digest', async () => {
    const { bytes, manifest } = publish('2.0.0', { padding: 600_000 });
    const manifestFile = join(dataDir, 'manifest.json');
    const keyFile = join(dataDir, 'update-key.pem');
    writeFileSync(manifestFile, JSON.stringify(manifest));
    writeFileSync(keyFile, keys.publicKey.export({ type: 'spki', format: 'pem' }));
    const run = () =>
      spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          join(root, 'test/appliance/fleet/apply-update.ts'),
          dataDir,
          manifestFile,
          keyFile,
        ],
        {
          cwd: root,
          env: { ...process.env, FIXTURE_RECORD: '' },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );

    server.state.bytesPerTick = 8 * 1024;
    const doomed = run();
    await expect
      .poll(() => (existsSync(partOf(bytes)) ? statSync(partOf(bytes)).size : 0), { timeout: 20_000 })
      .toBeGreaterThan(64 * 1024);
    doomed.kill('SIGKILL');
    await new Promise((resolve) => doomed.once('exit', resolve));
    const kept = statSync(partOf(bytes)).size;
    expect(kept).toBeLessThan(bytes.length);

    server.state.bytesPerTick = 0;
    const again = run();
    let output = '';
    again.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    expect(await new Promise((resolve) => again.once('exit', resolve))).toBe(0);
    const lines = output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toEqual({ outcome: { state: 'applied', version: '2.0.0' } });
    expect(lines[0]).toEqual({ received: kept });
    expect(server.requests.at(-1)?.range).toBe(`bytes=${kept}-`);
    expect(readFileSync(join(paths().version('2.0.0'), 'release.json'), 'utf8')).toContain('2.0.0');
  }, 60_000);
});

describe('what an archive may hold', () => {
  const release = [
    { path: 'release.json', body: JSON.stringify({ format: 1, version: '2.0.0' }) },
    { path: 'dist/appliance.mjs', body: '' },
  ];

  it.each([
    ['a path with ..', { path: '../escaped.txt', body: 'x' }, 'a path with .. (../escaped.txt)'],
    ['an absolute path', { path: '/tmp/absolute.txt', body: 'x' }, 'an absolute path (/tmp/absolute.txt)'],
    [
      'a link pointing outside',
      { path: 'dist/out', type: 'SymbolicLink' as const, linkpath: '../../../etc' },
      'a link pointing outside the release (dist/out -> ../../../etc)',
    ],
    [
      'a hard link to outside',
      { path: 'hard', type: 'Link' as const, linkpath: '../appliance.sqlite' },
      'a link pointing outside the release (hard -> ../appliance.sqlite)',
    ],
    ['a device file', { path: 'dev/sda', type: 'CharacterDevice' as const }, 'a device file (dev/sda)'],
  ])('refuses %s, and leaves nothing behind', async (_case, entry, problem) => {
    const bytes = tarOf([...release, entry]);
    const manifest = manifestFor('2.0.0', server.publish('bad.tar.gz', bytes), bytes, keys.privateKey);
    expect(await updater().apply(manifest)).toEqual({
      state: 'failed',
      version: '2.0.0',
      reason: `the archive was refused: it holds ${problem}`,
    });
    expect(readdirSync(paths().versions)).toEqual([]);
    expect(existsSync(join(paths().root, 'escaped.txt'))).toBe(false);
    expect(existsSync(join(paths().versions, 'escaped.txt'))).toBe(false);
    expect(readdirSync(paths().downloads)).toEqual([]);
  });

  it('refuses a release that says it is another version than its manifest', async () => {
    const { manifest } = publish('2.0.0', { releaseVersion: '2.0.1' });
    expect(await updater().apply(manifest)).toMatchObject({
      state: 'failed',
      reason: 'the archive is version 2.0.1, its manifest says 2.0.0',
    });
    expect(readdirSync(paths().versions)).toEqual([]);
  });
});

describe('update keys', () => {
  it('trusts a key its key endorsed, from then on, and remembers it', async () => {
    const newer = generateKeyPairSync('ed25519');
    const bytes = releaseArchive('2.0.0');
    const url = server.publish('2.0.0.tar.gz', bytes);
    const manifest = manifestFor('2.0.0', url, bytes, newer.privateKey, {
      key_id: updateKeyId(newer.publicKey),
      endorsements: [endorseKey(newer.publicKey, keys.privateKey)],
    });
    expect(await updater().apply(manifest)).toMatchObject({ state: 'applied' });
    const saved = JSON.parse(readFileSync(paths().trustedKeys, 'utf8'));
    expect(saved.keys.map((key: { key_id: string }) => key.key_id)).toEqual([updateKeyId(newer.publicKey)]);

    // The next manifest carries no endorsement: the key was learned.
    const next = releaseArchive('2.1.0');
    const plain = signManifest(
      {
        version: '2.1.0',
        url: server.publish('2.1.0.tar.gz', next),
        size: next.length,
        sha256: sha256(next),
      },
      newer.privateKey,
      { key_id: updateKeyId(newer.publicKey) },
    );
    expect(await updater().apply(plain)).toMatchObject({ state: 'applied', previous: '2.0.0' });
  });

  it('refuses a key endorsed by a key it does not trust, and learns nothing', async () => {
    const newer = generateKeyPairSync('ed25519');
    const bytes = releaseArchive('2.0.0');
    const manifest = manifestFor('2.0.0', server.publish('2.0.0.tar.gz', bytes), bytes, newer.privateKey, {
      key_id: updateKeyId(newer.publicKey),
      endorsements: [endorseKey(newer.publicKey, otherKeys.privateKey)],
    });
    expect(await updater().apply(manifest)).toMatchObject({
      state: 'refused',
      reason: expect.stringContaining('does not trust'),
    });
    expect(existsSync(paths().trustedKeys)).toBe(false);
    expect(server.requests).toEqual([]);
  });
});

describe('after a restart', () => {
  it('drops a switch cut short between its two writes, and what a stop left half done', async () => {
    mkdirSync(paths().version('2.0.0'), { recursive: true });
    mkdirSync(`${paths().version('2.1.0')}.partial`, { recursive: true });
    mkdirSync(join(paths().checks, '2.0.0-abcd'), { recursive: true });
    await writeInstallState(dataDir, {
      confirming: { version: '2.0.0', previous: undefined, boots: 1 },
      reverted: null,
    });
    expect(await updater().recover()).toMatchObject({ state: 'failed', version: '2.0.0' });
    expect(await readInstallState(dataDir)).toEqual({ confirming: null, reverted: null });
    expect(readdirSync(paths().versions)).toEqual(['2.0.0']);
    expect(existsSync(paths().checks)).toBe(false);
    expect(await updater().recover()).toBeUndefined();
  });

  it('confirms the version it runs once its checks pass, keeping it and the one before', async () => {
    for (const version of ['0.8.0', '0.9.0', '1.0.0'])
      mkdirSync(paths().version(version), { recursive: true });
    await pointCurrentAt(dataDir, '1.0.0');
    await writeInstallState(dataDir, {
      confirming: { version: '1.0.0', previous: '0.9.0', boots: 1 },
      reverted: null,
    });
    let restarts = 0;
    const settle = (ok: boolean) =>
      settleInstall({
        dataDir,
        runningVersion: '1.0.0',
        check: async () => [
          { name: 'health', ok, detail: ok ? 'GET /health answered 200' : 'GET /health answered 503' },
        ],
        clock,
        log,
        restart: () => {
          restarts += 1;
        },
      });
    expect(await settle(true)).toBe('confirmed');
    expect(await readInstallState(dataDir)).toEqual({ confirming: null, reverted: null });
    expect(readdirSync(paths().versions).sort()).toEqual(['0.9.0', '1.0.0']);
    expect(await settle(true)).toBeUndefined();

    await writeInstallState(dataDir, {
      confirming: { version: '1.0.0', previous: '0.9.0', boots: 1 },
      reverted: null,
    });
    expect(await settle(false)).toBe('reverted');
    expect(restarts).toBe(1);
    expect(await readlink(paths().current)).toBe(join('versions', '0.9.0'));
    expect((await readInstallState(dataDir)).reverted).toMatchObject({
      version: '1.0.0',
      previous: '0.9.0',
      reason: 'health: GET /health answered 503',
    });
  });

  it('logs a version the launcher took back once, and keeps it for the cloud', async () => {
    const reverted = {
      version: '2.0.0',
      previous: '1.0.0',
      reason: 'did not start',
      at: '2026-06-10T18:00:00.000Z',
    };
    await writeInstallState(dataDir, { confirming: null, reverted });
    const lines: string[] = [];
    const recording = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const settle = () =>
      settleInstall({
        dataDir,
        runningVersion: '1.0.0',
        check: async () => [],
        clock,
        log: recording,
        restart: () => {},
      });
    await settle();
    await settle();
    expect(lines.filter((line) => line.includes('an update was taken back'))).toHaveLength(1);
    expect((await readInstallState(dataDir)).reverted).toEqual({
      ...reverted,
      noticed_at: clock.now().toISOString(),
    });
  });
});

describe('a release of this very appliance', () => {
  /**
   * The run's bundle of appliance/main.ts (or one built here), packed as a release. Its data folder
   * sits in the repository, in a folder named like the run's bundles (ignored by git, swept when
   * stale), because a bundle finds its packages in the node_modules of a folder above it.
   */
  it('unpacks, checks the new version against the running store in a process of its own, and switches', async () => {
    const work = mkdtempSync(join(root, '.test-entries-updater-'));
    try {
      const release = join(work, 'release');
      mkdirSync(join(release, 'dist'), { recursive: true });
      mkdirSync(join(release, 'models'), { recursive: true });
      const bundled = process.env.TEST_ENTRY_DIR
        ? join(process.env.TEST_ENTRY_DIR, 'appliance.mjs')
        : undefined;
      if (bundled && existsSync(bundled)) cpSync(bundled, join(release, 'dist/appliance.mjs'));
      else await bundle('appliance/main.ts', join(release, 'dist/appliance.mjs'));
      writeFileSync(
        join(release, 'package.json'),
        JSON.stringify({ name: 'edge', version: '9.9.9', type: 'module' }),
      );
      writeFileSync(join(release, 'release.json'), JSON.stringify({ format: 1, version: '9.9.9' }));
      await createTar({ gzip: true, file: join(work, 'release.tar.gz'), cwd: release }, [
        'release.json',
        'package.json',
        'dist/appliance.mjs',
        'models',
      ]);
      const bytes = readFileSync(join(work, 'release.tar.gz'));

      const env = {
        TENANT_ID: TENANT,
        LOCATION_ID: LOCATION,
        APPLIANCE_DATA_DIR: join(work, 'data'),
        APPLIANCE_PORT: '0',
        APPLIANCE_HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
      };
      const store = await startAppliance(loadApplianceConfig(env), log, { revocationWaitMs: 0 });
      try {
        const mains = store.services.menu.createCategory({ name: 'Mains' });
        store.services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 349 });
        const outcome = await createUpdater({
          dataDir: env.APPLIANCE_DATA_DIR,
          publicKey: keys.publicKey,
          runningVersion: '1.0.0',
          env,
          clock,
          log,
        }).apply(manifestFor('9.9.9', server.publish('9.9.9.tar.gz', bytes), bytes, keys.privateKey));
        expect(outcome).toEqual({ state: 'applied', version: '9.9.9', previous: undefined });
        // The store went on as it was: the check sold nothing in it.
        expect(store.db.prepare('select count(*) as n from orders').get()).toEqual({ n: 0 });
      } finally {
        await store.stop();
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }, 60_000);
});
