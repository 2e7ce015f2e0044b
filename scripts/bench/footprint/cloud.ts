/**
 * The compiled cloud's footprint: `dist/cloud.mjs` as `npm run cloud:prod` runs it, on SQLite in a
 * fresh DATA_DIR, with one tenant and its admin made by the operator CLI before it starts (as an
 * operator sets up a cloud); idle, then under load: autocannon on authenticated reads while a
 * store (the appliance's own services and sync client, in the bench process) writes orders and
 * pushes them every second.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type LoadResult, statusCodes } from '../lib/load.ts';
import { openBenchAppliance, unanswered } from '../sync/appliance.ts';
import type { BenchStore } from '../sync/control.ts';
import { seedOrders } from '../sync/seed.ts';
import type { Bundles } from './build.ts';
import { call, loginToken } from './http.ts';
import type { FootprintPlan } from './plan.ts';
import { type Started, sleep, startCompiled } from './process.ts';
import { peakRssMb, sampleTree, type TreeWindow } from './tree.ts';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const CTL = join(REPO_ROOT, 'cloud/ctl/main.ts');
const TSX_LOADER = import.meta.resolve('tsx');
const ADMIN = { email: 'admin@footprint.test', password: 'footprint-password-1', tenant: 'footprint' };

/** GETs an admin of a tenant makes: a session check, a page of chat channels, the tenant's stores. */
export const LOADED_ROUTES = ['/v1/auth/me', '/api/v1/chat/channels?limit=50', '/v1/platform/locations'];

type Autocannon = (options: Record<string, unknown>) => Promise<LoadResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface CloudMeasures {
  idle: TreeWindow;
  load: {
    window: TreeWindow;
    seconds: number;
    requests: number;
    requests_per_sec: number;
    status_codes: Record<string, number>;
    errors: number;
    sync: { rounds: number; orders: number; unanswered: number };
  };
  cloud_hwm_mb: number;
  warnings: { count: number; last: string[] };
  problems: string[];
}

async function ctl(dataDir: string, ...args: string[]) {
  await promisify(execFile)(process.execPath, ['--import', TSX_LOADER, CTL, ...args], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', DATA_DIR: dataDir },
  });
}

async function setUpTenant(dataDir: string) {
  await ctl(
    dataDir,
    'tenant',
    'create',
    '--slug',
    ADMIN.tenant,
    '--name',
    'Footprint',
    '--tier',
    'enterprise',
  );
  await ctl(
    dataDir,
    'user',
    'create',
    '--tenant',
    ADMIN.tenant,
    '--email',
    ADMIN.email,
    '--roles',
    'tenant_admin',
    '--password',
    ADMIN.password,
  );
}

/** A store with its appliance provisioned, made through the cloud's API as an admin makes one. */
async function provisionStore(base: string, token: string): Promise<BenchStore> {
  const group = (kind: string) =>
    call<{ data: { id: string } }>(base, 'POST', `/v1/platform/${kind}`, {
      token,
      body: { name: `Footprint ${kind}` },
    });
  const [brand, region] = [await group('brands'), await group('regions')];
  const location = await call<{ data: { id: string; tenant_id: string } }>(
    base,
    'POST',
    '/v1/platform/locations',
    {
      token,
      body: { name: 'Footprint store', brand_id: brand.data.id, region_id: region.data.id },
    },
  );
  const appliance = await call<{ data: { credential: string } }>(base, 'POST', '/v1/sync/appliances', {
    token,
    body: { location_id: location.data.id },
  });
  return {
    tenant_id: location.data.tenant_id,
    location_id: location.data.id,
    credential: appliance.data.credential,
  };
}

/** Every second until `until`: orders written at the store, then a sync round pushing them. */
async function storeSyncing(base: string, store: BenchStore, plan: FootprintPlan, until: number) {
  const app = await openBenchAppliance(store, base);
  const sync = { rounds: 0, orders: 0, unanswered: 0 };
  try {
    while (Date.now() < until) {
      const next = Date.now() + 1000;
      await seedOrders(app, plan.ordersPerSecond);
      sync.orders += plan.ordersPerSecond;
      await app.client.sync();
      sync.rounds += 1;
      await sleep(Math.max(0, next - Date.now()));
    }
    sync.unanswered = unanswered(app.db);
    return sync;
  } finally {
    await app.close();
  }
}

async function measureLoad(base: string, pid: number, plan: FootprintPlan) {
  const token = await loginToken(base, '/v1/auth/login', { email: ADMIN.email, password: ADMIN.password });
  const store = await provisionStore(base, token);
  const stopSampling = sampleTree(pid);
  const started = performance.now();
  const [result, sync] = await Promise.all([
    autocannon({
      url: base,
      connections: plan.cloudConnections,
      pipelining: 1,
      duration: plan.cloudLoadSeconds,
      headers: { authorization: `Bearer ${token}` },
      requests: LOADED_ROUTES.map((path) => ({ method: 'GET', path })),
    }),
    storeSyncing(base, store, plan, Date.now() + plan.cloudLoadSeconds * 1000),
  ]);
  const seconds = (performance.now() - started) / 1000;
  const window = stopSampling();
  return {
    window,
    seconds: Math.round(seconds * 10) / 10,
    requests: result.requests.total,
    requests_per_sec: Math.round(result.requests.total / seconds),
    status_codes: statusCodes(result),
    errors: result.errors + result.timeouts,
    sync,
  };
}

function loadProblems(load: CloudMeasures['load']) {
  const problems: string[] = [];
  const non2xx = Object.entries(load.status_codes).filter(([code]) => !code.startsWith('2'));
  if (non2xx.length > 0)
    problems.push(`cloud load: non-2xx answers ${JSON.stringify(Object.fromEntries(non2xx))}`);
  if (load.errors > 0) problems.push(`cloud load: ${load.errors} errors or time-outs`);
  if (load.sync.unanswered > 0) problems.push(`cloud load: ${load.sync.unanswered} outbox rows not answered`);
  if (load.sync.rounds === 0) problems.push('cloud load: no sync round ran');
  return problems;
}

async function measureStarted(cloud: Started, plan: FootprintPlan): Promise<CloudMeasures> {
  const base = `http://127.0.0.1:${cloud.ready.port}`;
  await sleep(plan.settleSeconds * 1000);
  const stopIdle = sampleTree(cloud.pid);
  await sleep(plan.idleSeconds * 1000);
  const idle = stopIdle();
  const load = await measureLoad(base, cloud.pid, plan);
  return {
    idle,
    load,
    cloud_hwm_mb: peakRssMb(cloud.pid),
    warnings: cloud.warnings(),
    problems: loadProblems(load),
  };
}

export async function measureCloud(bundles: Bundles, plan: FootprintPlan): Promise<CloudMeasures> {
  const dataDir = await mkdtemp(join(tmpdir(), 'bench-footprint-cloud-'));
  try {
    await setUpTenant(dataDir);
    const env = {
      NODE_ENV: 'production',
      DATA_DIR: dataDir,
      CLOUD_HOST: '127.0.0.1',
      CLOUD_PORT: '0',
      // The tier's limit would answer most of the load with 429.
      CLOUD_RATE_LIMIT: 'false',
    };
    const cloud = await startCompiled([bundles.files.cloud], env, (line) => line.msg === 'cloud listening');
    try {
      return await measureStarted(cloud, plan);
    } finally {
      await cloud.stop();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}
