/**
 * A restaurant group for the fleet console's browser tests, seeded as `npm start` seeds the demo: a
 * cloud process (head office with a tenant admin, a brand whose menu is made through the cloud's
 * API, a store and two more of another brand), the store's appliance process provisioned and
 * syncing (no cameras), a build of the console the cloud serves at /console/, and Debian's Chromium
 * driven by playwright-core.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { openStore } from '../../../cloud/db/index.ts';
import { createCloudServices } from '../../../cloud/services.ts';
import { type DemoStaff, seedDemoAppliance } from '../../../scripts/demo-appliance.ts';
import { DEMO_MENU_SIZE, seedDemoMenu } from '../../../scripts/demo-menu.ts';
import { systemClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { type Client, client, ok, signIn as tokenFor } from '../../support/json-client.ts';
import { kill, type Started, startProcess, waitFor } from '../../support/processes.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Chromium as the probe found it runs here: no sandbox as root, nothing fetched in the background. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const VIEWPORT = { width: 1280, height: 800 };

/** The demo's names, so the README's screenshots show what `npm start` shows. */
export const DEMO = {
  tenant: { slug: 'demo', name: 'Demo Restaurants', tier: 'professional' as const },
  brand: 'Demo Burgers',
  region: 'Downtown',
  store: 'Demo Store 1',
  admin: {
    email: 'admin@demo.test',
    password: 'demo-admin-password',
    roles: ['tenant_admin', 'platform_admin'],
    first_name: 'Demo',
    last_name: 'Admin',
  },
  /** Head office too, with an authenticator app: enrolled through the API once the cloud is up. */
  mfaUser: {
    email: 'mfa@demo.test',
    password: 'demo-mfa-password',
    roles: ['tenant_admin'],
    first_name: 'Mia',
    last_name: 'Factor',
  },
  staff: {
    email: 'staff@demo.test',
    username: 'staff',
    pin: '123456',
    password: 'demo-staff-password',
    roles: ['manager'],
    first_name: 'Demo',
    last_name: 'Staff',
  },
};

/** More stores, of a second brand, with no appliance running: the fleet as the list shows one. */
const OTHER_BRAND = { brand: 'Demo Tacos', region: 'Uptown', stores: ['Demo Tacos 1', 'Demo Tacos 2'] };

const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
/** Where a failing test leaves its screenshot (kept by CI as an artifact, ignored by git). */
export const FAILURES_DIR = join(root, 'test-results', 'console');
/** The README's screenshots, refreshed by `UPDATE_SCREENSHOTS=1 npx vitest run test/console/ui`. */
export const README_SHOTS_DIR = join(root, 'docs', 'console');
const BUILD_SCRIPT = join(root, 'scripts', 'console', 'build-ui.ts');

export function ensureDir(dir: string) {
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The files index.html loads, all present: a build another engineer's build emptied is not. */
function buildIsWhole(dist: string) {
  const index = join(dist, 'index.html');
  if (!existsSync(index)) return false;
  const assets = [...readFileSync(index, 'utf8').matchAll(/(?:src|href)="\/console\/([^"]+)"/g)];
  return assets.every((match) => existsSync(join(dist, match[1]!)));
}

/**
 * The console built (only when a source is newer than the build), then copied aside: the cloud
 * serves the copy, so a rebuild of the shared dist/ during the run cannot pull files from under
 * the pages. Screens change under us while they are written, so a failed build is tried again.
 */
async function buildConsole(into: string) {
  await waitFor('scripts/console/build-ui.ts', () => (existsSync(BUILD_SCRIPT) ? true : undefined), 600_000);
  const { ensureConsoleBuilt, CONSOLE_DIST_DIR } = await import('../../../scripts/console/build-ui.ts');
  for (let attempt = 1; ; attempt += 1) {
    try {
      await ensureConsoleBuilt({ quiet: true });
      if (!buildIsWhole(CONSOLE_DIST_DIR)) throw new Error('the build in dist/ is missing files');
      cpSync(CONSOLE_DIST_DIR, into, { recursive: true });
      if (buildIsWhole(into)) return;
      throw new Error('the copied build is missing files');
    } catch (error) {
      if (attempt >= 4) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10_000));
    }
  }
}

interface Seeded {
  tenantId: string;
  locationId: string;
  credential: string;
  staff: DemoStaff[];
}

async function seedCloud(env: Record<string, string>): Promise<Seeded> {
  const config = { ...loadCloudConfig(env), hashing: { memoryCost: 1024, timeCost: 1 } };
  const store = await openStore({ dataDir: config.dataDir, databaseUrl: undefined, schema: undefined });
  try {
    const services = createCloudServices(config, { store, clock: systemClock, newId });
    const tenant = await services.tenancy.createTenant(DEMO.tenant);
    const brand = await services.tenancy.createGroup('brands', tenant.id, DEMO.brand);
    const region = await services.tenancy.createGroup('regions', tenant.id, DEMO.region);
    const location = await services.tenancy.createLocation(tenant.id, {
      name: DEMO.store,
      brand_id: brand.id,
      region_id: region.id,
      timezone: 'America/New_York',
    });
    for (const user of [DEMO.admin, DEMO.mfaUser, DEMO.staff])
      await services.tenancy.addUser(tenant.id, { ...user, roles: [...user.roles] });
    const members = (await services.tenancy.listMembers(tenant.id, { limit: 10 })).items;
    const staff = await Promise.all(members.map((m) => services.tenancy.findMember(tenant.id, m.id)));
    const { credential } = await services.sync.provisionAppliance(tenant.id, { location_id: location.id });
    await services.webhooks.close();
    return {
      tenantId: tenant.id,
      locationId: location.id,
      credential,
      staff: staff.filter((s) => s !== undefined) as DemoStaff[],
    };
  } finally {
    await store.close();
  }
}

/** The second brand's stores, made as head office makes them, after the first brand's menu. */
async function addOtherStores(cloud: Client) {
  const brand = await ok<{ id: string }>(
    cloud('POST', '/v1/platform/brands', { name: OTHER_BRAND.brand }),
    201,
  );
  const region = await ok<{ id: string }>(
    cloud('POST', '/v1/platform/regions', { name: OTHER_BRAND.region }),
    201,
  );
  for (const name of OTHER_BRAND.stores)
    await ok(
      cloud('POST', '/v1/platform/locations', {
        name,
        brand_id: brand.id,
        region_id: region.id,
        timezone: 'America/Chicago',
      }),
      201,
    );
}

/** A staff session at the store's own API, as the POS would open one. */
export async function applianceToken(url: string) {
  const response = await fetch(`${url}/v1/auth/login/pin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier: DEMO.staff.username, pin: DEMO.staff.pin }),
  });
  return ((await response.json()) as { status: { access_token: string } }).status.access_token;
}

export interface MenuItem {
  id: string;
  name: string;
  price_minor: number;
}

/** The store's menu as its own API answers it (a list, or a page of one). */
export async function storeMenu(appliance: Client): Promise<MenuItem[]> {
  const data = await ok<MenuItem[] | { items: MenuItem[] }>(appliance('GET', '/v1/commerce/menu/items'));
  return Array.isArray(data) ? data : data.items;
}

export interface ConsoleRig {
  cloudUrl: string;
  applianceUrl: string;
  tenantId: string;
  locationId: string;
  browser: Browser;
  /** The cloud's API as head office (tenant and platform admin). */
  cloud: Client;
  /** The store's own API as its manager, signed in by PIN. */
  appliance: Client;
  newContext(options?: {
    size?: { width: number; height: number };
    bypassCSP?: boolean;
  }): Promise<BrowserContext>;
  close(): Promise<void>;
}

function cloudEnvironment(dataDir: string, consoleDir: string) {
  return {
    DATA_DIR: dataDir,
    CLOUD_HOST: '127.0.0.1',
    CLOUD_RATE_LIMIT: 'false',
    // The webhook test's receiver is on this machine, as in `npm start`.
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    CLOUD_CONSOLE_DIR: consoleDir,
    LOG_LEVEL: 'info',
  };
}

async function startAppliance(seeded: Seeded, cloudUrl: string, dataDir: string) {
  const env = {
    TENANT_ID: seeded.tenantId,
    LOCATION_ID: seeded.locationId,
    APPLIANCE_DATA_DIR: dataDir,
    APPLIANCE_PORT: '0',
    APPLIANCE_HOST: '127.0.0.1',
    APPLIANCE_MQTT_PORT: '0',
    APPLIANCE_TIMEZONE: 'America/New_York',
    APPLIANCE_STORE_NAME: DEMO.store,
    APPLIANCE_VISION: 'off',
    CLOUD_URL: cloudUrl,
    APPLIANCE_CLOUD_CREDENTIAL: seeded.credential,
    LOG_LEVEL: 'info',
  };
  await seedDemoAppliance(loadApplianceConfig(env), seeded.staff);
  return startProcess('appliance/main.ts', env, /appliance listening/);
}

export async function startConsoleRig(): Promise<ConsoleRig> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install chromium`);
  const cloudDir = mkdtempSync(join(tmpdir(), 'console-cloud-'));
  const applianceDir = mkdtempSync(join(tmpdir(), 'console-appliance-'));
  const consoleDir = join(mkdtempSync(join(tmpdir(), 'console-build-')), 'dist');
  const started: Started[] = [];
  let browser: Browser | undefined;
  const close = async () => {
    await browser?.close();
    for (const proc of started.reverse()) await kill(proc.child, 'SIGTERM');
    for (const dir of [cloudDir, applianceDir, dirname(consoleDir)])
      rmSync(dir, { recursive: true, force: true });
  };
  try {
    await buildConsole(consoleDir);
    const env = cloudEnvironment(cloudDir, consoleDir);
    const seeded = await seedCloud(env);
    const cloudProcess = await startProcess('cloud/main.ts', { ...env, CLOUD_PORT: '0' }, /cloud listening/);
    started.push(cloudProcess);
    const cloudUrl = `http://127.0.0.1:${cloudProcess.port}`;
    await seedDemoMenu(cloudUrl, DEMO.admin);
    const cloud = client(cloudUrl, await tokenFor(cloudUrl, DEMO.admin.email, DEMO.admin.password));
    await addOtherStores(cloud);
    const applianceProcess = await startAppliance(seeded, cloudUrl, applianceDir);
    started.push(applianceProcess);
    const applianceUrl = `http://127.0.0.1:${applianceProcess.port}`;
    const appliance = client(applianceUrl, await applianceToken(applianceUrl));
    await waitFor('the store to receive its menu from the cloud', async () =>
      (await storeMenu(appliance)).length >= DEMO_MENU_SIZE ? true : undefined,
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
    const launched = browser;
    return {
      cloudUrl,
      applianceUrl,
      tenantId: seeded.tenantId,
      locationId: seeded.locationId,
      browser: launched,
      cloud,
      appliance,
      newContext: ({ size = VIEWPORT, bypassCSP = false } = {}) =>
        launched.newContext({ viewport: size, locale: 'en-US', timezoneId: 'America/New_York', bypassCSP }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Signs in through the form; answers once the first screen after it is up. */
export async function signIn(page: Page, email: string, password: string) {
  const form = page.getByTestId('signin-form');
  await form.waitFor();
  await form.locator('input[name="email"]').fill(email);
  await form.locator('input[name="password"]').fill(password);
  await form.locator('button[type="submit"]').click();
  await page.getByTestId('sign-out').waitFor();
}
