/**
 * `npm start`: the whole system on one machine with embedded defaults: the cloud on SQLite with a
 * demo tenant, and the demo store's appliance syncing with it.
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { loadApplianceConfig } from '../appliance/config.ts';
import { enrolIfNeeded, readIdentity } from '../appliance/identity/index.ts';
import { type RunningAppliance, type StartOptions, startAppliance } from '../appliance/main.ts';
import { type CloudConfig, ConfigError, loadCloudConfig } from '../cloud/config.ts';
import { loadEdgeConfig } from '../cloud/edge/config.ts';
import { startEdge } from '../cloud/edge/index.ts';
import { startCloud } from '../cloud/main.ts';
import type { CloudServices } from '../cloud/services.ts';
import { deviceTopic } from '../shared/mqtt/topics.ts';
import { stopOnSignal } from '../shared/process/stop-on-signal.ts';
import { ensureConsoleBuilt } from './console/build-ui.ts';
import { type DemoStaff, seedDemoAppliance } from './demo-appliance.ts';
import { startDemoCameras } from './demo-cameras.ts';
import { DEMO_MENU_SIZE, DEMO_STOCK, seedDemoMenu } from './demo-menu.ts';
import { ensureKioskBuilt } from './kiosk/build-ui.ts';

export const DEMO = {
  tenant: { slug: 'demo', name: 'Demo Restaurants', tier: 'professional' as const },
  admin: {
    email: 'admin@demo.test',
    password: 'demo-admin-password',
    roles: ['tenant_admin', 'platform_admin'],
  },
  staff: {
    email: 'staff@demo.test',
    username: 'staff',
    pin: '123456',
    password: 'demo-staff-password',
    roles: ['manager'],
  },
};

function portIsFree(port: number, host: string) {
  return new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/** Chooses the requested port, or any free one when it is taken and was not asked for explicitly. */
async function choosePort(requested: number, host: string, explicit: boolean) {
  if (explicit || (await portIsFree(requested, host))) return { port: requested, fellBack: false };
  return { port: 0, fellBack: true };
}

const DEMO_APPLIANCE_SERIAL = 'DEMO-APPLIANCE-1';

/**
 * A one-time enrolment token for the demo store's appliance, registered in the cloud's device
 * registry the first time (a new token later, if the appliance's data dir lost its identity):
 * the appliance enrols with it as a real one does, and gets its certificate and credential.
 */
async function demoEnrollmentToken(services: CloudServices, tenantId: string, locationId: string) {
  const { items } = await services.devices.listDevices(
    tenantId,
    { locationId, deviceType: 'appliance' },
    { limit: 100 },
  );
  const known = items.find((device) => device.serial_number === DEMO_APPLIANCE_SERIAL);
  if (known) return (await services.devices.regenerateToken(tenantId, known.id)).enrollment_token;
  const registered = await services.devices.register(tenantId, {
    location_id: locationId,
    device_type: 'appliance',
    name: 'Demo store appliance',
    serial_number: DEMO_APPLIANCE_SERIAL,
  });
  return registered.enrollment_token;
}

/**
 * The demo store's appliance: same tenant and location as the cloud's demo, staff with PINs, its
 * fleet link on the cloud's broker. A restart the cloud asks for stops it and starts it again in
 * this process (the cloud shares it, so the process must not exit) on the same port.
 */
async function startDemoAppliance(
  services: CloudServices,
  cloud: { url: string; fleetUrl: string | undefined; fleetTlsUrl: string | undefined },
  dataDir: string,
  host: string,
) {
  const tenant = (await services.tenancy.tenantBySlug(DEMO.tenant.slug))!;
  const location = (await services.tenancy.listLocations(tenant.id, { limit: 1 })).items[0]!;
  const members = (await services.tenancy.listMembers(tenant.id, { limit: 200 })).items.filter(
    (m) => m.has_pin,
  );
  const staff = await Promise.all(members.map((m) => services.tenancy.findMember(tenant.id, m.id)));
  const { port, fellBack } = await choosePort(8090, host, process.env.APPLIANCE_PORT !== undefined);
  const applianceDir = join(dataDir, 'appliance-demo');
  const opening = !readIdentity(applianceDir);
  if (opening)
    await enrolIfNeeded({
      dataDir: applianceDir,
      cloudUrl: cloud.url,
      enrollmentToken: await demoEnrollmentToken(services, tenant.id, location.id),
      log: pino({ level: 'warn' }),
    });
  const tls = await choosePort(8883, host, process.env.APPLIANCE_MQTT_TLS_PORT !== undefined);
  // Enrolled, the appliance joins the fleet as a real one does: over TLS, by its certificate.
  const fleetUrl = readIdentity(applianceDir) ? (cloud.fleetTlsUrl ?? cloud.fleetUrl) : cloud.fleetUrl;
  const config = loadApplianceConfig({
    TENANT_ID: tenant.id,
    LOCATION_ID: location.id,
    APPLIANCE_DATA_DIR: applianceDir,
    APPLIANCE_PORT: process.env.APPLIANCE_PORT ?? String(port),
    APPLIANCE_HOST: host,
    APPLIANCE_STORE_NAME: location.name,
    APPLIANCE_TIMEZONE: location.timezone,
    CLOUD_URL: cloud.url,
    ...(fleetUrl ? { APPLIANCE_FLEET_URL: fleetUrl } : {}),
    // Devices on this machine (mosquitto_pub, a simulator) without certificates: plain TCP on a
    // free port unless one is asked for; 1883 is often another broker's.
    APPLIANCE_MQTT_PORT: process.env.APPLIANCE_MQTT_PORT ?? '0',
    // Devices with certificates of the cloud's CA: the appliance serves TLS with its own.
    APPLIANCE_MQTT_TLS_PORT: process.env.APPLIANCE_MQTT_TLS_PORT ?? String(tls.port),
    LOG_LEVEL: 'warn',
  });
  await seedDemoAppliance(
    config,
    staff.filter((s): s is NonNullable<typeof s> => s !== undefined) as DemoStaff[],
  );
  let appliance: RunningAppliance;
  const options: StartOptions = {
    onRestart: async () => {
      const { port: bound, broker } = appliance;
      await appliance.stop();
      const mqtt = {
        ...config.mqtt,
        tcpPort: broker.tcpPort,
        tlsPort: broker.tlsPort ?? config.mqtt.tlsPort,
      };
      appliance = await startAppliance({ ...config, port: bound, mqtt }, undefined, options);
    },
  };
  appliance = await startAppliance(config, undefined, options);
  await storeReady(appliance, opening);
  // Rendering the clips takes a few seconds on first start: the store is serving meanwhile.
  const cameras =
    process.env.DEMO_CAMERAS === 'off'
      ? Promise.resolve()
      : startDemoCameras(appliance.services.vision, applianceDir, pino({ level: 'warn' })).catch(
          (error: unknown) =>
            process.stderr.write(`start: the demo cameras could not start: ${(error as Error).message}\n`),
        );
  return {
    get appliance() {
      return appliance;
    },
    fellBack,
    fleetUrl,
    cameras,
  };
}

/**
 * Waits until the store holds its brand's menu from the cloud (its first sync takes a second or
 * two), so the store sells as soon as the banner shows; on its opening day the store counts its
 * stock, as a store does before it sells.
 */
async function storeReady(appliance: RunningAppliance, opening: boolean) {
  const { menu, inventory } = appliance.services;
  const deadline = Date.now() + 60_000;
  while (menu.listItems().length < DEMO_MENU_SIZE || inventory.list().length < DEMO_STOCK.length) {
    if (Date.now() > deadline) throw new Error('the demo store did not receive its menu from the cloud');
    await appliance.app.sync?.syncNow().catch(() => {});
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  if (!opening) return;
  for (const item of inventory.list()) {
    const counted = DEMO_STOCK.find((stock) => stock.name === item.name);
    if (counted) inventory.count(item.id, counted.opening);
  }
}

/** Creates the demo tenant, its store and its two users once; later starts find them in place. */
async function seedDemo(services: CloudServices) {
  const existing = await services.tenancy.tenantBySlug(DEMO.tenant.slug);
  if (existing) return existing.id;
  const tenant = await services.tenancy.createTenant(DEMO.tenant);
  const brand = await services.tenancy.createGroup('brands', tenant.id, 'Demo Burgers');
  const region = await services.tenancy.createGroup('regions', tenant.id, 'Downtown');
  await services.tenancy.createLocation(tenant.id, {
    name: 'Demo Store 1',
    brand_id: brand.id,
    region_id: region.id,
    timezone: 'America/New_York',
  });
  await services.tenancy.addUser(tenant.id, { ...DEMO.admin, first_name: 'Demo', last_name: 'Admin' });
  await services.tenancy.addUser(tenant.id, { ...DEMO.staff, first_name: 'Demo', last_name: 'Staff' });
  return tenant.id;
}

function banner(url: string, chosenPort: string) {
  const login = JSON.stringify({ email: DEMO.admin.email, password: DEMO.admin.password });
  const pin = JSON.stringify({ identifier: DEMO.staff.username, pin: DEMO.staff.pin });
  const webhook = JSON.stringify({ url: 'http://127.0.0.1:9000/hook', events: ['order.*', 'payment.*'] });
  return [
    '',
    `Cloud gateway   ${url}${chosenPort}`,
    `API docs        ${url}/docs`,
    `Fleet console   ${url}/console/   (sign in as ${DEMO.admin.email} / ${DEMO.admin.password})`,
    `Health          ${url}/health`,
    '',
    `Demo admin      ${DEMO.admin.email} / ${DEMO.admin.password} (tenant "${DEMO.tenant.slug}")`,
    `Demo staff PIN  ${DEMO.staff.username} / ${DEMO.staff.pin}`,
    '',
    'Try:',
    `  curl -s ${url}/v1/auth/login -H 'content-type: application/json' -d '${login}'`,
    `  curl -s ${url}/v1/auth/login/pin -H 'content-type: application/json' -d '${pin}'`,
    `  curl -s ${url}/api/v1/webhooks -H "authorization: Bearer <access_token>" -H 'content-type: application/json' \\`,
    `       -d '${webhook}'   (store events, signed, to your receiver)`,
    '',
  ].join('\n');
}

/**
 * The edge router in front of the gateway, as production runs it: tenants by host name under
 * `localhost` (curl and browsers resolve `*.localhost` to this machine), /static/* from the data dir.
 */
async function startDemoEdge(gatewayUrl: string, config: CloudConfig) {
  const { port, fellBack } = await choosePort(8000, config.host, process.env.EDGE_PORT !== undefined);
  const edge = await startEdge(
    loadEdgeConfig({
      LOG_LEVEL: 'warn',
      SERVICE_DOMAIN: 'localhost',
      DATA_DIR: config.dataDir,
      ...process.env,
      EDGE_HOST: config.host,
      EDGE_PORT: process.env.EDGE_PORT ?? String(port),
      GATEWAY_URL: gatewayUrl,
    }),
  );
  return { edge, fellBack };
}

function edgeBanner(port: number, fellBack: boolean) {
  const url = `http://${DEMO.tenant.slug}.localhost:${port}`;
  const note = fellBack ? `   (port 8000 was taken; chose ${port})` : '';
  return [
    `Edge router     ${url}${note}   (tenant "${DEMO.tenant.slug}" from the host name; /api/v1/* and WebSockets to the gateway)`,
    `  curl -s ${url}/api/v1/chat/config -H "authorization: Bearer <access_token>"`,
    `  curl -sI ${url}/static/<key>   (objects under ./data/static)`,
    '',
  ].join('\n');
}

function applianceBanner(
  url: string,
  note: string,
  appliance: RunningAppliance,
  fleetUrl: string | undefined,
) {
  const pin = JSON.stringify({ identifier: DEMO.staff.username, pin: DEMO.staff.pin });
  const telemetry = deviceTopic({
    deviceType: 'sensor',
    locationId: appliance.services.location.get().location_id,
    deviceId: 'fridge-1',
    channel: 'telemetry',
  });
  return [
    `Demo store      ${url}${note}   (appliance: orders, kitchen, payments, stock, time clock, devices; syncs with the cloud)`,
    `Store kiosk     ${url}/kiosk/   (the operator UI: tap Demo Staff, PIN ${DEMO.staff.pin})`,
    `Store API docs  ${url}/docs`,
    `Store MQTT      mqtt://127.0.0.1:${appliance.broker.tcpPort}   (development listener: no certificates, no ACL)`,
    ...(appliance.broker.tlsPort
      ? [
          `Store MQTTS     mqtts://127.0.0.1:${appliance.broker.tlsPort}   (devices with certificates of the cloud's CA: POST /v1/mdm/devices, then /v1/mdm/enroll)`,
        ]
      : []),
    ...(fleetUrl
      ? [`Fleet broker    ${fleetUrl}   (the cloud's commands reach the store's appliance here)`]
      : []),
    '',
    'Try, at the store:',
    `  curl -s ${url}/v1/auth/login/pin -H 'content-type: application/json' -d '${pin}'`,
    `  curl -s ${url}/v1/commerce/menu/items -H "authorization: Bearer <access_token>"`,
    `  curl -s ${url}/v1/sync/status -H "authorization: Bearer <access_token>"`,
    `  mosquitto_pub -p ${appliance.broker.tcpPort} -i fridge-1 -t ${telemetry} -m '{"temperature_c": 4.2}'`,
    `  curl -s ${url}/v1/devices -H "authorization: Bearer <access_token>"`,
    `  curl -s ${url}/api/vision/cameras -H "authorization: Bearer <access_token>"   (two demo cameras play generated clips)`,
    `  curl -s ${url}/api/vision/drive-thru/status -H "authorization: Bearer <access_token>"`,
    '',
  ].join('\n');
}

async function main() {
  let config: CloudConfig;
  try {
    // One machine, for trying things: webhooks may point at a receiver on this machine.
    config = loadCloudConfig({ LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_URLS: 'true', ...process.env });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`start: ${error.message}\n`);
    process.exit(2);
  }
  // The operator UI the appliance serves at /kiosk/: built on first start (a few seconds), and
  // again only when its sources changed.
  if (await ensureKioskBuilt({ quiet: true })) process.stdout.write('start: built the kiosk UI\n');
  // The fleet console the cloud serves at /console/, likewise.
  if (await ensureConsoleBuilt({ quiet: true })) process.stdout.write('start: built the fleet console\n');
  const requested = config.port;
  const fallback = process.env.CLOUD_PORT === undefined && !(await portIsFree(requested, config.host));
  const cloud = await startCloud({ ...config, port: fallback ? 0 : requested }, { beforeListen: seedDemo });
  const url = `http://${config.host}:${cloud.port}`;
  await seedDemoMenu(url, DEMO.admin);
  const note = fallback ? `   (port ${requested} was taken; chose ${cloud.port})` : '';
  const store = await startDemoAppliance(
    cloud.services,
    { url, fleetUrl: cloud.fleet?.url, fleetTlsUrl: cloud.fleet?.tlsUrl },
    config.dataDir,
    config.host,
  );
  const storeUrl = `http://${config.host}:${store.appliance.port}`;
  const storeNote = store.fellBack ? `   (port 8090 was taken; chose ${store.appliance.port})` : '';
  const { edge, fellBack: edgeFellBack } = await startDemoEdge(url, config);
  await store.cameras;
  // Once everything is up, in one write: no log line can land in the middle of it.
  process.stdout.write(
    banner(url, note) +
      edgeBanner(edge.port, edgeFellBack) +
      applianceBanner(storeUrl, storeNote, store.appliance, store.fleetUrl),
  );
  stopOnSignal(
    async () => {
      await edge.stop();
      await store.appliance.stop();
      await cloud.stop();
    },
    pino({ level: 'warn' }),
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`start: ${(error as Error).message}\n`);
  process.exit(1);
});
