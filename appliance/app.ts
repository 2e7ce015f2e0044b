import websocket from '@fastify/websocket';
import Fastify, { type FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import type { Clock } from '../shared/clock.ts';
import { conventionsPlugin } from '../shared/http/conventions.ts';
import { serverOptions } from '../shared/http/server-options.ts';
import { createSecretHasher, type SecretHasher } from '../shared/identity/secrets.ts';
import type { IdGenerator } from '../shared/ids.ts';
import { createActionBoard } from './actions/index.ts';
import {
  applianceAuthPlugin,
  applianceAuthRoutes,
  applianceJwksRoutes,
  createCloudJwks,
  createStaffAuth,
} from './auth/index.ts';
import type { ApplianceConfig } from './config.ts';
import type { ApplianceDatabase } from './db/index.ts';
import { createChangeLog, createGroupCommit } from './db/index.ts';
import {
  type ApplianceBroker,
  createDeviceRegistry,
  type DeviceCommands,
  type DeviceRegistryOptions,
  deviceRoutes,
  mqttWebSocketRoutes,
} from './devices/index.ts';
import { cancelOrder, cloudEdits, completeOrder, sendOrder } from './flows/index.ts';
import { createInventoryService, inventoryRoutes } from './inventory/index.ts';
import { createSyncDrainWatch, kioskRoutes } from './kiosk/index.ts';
import { createEventPoller, createKitchenService, kitchenRoutes } from './kitchen/index.ts';
import { createLocationService, locationRoutes } from './location/index.ts';
import { createMenuService, menuRoutes } from './menu/index.ts';
import { createOrderService, orderRoutes } from './orders/index.ts';
import { createPaymentService, paymentRoutes } from './payments/index.ts';
import type { SyncWorker, SyncWorkerOptions } from './sync/index.ts';
import { applianceSyncRoutes, createApplianceSync, createSyncStatus } from './sync/index.ts';
import { createTimeClockService, timeClockRoutes } from './timeclock/index.ts';
import {
  type ApplianceVision,
  createVisionHistory,
  createVisionRegistry,
  createVisionRuntimeFor,
  visionApiRoutes,
  visionRoutes,
  visionRuntimeApiRoutes,
  visionRuntimeRoutes,
} from './vision/index.ts';

export interface ApplianceDeps {
  db: ApplianceDatabase;
  clock: Clock;
  newId: IdGenerator;
  /** PIN hashing; tests pass a cheap one. */
  hasher?: SecretHasher | undefined;
  /** The store's MQTT broker; with it the API also serves MQTT over WebSocket at /mqtt. */
  broker?: ApplianceBroker | undefined;
  /** Commands to the store's devices over that broker (main.ts wires them): the screens' restarts. */
  deviceCommands?: DeviceCommands | undefined;
  log?: Logger | undefined;
  /** The device registry's timings; tests shorten them. */
  registry?: Partial<DeviceRegistryOptions> | undefined;
}

/** The appliance's services over one store; the API, tests and seeds all reach them through here. */
export function createApplianceServices(config: ApplianceConfig, deps: ApplianceDeps) {
  const { db, clock, newId } = deps;
  const changes = createChangeLog(db, { clock, newId, locationId: config.locationId });
  const location = createLocationService({ db, changes, clock });
  location.ensure(config.locationId, { name: config.storeName, timezone: config.timezone });
  const menu = createMenuService({ db, changes, clock, newId });
  const orders = createOrderService({
    db,
    changes,
    menu,
    location,
    clock,
    newId,
    commit: createGroupCommit(db),
  });
  const kitchen = createKitchenService({ db, changes, orders, clock, newId });
  const payments = createPaymentService({ db, changes, orders, clock, newId });
  const inventory = createInventoryService({ db, changes, clock, newId });
  const timeclock = createTimeClockService({ db, changes, clock, newId });
  const devices = createDeviceRegistry(
    { db, changes, clock, newId, locationId: config.locationId, log: deps.log?.child({ module: 'devices' }) },
    { telemetryRetentionDays: config.devices.telemetryRetentionDays, ...deps.registry },
  );
  const vision = createVisionRegistry({
    db,
    clock,
    newId,
    applianceId: applianceIdOf(config),
    log: deps.log?.child({ module: 'vision' }),
  });
  const auth = createStaffAuth({
    db,
    tenantId: config.tenantId,
    locationId: config.locationId,
    hasher: deps.hasher ?? createSecretHasher(),
    clock,
    newId,
    cloudJwks: config.cloudUrl ? createCloudJwks({ cloudUrl: config.cloudUrl, clock }) : undefined,
  });
  return {
    changes,
    location,
    menu,
    orders,
    kitchen,
    payments,
    inventory,
    timeclock,
    devices,
    vision,
    visionHistory: createVisionHistory(db, changes),
    auth,
    actions: createActionBoard(clock),
    completeOrder: (orderId: string) => completeOrder({ db, orders, inventory }, orderId),
    sendOrder: (orderId: string) => sendOrder({ db, orders, kitchen }, orderId),
    cancelOrder: (orderId: string) => cancelOrder({ db, orders, kitchen }, orderId),
    /** What the store does when the cloud's voids and refunds land. */
    cloudEdits: cloudEdits({ changes, orders, payments, kitchen, inventory }),
  };
}

export type ApplianceServices = ReturnType<typeof createApplianceServices>;

/** The id the cloud knows this appliance by: the one in its `sak_<id>.<secret>` credential. */
function applianceIdOf(config: ApplianceConfig): string | undefined {
  const credential = config.sync.credential;
  return config.fleet?.applianceId ?? credential?.slice('sak_'.length, credential.indexOf('.'));
}

/**
 * The store's local API. It follows the same HTTP conventions as the cloud (request ids,
 * envelopes, OpenAPI at /docs, /health, /metrics); its domain modules register here, in one list.
 * Pass `services` to reach the same instances the routes use (tests, seeds).
 */
export async function buildApplianceApp(
  config: ApplianceConfig,
  deps: ApplianceDeps,
  services: ApplianceServices = createApplianceServices(config, deps),
  syncOptions: Partial<SyncWorkerOptions> = {},
): Promise<FastifyInstance> {
  const app = Fastify(serverOptions({ level: config.logLevel }));
  await app.register(conventionsPlugin, {
    title: 'Edge appliance local API',
    version: '1.0.0',
    description: 'The store appliance: orders, kitchen flow, payments and devices on the LAN.',
    metricsPrefix: 'appliance_',
    healthChecks: {
      database: async () => {
        deps.db.prepare('select 1').get();
      },
    },
  });
  const { auth } = services;
  await app.register(applianceAuthPlugin, { auth });
  await app.register(applianceAuthRoutes, { prefix: '/v1/auth', auth });
  await app.register(applianceJwksRoutes, { auth });
  await app.register(locationRoutes, { prefix: '/v1/commerce', ...services });
  await app.register(menuRoutes, { prefix: '/v1/commerce', ...services });
  await app.register(orderRoutes, { prefix: '/v1/commerce', ...services });
  await app.register(paymentRoutes, { prefix: '/v1/commerce', ...services });
  await app.register(inventoryRoutes, { prefix: '/v1/commerce', ...services });
  await app.register(timeClockRoutes, { prefix: '/v1/commerce', ...services });
  // At the root, before any WebSocket route (MQTT, the KDS and kiosk feeds): one WebSocket server
  // answers every upgrade. Registered inside each module instead, two would both take the socket.
  // A frame is at most the broker's largest packet (the feeds' clients send far less): ws would
  // otherwise buffer 100 MiB of one unauthenticated frame before MQTT saw a byte of it.
  await app.register(websocket, { options: { maxPayload: config.mqtt.maxPacketBytes } });
  if (deps.broker) await app.register(mqttWebSocketRoutes, { broker: deps.broker });
  await app.register(kitchenRoutes, { prefix: '/v1/commerce', db: deps.db, kitchen: services.kitchen });
  await app.register(deviceRoutes, {
    prefix: '/v1/devices',
    devices: services.devices,
    commands: deps.deviceCommands,
    clock: deps.clock,
    newId: deps.newId,
    commandTimeoutMs: config.devices.commandTimeoutMs,
  });
  await app.register(visionApiRoutes, { prefix: '/api/vision', vision: services.vision });
  await app.register(visionRoutes, { prefix: '/v1/vision', vision: services.vision });
  const vision = config.vision.enabled
    ? createVisionRuntimeFor(config, { ...deps, log: deps.log ?? pino({ level: config.logLevel }) }, services)
    : undefined;
  app.decorate('vision', vision);
  if (vision) {
    app.addHook('onClose', async () => vision.stop());
    const visionOptions = {
      runtime: vision,
      registry: services.vision,
      history: services.visionHistory,
      orders: services.orders,
      locationId: config.locationId,
      clock: deps.clock,
    };
    await app.register(visionRuntimeApiRoutes, { prefix: '/api/vision', ...visionOptions });
    await app.register(visionRuntimeRoutes, { prefix: '/v1/vision', ...visionOptions });
  }

  const worker = createApplianceSync(
    config,
    { db: deps.db, changes: services.changes, clock: deps.clock, landed: services.cloudEdits },
    { registry: app.metrics, log: app.log },
    syncOptions,
  );
  app.decorate('sync', worker);
  // Stopped before the store closes: a round in progress finishes its transaction first.
  app.addHook('onClose', async () => worker?.stop());
  await app.register(applianceSyncRoutes, { prefix: '/v1/sync', db: deps.db, worker, clock: deps.clock });
  const syncStatus = createSyncStatus(deps.db, worker, deps.clock);
  const watchSyncDrain = createSyncDrainWatch(services.actions, deps.newId);
  await app.register(kioskRoutes, {
    distDir: config.kioskDir,
    auth,
    events: createEventPoller(deps.db),
    sources: {
      sync: () => {
        const status = syncStatus();
        watchSyncDrain(status);
        return status;
      },
      devices: () => ({
        items: services.devices.list(),
        alerts: services.devices.alerts({ open: true, limit: 100 }),
      }),
      drive_thru: () => vision?.laneStatus() ?? null,
      cameras: () => vision?.cameraStatuses() ?? [],
      actions: () => services.actions.list(),
    },
  });
  return app;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The sync worker, when sync is configured; started by whoever runs the appliance. */
    sync: SyncWorker | undefined;
    /** The camera pipelines, unless APPLIANCE_VISION=off; started by whoever runs the appliance. */
    vision: ApplianceVision | undefined;
  }
}
