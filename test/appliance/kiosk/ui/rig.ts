/**
 * A store for the kiosk's browser tests, as real as it gets here: a cloud process and an appliance
 * process (demo menu, staff with PINs, demo cameras playing generated video), the built operator
 * UI, and Debian's Chromium driven by playwright-core. The cloud can be stopped and started again
 * on its port, as an outage would.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createApplianceServices } from '../../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../../appliance/config.ts';
import { openApplianceDb } from '../../../../appliance/db/index.ts';
import { loadCloudConfig } from '../../../../cloud/config.ts';
import { openStore } from '../../../../cloud/db/index.ts';
import { createCloudServices } from '../../../../cloud/services.ts';
import { type DemoStaff, seedDemoAppliance } from '../../../../scripts/demo-appliance.ts';
import { startDemoCameras } from '../../../../scripts/demo-cameras.ts';
import { DEMO_MENU_SIZE, seedDemoMenu } from '../../../../scripts/demo-menu.ts';
import { ensureKioskBuilt } from '../../../../scripts/kiosk/build-ui.ts';
import { systemClock } from '../../../../shared/clock.ts';
import { newId } from '../../../../shared/ids.ts';
import { kill, type Started, startProcess } from '../../../support/processes.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const PIN = '246810';
const HEAD_OFFICE = { email: 'office@kiosk.test', password: 'kiosk-office-password' };

/** Waits until the store has received its brand's menu from the cloud, as a new store does. */
async function menuLanded(url: string) {
  const deadline = Date.now() + 60_000;
  const signIn = await fetch(`${url}/v1/auth/login/pin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier: STAFF.manager.username, pin: PIN }),
  });
  const token = ((await signIn.json()) as { status: { access_token: string } }).status.access_token;
  for (;;) {
    const items = await fetch(`${url}/v1/commerce/menu/items`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (((await items.json()) as { data: unknown[] }).data.length >= DEMO_MENU_SIZE) return;
    if (Date.now() > deadline) throw new Error('the store did not receive its menu from the cloud');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export const STAFF = {
  manager: { email: 'ann@kiosk.test', username: 'ann', name: 'Ann Manager', roles: ['manager'] },
  cashier: { email: 'bob@kiosk.test', username: 'bob', name: 'Bob Cashier', roles: ['staff'] },
} as const;

const root = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
/** Where a failing test leaves its screenshot (kept by CI as an artifact, ignored by git). */
export const FAILURES_DIR = join(root, 'test-results', 'kiosk');
/** The README's screenshots, refreshed by `UPDATE_SCREENSHOTS=1 npx vitest run test/appliance/kiosk/ui`. */
export const README_SHOTS_DIR = join(root, 'docs', 'kiosk');

/** Chromium as the probe found it runs here: no sandbox as root, nothing fetched in the background. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--autoplay-policy=no-user-gesture-required',
];

interface Seeded {
  cloudEnv: Record<string, string>;
  tenantId: string;
  locationId: string;
  credential: string;
  staff: DemoStaff[];
}

async function seedCloud(cloudDir: string): Promise<Seeded> {
  const cloudEnv = {
    DATA_DIR: cloudDir,
    CLOUD_HOST: '127.0.0.1',
    CLOUD_RATE_LIMIT: 'false',
    LOG_LEVEL: 'info',
  };
  const config = { ...loadCloudConfig(cloudEnv), hashing: { memoryCost: 1024, timeCost: 1 } };
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: undefined, schema: undefined });
  try {
    const services = createCloudServices(config, { store, clock: systemClock, newId });
    const tenant = await services.tenancy.createTenant({
      slug: 'kiosk',
      name: 'Kiosk Foods',
      tier: 'enterprise',
    });
    const brand = await services.tenancy.createGroup('brands', tenant.id, 'Kiosk Burgers');
    const region = await services.tenancy.createGroup('regions', tenant.id, 'Uptown');
    const location = await services.tenancy.createLocation(tenant.id, {
      name: 'Kiosk Store',
      brand_id: brand.id,
      region_id: region.id,
      timezone: 'America/New_York',
    });
    for (const member of Object.values(STAFF))
      await services.tenancy.addUser(tenant.id, {
        email: member.email,
        username: member.username,
        password: 'kiosk-test-password',
        pin: PIN,
        roles: [...member.roles],
        first_name: member.name.split(' ')[0]!,
        last_name: member.name.split(' ')[1]!,
      });
    // Head office, who makes the brand's menu through the cloud's API once the cloud is up.
    await services.tenancy.addUser(tenant.id, { ...HEAD_OFFICE, roles: ['tenant_admin'] });
    const members = (await services.tenancy.listMembers(tenant.id, { limit: 10 })).items;
    const staff = await Promise.all(members.map((m) => services.tenancy.findMember(tenant.id, m.id)));
    const { credential } = await services.sync.provisionAppliance(tenant.id, { location_id: location.id });
    return {
      cloudEnv,
      tenantId: tenant.id,
      locationId: location.id,
      credential,
      staff: staff.filter((s) => s !== undefined) as DemoStaff[],
    };
  } finally {
    await store.close();
  }
}

/** The demo store's data and cameras, written before the appliance starts (it starts them). */
async function seedAppliance(seeded: Seeded, env: Record<string, string>, clipsDir: string) {
  const config = loadApplianceConfig(env);
  await seedDemoAppliance(config, seeded.staff);
  const db = openApplianceDb(config.dataDir);
  try {
    const services = createApplianceServices(config, { db, clock: systemClock, newId });
    await startDemoCameras(services.vision, clipsDir, pino({ level: 'warn' }));
  } finally {
    db.close();
  }
}

export interface KioskRig {
  url: string;
  mqttPort: number;
  /** Requests a page made to anything but the appliance: must stay empty. */
  offHost: string[];
  browser: Browser;
  stopCloud(): Promise<void>;
  startCloud(): Promise<void>;
  newPage(size?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

export async function startKioskRig(): Promise<KioskRig> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium`);
  await ensureKioskBuilt({ quiet: true });
  const cloudDir = mkdtempSync(join(tmpdir(), 'kiosk-cloud-'));
  const applianceDir = mkdtempSync(join(tmpdir(), 'kiosk-appliance-'));
  const seeded = await seedCloud(cloudDir);
  let cloud: Started | undefined = await startProcess(
    'cloud/main.ts',
    { ...seeded.cloudEnv, CLOUD_PORT: '0' },
    /cloud listening/,
  );
  const cloudPort = cloud.port;
  await seedDemoMenu(`http://127.0.0.1:${cloudPort}`, HEAD_OFFICE);
  const env = {
    TENANT_ID: seeded.tenantId,
    LOCATION_ID: seeded.locationId,
    APPLIANCE_DATA_DIR: applianceDir,
    APPLIANCE_PORT: '0',
    APPLIANCE_HOST: '127.0.0.1',
    APPLIANCE_MQTT_PORT: '0',
    APPLIANCE_TIMEZONE: 'America/New_York',
    APPLIANCE_STORE_NAME: 'Kiosk Store',
    CLOUD_URL: `http://127.0.0.1:${cloudPort}`,
    APPLIANCE_CLOUD_CREDENTIAL: seeded.credential,
    LOG_LEVEL: 'info',
  };
  await seedAppliance(seeded, env, applianceDir);
  const appliance = await startProcess('appliance/main.ts', env, /appliance listening/);
  const mqttPort = Number(/"mqttTcp":(\d+)/.exec(appliance.line)?.[1]);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  const url = `http://127.0.0.1:${appliance.port}`;
  await menuLanded(url);
  const offHost: string[] = [];

  return {
    url,
    mqttPort,
    offHost,
    browser,
    async stopCloud() {
      if (cloud) await kill(cloud.child, 'SIGTERM');
      cloud = undefined;
    },
    async startCloud() {
      cloud ??= await startProcess(
        'cloud/main.ts',
        { ...seeded.cloudEnv, CLOUD_PORT: String(cloudPort) },
        /cloud listening/,
      );
    },
    async newPage(size = { width: 1280, height: 800 }) {
      // The kiosk machine's clock on UTC, as an appliance's often is: the kiosk shows the store's time.
      const context = await browser.newContext({
        viewport: size,
        hasTouch: true,
        locale: 'en-US',
        timezoneId: 'UTC',
      });
      const page = await context.newPage();
      // Anything the page asks of another host breaks the "nothing leaves the appliance" rule.
      await context.route(
        (target) => target.host !== new URL(url).host && target.protocol !== 'data:',
        (route) => {
          offHost.push(route.request().url());
          return route.abort();
        },
      );
      return page;
    },
    async close() {
      await browser.close();
      await kill(appliance.child, 'SIGTERM');
      if (cloud) await kill(cloud.child, 'SIGTERM');
      rmSync(cloudDir, { recursive: true, force: true });
      rmSync(applianceDir, { recursive: true, force: true });
    },
  };
}

export function ensureDir(dir: string) {
  mkdirSync(dir, { recursive: true });
  return dir;
}
