/**
 * A fleet admin ships a new appliance version, as a restaurant group does: a release built from
 * this checkout with `npm run release`, uploaded to a real cloud process, and rolled out in two
 * waves to three stores whose appliances are real processes run by the launcher, as a supervisor
 * runs them. One store's database is newer than the release (a technician's hotfix), so the new
 * version fails its health check there and the store goes back to the version it had; the rollout
 * halts on its threshold, resumes once that store is excluded, and ends with the other two stores
 * on the new version and selling. One appliance is killed while it downloads and resumes where it
 * stopped. Downloads pass a throttled hop, as a store's uplink is, so the kill lands mid-download.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  createReadStream,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { entryArgs } from '../support/entries.ts';
import { type Client, client, createTenantWithAdmin, ok, signIn } from '../support/json-client.ts';
import { exited, kill, startProcess, waitFor } from '../support/processes.ts';
import { cloudStoreEnv } from '../support/stores.ts';

const run = promisify(execFile);
const ROOT = new URL('../../', import.meta.url).pathname;
const PASSWORD = 'fleet-admin-password';
const VERSION = '0.2.0-rollout';
/** The throttled hop's rate: a release of some 100 MB takes seconds to fetch, long enough to kill one mid-way. */
const HOP_BYTES_PER_SECOND = 8 * 1024 * 1024;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createNetServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** Paces a stream to `bytesPerSecond`. */
const throttle = (bytesPerSecond: number) => {
  const started = Date.now();
  let sent = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      sent += chunk.length;
      const due = started + (sent / bytesPerSecond) * 1000;
      setTimeout(() => done(null, chunk), Math.max(0, due - Date.now()));
    },
  });
};

/** An HTTP hop to the cloud, on a port chosen before the cloud started (its public URL names it), that paces answers and remembers each artifact request's Range header. */
async function startUplink(port: number, cloudPort: number) {
  const ranges: Array<string | undefined> = [];
  const server: Server = createServer((req: IncomingMessage, res) => {
    if (req.url?.includes('/artifact')) ranges.push(req.headers.range);
    const upstream = httpRequest(
      { host: '127.0.0.1', port: cloudPort, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(throttle(HOP_BYTES_PER_SECOND)).pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ranges,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A store's appliance as its supervisor runs it: the launcher, in a process group of its own so a
 * kill takes the appliance under it too. The port moves with each start of a new version; the
 * last "appliance listening" line says where it is now.
 */
function startStore(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, entryArgs('appliance/fleet/launcher.ts'), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const store = { child, port: 0, pid: 0, starts: 0, log: [] as string[] };
  let pending = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      store.log.push(line);
      if (!/appliance listening/.test(line)) continue;
      const port = /"port":(\d+)/.exec(line);
      const pid = /"pid":(\d+)/.exec(line);
      if (port) {
        store.port = Number(port[1]);
        store.starts += 1;
      }
      if (pid) store.pid = Number(pid[1]);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => store.log.push(chunk.toString()));
  return store;
}
type Store = ReturnType<typeof startStore>;

/**
 * Kills the store's launcher and the appliance under it (the launcher gives the appliance a process
 * group of its own, so a signal to the launcher's group does not reach it).
 */
async function killStore(store: Store, signal: NodeJS.Signals) {
  for (const pid of [store.pid, store.child.pid])
    try {
      if (pid) process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  await exited(store.child);
}

describe('fleet releases', () => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('rolls a release out in waves, rolls back the store that fails its check, halts, resumes and finishes', async () => {
    const work = mkdtempSync(join(tmpdir(), 'fleet-release-'));
    cleanups.push(() => rmSync(work, { recursive: true, force: true }));

    // The release, built from this checkout as a person builds it.
    const out = join(work, 'release');
    await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/release.ts', '--version', VERSION, '--out', out],
      {
        cwd: ROOT,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
    const archive = join(out, readdirSync(out).find((name) => name.endsWith('.tar.gz'))!);
    const size = statSync(archive).size;

    // A tenant and its first admin, as the operator CLI makes them; the rest goes through the API.
    const cloudDir = join(work, 'cloud');
    mkdirSync(cloudDir);
    const fleetPort = await freePort();
    const cloudEnv: Record<string, string> = {
      ...(await cloudStoreEnv('sqlite', cloudDir)),
      CLOUD_HOST: '127.0.0.1',
      CLOUD_PORT: '0',
      CLOUD_RATE_LIMIT: 'false',
      CLOUD_FLEET_PORT: String(fleetPort),
      ROLLOUT_TICK_MS: '250',
      ROLLOUT_INSTALL_TIMEOUT_SECONDS: '120',
      LOG_LEVEL: 'info',
    };
    const tenantId = await createTenantWithAdmin(
      cloudEnv,
      { slug: 'fleetco', name: 'Fleet Co', tier: 'enterprise' },
      { email: 'admin@fleetco.test', password: PASSWORD },
    );
    // The cloud's public URL is the throttled hop in front of it: artifact links in manifests point there.
    const uplinkPort = await freePort();
    const cloudProcess = await startProcess(
      'cloud/main.ts',
      { ...cloudEnv, CLOUD_PUBLIC_URL: `http://127.0.0.1:${uplinkPort}` },
      /cloud listening/,
    );
    cleanups.push(() => kill(cloudProcess.child, 'SIGTERM'));
    const cloudUrl = `http://127.0.0.1:${cloudProcess.port}`;
    const uplink = await startUplink(uplinkPort, cloudProcess.port);
    cleanups.push(() => uplink.close());
    const token = await signIn(cloudUrl, 'admin@fleetco.test', PASSWORD);
    const cloud: Client = client(cloudUrl, token);

    // Three stores of one brand, a manager, a menu item, and an appliance registered for each.
    const brand = await ok<{ id: string }>(cloud('POST', '/v1/platform/brands', { name: 'Burgers' }), 201);
    const region = await ok<{ id: string }>(cloud('POST', '/v1/platform/regions', { name: 'North' }), 201);
    await ok(
      cloud('POST', '/v1/platform/users', {
        email: 'manager@fleetco.test',
        username: 'manager',
        pin: '482913',
        display_name: 'Morgan Manager',
        roles: ['manager'],
      }),
      201,
    );
    const category = await ok<{ id: string }>(
      cloud('POST', '/v1/commerce/menu/categories', { brand_id: brand.id, name: 'Burgers' }),
      201,
    );
    await ok(
      cloud('POST', '/v1/commerce/menu/items', {
        brand_id: brand.id,
        category_id: category.id,
        name: 'Cheeseburger',
        price_minor: 949,
      }),
      201,
    );
    const keys = await ok<Array<{ public_key: string; active: boolean }>>(
      cloud('GET', '/v1/mdm/update-keys'),
    );
    const publicKeyFile = join(work, 'update-key.pem');
    writeFileSync(publicKeyFile, keys.find((key) => key.active)!.public_key);

    const names = ['Alpha', 'Bravo', 'Charlie'] as const;
    const stores: Record<(typeof names)[number], { locationId: string; dataDir: string; running: Store }> =
      {} as never;
    for (const name of names) {
      const location = await ok<{ id: string }>(
        cloud('POST', '/v1/platform/locations', { name, brand_id: brand.id, region_id: region.id }),
        201,
      );
      const device = await ok<{ enrollment_token: string }>(
        cloud('POST', '/v1/mdm/devices', {
          location_id: location.id,
          device_type: 'appliance',
          name: `${name} appliance`,
          serial_number: `APL-${name.toUpperCase()}`,
        }),
        201,
      );
      const dataDir = join(work, `store-${name}`);
      const env = {
        TENANT_ID: tenantId,
        LOCATION_ID: location.id,
        APPLIANCE_DATA_DIR: dataDir,
        APPLIANCE_PORT: '0',
        APPLIANCE_HOST: '127.0.0.1',
        APPLIANCE_MQTT_TLS_PORT: '0',
        CLOUD_URL: cloudUrl,
        APPLIANCE_ENROLLMENT_TOKEN: device.enrollment_token,
        APPLIANCE_FLEET_URL: `mqtt://127.0.0.1:${fleetPort}`,
        APPLIANCE_UPDATE_PUBLIC_KEY: publicKeyFile,
        LOG_LEVEL: 'info',
      };
      const running = startStore(env);
      cleanups.push(() => killStore(running, 'SIGTERM'));
      stores[name] = { locationId: location.id, dataDir, running };
      (stores[name] as { env?: typeof env }).env = env;
    }
    const storeEnv = (name: (typeof names)[number]) =>
      (stores[name] as unknown as { env: Record<string, string> }).env;

    /** Sells one order at the store through its own API, as its till does. */
    const sells = async (name: (typeof names)[number]) => {
      await waitFor(`${name} listening`, () => (stores[name].running.port > 0 ? true : undefined), 90_000);
      const base = `http://127.0.0.1:${stores[name].running.port}`;
      const pin = await waitFor(
        `the manager at ${name}`,
        async () => {
          const reply = await client(base)('POST', '/v1/auth/login/pin', {
            identifier: 'manager',
            pin: '482913',
          }).catch(() => undefined);
          if (!reply) return undefined;
          return reply.status === 200
            ? (reply.body as { status: { access_token: string } }).status.access_token
            : undefined;
        },
        90_000,
      );
      const till = client(base, pin);
      const item = await waitFor(
        `the menu at ${name}`,
        async () => {
          const items = await ok<Array<{ id: string }>>(till('GET', '/v1/commerce/menu/items'));
          return items[0];
        },
        90_000,
      );
      return ok<{ id: string; status: string }>(
        till('POST', '/v1/commerce/orders', {
          order_type: 'takeout',
          items: [{ menu_item_id: item.id, quantity: 1 }],
        }),
        201,
      );
    };
    for (const name of names) await sells(name);
    const devices = await ok<Array<{ id: string }>>(cloud('GET', '/v1/mdm/devices?device_type=appliance'));
    const firmware = async (name: (typeof names)[number]) => {
      const page = await ok<Array<{ location_id: string; state: string; firmware_version: string | null }>>(
        cloud('GET', '/v1/mdm/devices?device_type=appliance'),
      );
      const device = page.find((item) => item.location_id === stores[name].locationId);
      return device?.state === 'online' ? device.firmware_version : undefined;
    };
    for (const name of names) await waitFor(`${name} online`, () => firmware(name), 60_000);
    expect(devices).toHaveLength(3);

    // Bravo's database carries a migration from a build newer than the release.
    const bravoDb = new Database(join(stores.Bravo.dataDir, 'appliance.sqlite'));
    bravoDb.pragma('busy_timeout = 5000');
    bravoDb
      .prepare('insert into schema_migrations (version, name, applied_at) values (?, ?, ?)')
      .run(9999, 'hotfix-from-a-newer-build', new Date().toISOString());
    bravoDb.close();

    // The upload, streamed in one request.
    const uploaded = await fetch(
      `${cloudUrl}/v1/mdm/releases?notes=${encodeURIComponent('lunch-safe build')}`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/gzip',
          'content-length': String(size),
        },
        body: Readable.toWeb(createReadStream(archive)) as ReadableStream,
        duplex: 'half',
      } as RequestInit,
    );
    const release = ((await uploaded.json()) as { data: { id: string; version: string } }).data;
    expect(uploaded.status).toBe(201);
    expect(release.version).toBe(VERSION);

    // Two waves: Alpha first, then Bravo and Charlie; any failure in a wave halts it.
    const rollout = await ok<{ id: string; state: string }>(
      cloud('POST', '/v1/mdm/rollouts', {
        release_id: release.id,
        target: { location_ids: names.map((name) => stores[name].locationId) },
        waves: [{ count: 1 }, { percent: 100 }],
        soak_seconds: 1,
        window: { start: '00:00', end: '00:00' },
        allow_open_hours: true,
        failure_threshold: 0.2,
      }),
      201,
    );
    type StoreRow = { location_id: string; state: string; progress: number | null; reason: string | null };
    const storeRows = async () => await ok<StoreRow[]>(cloud('GET', `/v1/mdm/rollouts/${rollout.id}/stores`));
    const storeState = async (name: (typeof names)[number]) =>
      (await storeRows()).find((row) => row.location_id === stores[name].locationId)!;
    const rolloutState = async () =>
      (await ok<{ state: string }>(cloud('GET', `/v1/mdm/rollouts/${rollout.id}`))).state;

    await waitFor(
      'Alpha healthy on the new version',
      async () => ((await storeState('Alpha')).state === 'healthy' ? true : undefined),
      180_000,
    );
    expect(await firmware('Alpha')).toBe(VERSION);

    // Charlie is killed with its download part-way, and started again by its supervisor.
    await waitFor(
      'Charlie part-way through its download',
      async () => {
        const row = await storeState('Charlie');
        return row.state === 'downloading' && (row.progress ?? 0) >= 0.2 && (row.progress ?? 0) < 0.8
          ? true
          : undefined;
      },
      120_000,
    );
    await killStore(stores.Charlie.running, 'SIGKILL');
    const rangesBefore = uplink.ranges.length;

    // Bravo fails the new version's check and goes back; the wave's failure share halts the rollout.
    const bravo = await waitFor(
      'Bravo rolled back',
      async () => {
        const row = await storeState('Bravo');
        return row.state === 'rolled_back' ? row : undefined;
      },
      180_000,
    );
    expect(bravo.reason).toMatch(/migration/);
    await waitFor(
      'the rollout halted',
      async () => ((await rolloutState()) === 'halted' ? true : undefined),
      60_000,
    );
    expect(await firmware('Bravo')).not.toBe(VERSION);
    const { alerts } = await ok<{ alerts: Array<{ title: string }> }>(
      cloud('GET', '/api/v1/alerts?status=active'),
    );
    expect(alerts.map((alert) => alert.title)).toContain(`Rollout of ${VERSION} halted in wave 2`);

    // Charlie comes back; the admin takes Bravo out and resumes.
    stores.Charlie.running = startStore(storeEnv('Charlie'));
    const charlie = stores.Charlie.running;
    cleanups.push(() => killStore(charlie, 'SIGTERM'));
    await ok(
      cloud('POST', `/v1/mdm/rollouts/${rollout.id}/exclude`, { location_ids: [stores.Bravo.locationId] }),
    );
    await ok(cloud('POST', `/v1/mdm/rollouts/${rollout.id}/resume`));
    await waitFor(
      'the rollout completed',
      async () => ((await rolloutState()) === 'completed' ? true : undefined),
      240_000,
    );
    expect((await storeState('Charlie')).state).toBe('healthy');
    expect((await storeState('Bravo')).state).toBe('excluded');
    // Charlie's second download asked only for the bytes it did not have.
    const resumed = uplink.ranges.slice(rangesBefore).filter((range) => range !== undefined);
    expect(resumed.length).toBeGreaterThan(0);
    expect(Number(/bytes=(\d+)-/.exec(resumed[0]!)![1])).toBeGreaterThan(0.1 * size);

    // Every store still sells: Alpha and Charlie on the new version, Bravo on the one it had.
    for (const name of ['Alpha', 'Charlie'] as const) expect(await firmware(name)).toBe(VERSION);
    for (const name of names) expect((await sells(name)).status).toBeTruthy();
    const status = await ok<{ version: string | null; state: string }>(
      cloud('GET', `/v1/mdm/devices/${(await deviceOf('Bravo')).id}/updates/status`),
    );
    expect(status.version).toBe(VERSION);

    async function deviceOf(name: (typeof names)[number]) {
      const page = await ok<Array<{ id: string; location_id: string }>>(
        cloud('GET', '/v1/mdm/devices?device_type=appliance'),
      );
      return page.find((item) => item.location_id === stores[name].locationId)!;
    }
  }, 900_000);
});
