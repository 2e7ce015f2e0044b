import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import {
  checkEnvironment,
  prepareScratchData,
  runCheckProcess,
} from '../../../appliance/fleet/check-process.ts';
import { type HealthReport, runHealthCheck } from '../../../appliance/fleet/health-check.ts';
import {
  installPaths,
  pointCurrentAt,
  readInstallState,
  writeInstallState,
} from '../../../appliance/fleet/install-state.ts';
import { startAppliance } from '../../../appliance/main.ts';
import { newId } from '../../../shared/ids.ts';
import { LOCATION, TENANT } from '../../support/appliance.ts';
import { entryArgs } from '../../support/entries.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const log = pino({ level: 'silent' });
const CREDENTIAL = `sak_01900000-0000-7000-8000-0000000000f1.${'s'.repeat(24)}`;

const storeEnv = (dataDir: string, extra: Record<string, string> = {}) => ({
  TENANT_ID: TENANT,
  LOCATION_ID: LOCATION,
  APPLIANCE_DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  ...extra,
});

let dir: string;
/** A store's data as an appliance leaves it: started once, one item on its menu, stopped. */
let storeData: string;
let emptyStoreData: string;

async function makeStore(name: string, withMenu: boolean) {
  const dataDir = join(dir, name);
  const config = loadApplianceConfig({
    ...storeEnv(dataDir),
    APPLIANCE_PORT: '0',
    APPLIANCE_HOST: '127.0.0.1',
  });
  const appliance = await startAppliance({ ...config, logLevel: 'silent' }, log, { revocationWaitMs: 0 });
  if (withMenu) {
    const mains = appliance.services.menu.createCategory({ name: 'Mains' });
    appliance.services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 349 });
  }
  await appliance.stop();
  return dataDir;
}

let scratchCount = 0;
async function scratchOf(dataDir: string) {
  const scratch = join(dir, `scratch-${++scratchCount}`);
  await prepareScratchData(dataDir, scratch);
  return scratch;
}

/** The check in this process (the same code `--health-check` runs), for the cases about its points. */
const checkInProcess = (scratch: string, extra: Record<string, string> = {}) =>
  runHealthCheck({
    env: { ...checkEnvironment(storeEnv(scratch, extra), scratch), LOG_LEVEL: 'silent' },
    version: 'under-test',
    loadConfig: loadApplianceConfig,
    start: (config) => startAppliance(config, log, { settleInstall: false }),
    newId,
  });

const rows = (dataDir: string) => {
  const db = new Database(join(dataDir, 'appliance.sqlite'), { readonly: true });
  try {
    return db
      .prepare(
        `select (select count(*) from orders) as orders, (select count(*) from outbox) as outbox,
           (select count(*) from events) as events`,
      )
      .get();
  } finally {
    db.close();
  }
};

const point = (report: HealthReport, name: string) => report.checks.find((check) => check.name === name);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'health-check-'));
  storeData = await makeStore('store', true);
  emptyStoreData = await makeStore('empty-store', false);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('appliance --health-check, as a process', () => {
  const runCheck = (scratch: string) =>
    runCheckProcess({
      command: process.execPath,
      args: [...entryArgs('appliance/main.ts'), '--health-check'],
      cwd: root,
      env: { ...process.env, ...checkEnvironment(storeEnv(scratch), scratch) },
    });

  it('starts, answers, is at its migrations, and takes a dry-run order that leaves nothing behind', async () => {
    const scratch = await scratchOf(storeData);
    const before = rows(scratch);
    const report = await runCheck(scratch);
    expect(report).toEqual({
      healthy: true,
      version: expect.any(String),
      checks: [
        { name: 'start', ok: true, detail: 'started' },
        { name: 'health', ok: true, detail: 'GET /health answered 200' },
        {
          name: 'migrations',
          ok: true,
          detail: expect.stringMatching(/^the database is at migration \d+, this version's newest$/),
        },
        { name: 'cloud', ok: true, detail: 'skipped: no cloud configured' },
        { name: 'order', ok: true, detail: 'a dry-run order was taken and rolled back' },
      ],
    });
    expect(rows(scratch)).toEqual(before);
    expect(rows(scratch)).toMatchObject({ orders: 0 });
  }, 60_000);

  it('fails on a database newer than the code: a downgrade', async () => {
    const scratch = await scratchOf(storeData);
    const db = new Database(join(scratch, 'appliance.sqlite'));
    const newest = (db.prepare('select max(version) as v from schema_migrations').get() as { v: number }).v;
    db.prepare(
      "insert into schema_migrations (version, name, applied_at) values (999, 'from-the-future', ?)",
    ).run(new Date().toISOString());
    db.close();
    const report = await runCheck(scratch);
    expect(report.healthy).toBe(false);
    expect(point(report, 'migrations')).toEqual({
      name: 'migrations',
      ok: false,
      detail: `the database is at migration 999, newer than this version's ${newest}`,
    });
  }, 60_000);
});

describe('the points of the check', () => {
  let cloud: Server;
  let cloudUrl: string;
  let pullAnswer = 200;
  let pulls: Array<{ url: string; authorization: string | undefined }> = [];

  beforeAll(async () => {
    cloud = createServer((req, res) => {
      if (req.url === '/health') return void res.writeHead(200).end('{"data":{"status":"ok"}}');
      pulls.push({ url: req.url ?? '', authorization: req.headers.authorization });
      res.writeHead(pullAnswer, { 'content-type': 'application/json' });
      res.end(
        pullAnswer === 200
          ? '{"data":{"rows":[],"cursor":0,"has_more":false,"reset":false}}'
          : '{"error":{"code":"APPLIANCE_UNAUTHORIZED","message":"no"}}',
      );
    });
    await new Promise<void>((resolve) => cloud.listen(0, '127.0.0.1', resolve));
    cloudUrl = `http://127.0.0.1:${(cloud.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    cloud.closeAllConnections();
    await new Promise((resolve) => cloud.close(resolve));
  });

  it('reaches the cloud with the store’s credential, and fails when the cloud refuses it', async () => {
    pulls = [];
    pullAnswer = 200;
    const accepted = await checkInProcess(await scratchOf(storeData), {
      CLOUD_URL: cloudUrl,
      APPLIANCE_CLOUD_CREDENTIAL: CREDENTIAL,
    });
    expect(point(accepted, 'cloud')).toEqual({
      name: 'cloud',
      ok: true,
      detail: 'reachable; the sync credential is accepted',
    });
    expect(pulls).toEqual([
      { url: '/v1/sync/pull?cursor=0&limit=1', authorization: `Appliance ${CREDENTIAL}` },
    ]);

    pullAnswer = 401;
    const refused = await checkInProcess(await scratchOf(storeData), {
      CLOUD_URL: cloudUrl,
      APPLIANCE_CLOUD_CREDENTIAL: CREDENTIAL,
    });
    expect(refused.healthy).toBe(false);
    expect(point(refused, 'cloud')).toEqual({
      name: 'cloud',
      ok: false,
      detail: "the cloud refused this appliance's sync pull: 401 APPLIANCE_UNAUTHORIZED",
    });
  });

  it('skips the cloud when it cannot be reached, and the order when there is nothing to sell', async () => {
    const report = await checkInProcess(await scratchOf(emptyStoreData), {
      // Nothing listens on port 1.
      CLOUD_URL: 'http://127.0.0.1:1',
      APPLIANCE_CLOUD_CREDENTIAL: CREDENTIAL,
    });
    expect(report.healthy).toBe(true);
    expect(point(report, 'cloud')).toMatchObject({ ok: true, detail: 'skipped: cloud unreachable' });
    expect(point(report, 'order')).toMatchObject({ ok: true, detail: 'skipped: no orderable item' });
  });

  it('runs only on a scratch copy, never on a store’s own data', async () => {
    const report = await checkInProcess(storeData);
    expect(report).toEqual({
      healthy: false,
      version: 'under-test',
      checks: [
        {
          name: 'data',
          ok: false,
          detail: `${storeData} is not a scratch copy of a store's data; the check runs only on one`,
        },
      ],
    });
  });
});

describe('a version confirming itself at start', () => {
  const PACKAGE_VERSION = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version as string;

  async function startWith(dataDir: string, onRestart: () => void) {
    const lines: string[] = [];
    const recording = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const config = loadApplianceConfig({
      ...storeEnv(dataDir),
      APPLIANCE_PORT: '0',
      APPLIANCE_HOST: '127.0.0.1',
    });
    const appliance = await startAppliance({ ...config, logLevel: 'silent' }, recording, { onRestart });
    await appliance.stop();
    return lines.map((line) => JSON.parse(line).msg as string);
  }

  async function installed(dataDir: string) {
    for (const version of ['0.0.8', '0.0.9', PACKAGE_VERSION])
      mkdirSync(installPaths(dataDir).version(version), { recursive: true });
    await pointCurrentAt(dataDir, PACKAGE_VERSION);
    await writeInstallState(dataDir, {
      confirming: { version: PACKAGE_VERSION, previous: '0.0.9', boots: 1 },
      reverted: null,
    });
  }

  it('confirms once it answers and its migrations hold, keeping itself and the version before', async () => {
    const dataDir = join(dir, 'confirming');
    cpSync(storeData, dataDir, { recursive: true });
    await installed(dataDir);
    let restarts = 0;
    const messages = await startWith(dataDir, () => {
      restarts += 1;
    });
    expect(messages).toContain('update confirmed');
    expect(await readInstallState(dataDir)).toEqual({ confirming: null, reverted: null });
    expect(readdirSync(installPaths(dataDir).versions).sort()).toEqual(['0.0.9', PACKAGE_VERSION].sort());
    expect(restarts).toBe(0);
  });

  it('goes back to the version before when its checks fail after the switch', async () => {
    const dataDir = join(dir, 'downgraded');
    cpSync(storeData, dataDir, { recursive: true });
    const db = new Database(join(dataDir, 'appliance.sqlite'));
    db.prepare(
      "insert into schema_migrations (version, name, applied_at) values (999, 'from-the-future', ?)",
    ).run(new Date().toISOString());
    db.close();
    await installed(dataDir);
    let restarts = 0;
    await startWith(dataDir, () => {
      restarts += 1;
    });
    expect(restarts).toBe(1);
    expect(await readlink(installPaths(dataDir).current)).toBe(join('versions', '0.0.9'));
    expect((await readInstallState(dataDir)).reverted).toMatchObject({
      version: PACKAGE_VERSION,
      previous: '0.0.9',
      reason: expect.stringContaining('migrations: the database is at migration 999, newer than'),
    });
  });
});
