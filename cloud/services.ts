import { join } from 'node:path';
import type { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import type { Clock } from '../shared/clock.ts';
import { createSecretHasher } from '../shared/identity/secrets.ts';
import type { ThrottlePolicies } from '../shared/identity/throttle.ts';
import type { IdGenerator } from '../shared/ids.ts';
import { createAiopsService } from './aiops/index.ts';
import { createAlertingService } from './alerting/index.ts';
import { createAuditLog } from './audit/index.ts';
import { createBillingService, createHttpPlatform, createInProcessPlatform } from './billing/index.ts';
import { createChatService } from './chat/index.ts';
import { createCockpitService, createConsoleFeed } from './cockpit/index.ts';
import {
  createCommerceService,
  createMenuService,
  createSalesService,
  createTimeClockService,
} from './commerce/index.ts';
import type { CloudConfig } from './config.ts';
import type { Store } from './db/index.ts';
import { createDeviceService } from './devices/index.ts';
import { createEventLog } from './events/index.ts';
import { createFleetOverview } from './fleet-overview/index.ts';
import {
  applianceCredentials,
  commerceStores,
  deviceOrNothing,
  linkAiopsMetrics,
  linkAlertIncidents,
  linkCommerce,
  linkConsoleFrames,
  linkEdgeAlerts,
  linkPnl,
  linkStaffSync,
  linkStoreDevices,
  linkStoreMenus,
  linkVision,
  locationEvents,
  locationExists,
  locationName,
  menuLookups,
  pnlStaffExists,
  pnlStructure,
  publicationFrames,
  staffOf,
  storeEdits,
  tenantActive,
  tenantUserOf,
  visionEdges,
} from './flows/index.ts';
import { createIdentity } from './identity/index.ts';
import { createIncidentService } from './incidents/index.ts';
import { createNotifyService } from './notify/index.ts';
import { createOncallService } from './oncall/index.ts';
import { createLedgerService, createPnlService } from './pnl/index.ts';
import { createRelay } from './relay.ts';
import { createReleases, createRolloutService } from './releases/index.ts';
import { createRemediationService } from './remediation/index.ts';
import { createSso, createSsoPolicies, createSsoStore } from './sso/index.ts';
import { createSyncService } from './sync/index.ts';
import { createTenancyService } from './tenancy/index.ts';
import { createEdgeFleet, createVisionModelService, createVisionService } from './vision/index.ts';
import { createWebhooks, type WebhookDeps } from './webhooks/index.ts';

export interface CloudDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  /** With several replicas, what one holds in memory reaches the others through it (cloud/relay.ts). */
  redis?: Redis | undefined;
  /** Replicas relay to each other within one namespace (tests keep theirs apart). */
  relayNamespace?: string | undefined;
  throttle?: ThrottlePolicies;
  log?: Logger;
  /** Tests stage DNS answers for the webhook sender. */
  resolve?: WebhookDeps['resolve'];
}

/**
 * The cloud's domain services, built once and shared by the HTTP app and the operator CLI. Only
 * wiring: what one domain needs of another is a flow (cloud/flows).
 */
export function createCloudServices(config: CloudConfig, deps: CloudDeps) {
  const { store, clock, newId } = deps;
  const base = { store, clock, newId };
  const log = deps.log ?? pino({ level: config.logLevel });
  const logOf = (module: string) => log.child({ module });
  const hasher = createSecretHasher(config.hashing);
  const audit = createAuditLog({ db: store.db, clock, newId });
  const events = createEventLog();
  const relay = createRelay({ redis: deps.redis, log: logOf('relay'), namespace: deps.relayNamespace });
  const consoleFeed = createConsoleFeed(relay);

  const tenancy = createTenancyService({
    ...base,
    hasher,
    onLocationChanged: locationEvents({ events, clock, newId }),
  });
  const sync = createSyncService({
    ...base,
    events,
    staffOf: staffOf(tenancy),
    locationExists: locationExists(tenancy),
    options: config.sync,
  });
  linkStaffSync(tenancy, sync);
  const ssoPolicies = createSsoPolicies({ store: createSsoStore(store.db), clock });
  const identity = createIdentity({
    ...base,
    tenancy,
    signInAllowed: ssoPolicies.signInAllowed,
    audit,
    hasher,
    refreshTtlSeconds: config.refreshTtlSeconds,
    keyRotationSeconds: config.keyRotationSeconds,
    throttle: deps.throttle,
  });
  const webhooks = createWebhooks({
    ...base,
    events,
    log,
    options: config.webhooks,
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
  });
  const devices = createDeviceService({
    ...base,
    log,
    audit,
    options: config.devices,
    locationExists: locationExists(tenancy),
    issueApplianceCredential: applianceCredentials(sync),
  });
  linkStoreDevices(sync, devices);
  const releases = createReleases({
    ...base,
    log,
    options: config.releases,
    dir: join(config.dataDir, 'releases'),
    publicUrl: config.publicUrl,
  });
  const incidents = createIncidentService({
    ...base,
    events,
    log,
    audit,
    locationName: locationName(tenancy),
    device: deviceOrNothing(devices),
  });
  const visionModels = createVisionModelService({
    ...base,
    log: logOf('vision-models'),
    options: config.visionModels,
    edges: createEdgeFleet({ devices, sync }),
  });
  const vision = createVisionService({
    ...base,
    log: logOf('vision'),
    edges: visionEdges(devices, sync),
    locationExists: locationExists(tenancy),
  });
  linkVision(sync, vision);
  const fleetOverview = createFleetOverview({ tenancy, sync, devices, vision });
  const structure = pnlStructure(tenancy);
  const pnl = createPnlService({ db: store.db, structure });
  const pnlLedger = createLedgerService({
    db: store.db,
    clock,
    newId,
    structure,
    staffExists: pnlStaffExists(tenancy),
  });
  linkPnl(sync, tenancy, { locking: store.dialect === 'pg' });
  linkCommerce(sync, tenancy);
  const timeclock = createTimeClockService({ db: store.db, editStore: storeEdits(sync) });
  const sales = createSalesService({ db: store.db, clock, stores: commerceStores(tenancy) });
  const menu = createMenuService({
    ...base,
    db: store.db,
    editStore: storeEdits(sync),
    ...menuLookups(tenancy, sync),
    log: logOf('menu'),
    onProgress: publicationFrames(consoleFeed),
    parallelStores: store.dialect === 'pg' ? 4 : 1,
  });
  linkStoreMenus(sync, menu);
  const commerce = createCommerceService({
    db: store.db,
    clock,
    editStore: storeEdits(sync),
    catalogOf: (tenantId, locationId) => menu.catalogOf(tenantId, locationId),
  });
  const platform = config.platformServiceUrl
    ? createHttpPlatform(config.platformServiceUrl)
    : createInProcessPlatform(tenantActive(tenancy));
  const billing = createBillingService({ ...base, log, platform });
  const signedIn = { tokens: identity.tokens, sessions: identity.sessions };
  const cockpit = createCockpitService({
    ...base,
    log: logOf('cockpit'),
    options: config.cockpit,
    feed: consoleFeed,
    ...signedIn,
  });
  const notify = createNotifyService({
    ...base,
    log: logOf('notify'),
    options: config.notify,
    consoleFeed: cockpit.feed,
  });
  const oncall = createOncallService(base);
  const alerting = createAlertingService({
    ...base,
    events,
    log: logOf('alerting'),
    options: config.alerting,
    notify,
    oncall,
  });
  linkEdgeAlerts(events, alerting, logOf('edge-alerts'));
  linkConsoleFrames(consoleFeed, { alerting, sync });
  const rollouts = createRolloutService({
    ...base,
    log: logOf('rollouts'),
    events,
    releases,
    devices,
    tenancy,
    sync,
    alerting,
    feed: cockpit.feed,
    options: config.rollouts,
  });
  const aiops = createAiopsService({
    ...base,
    log: logOf('aiops'),
    options: config.aiops,
    alerting,
    incidentAlert: (tenantId, incidentId) => incidents.alertOf(tenantId, incidentId),
  });
  linkAiopsMetrics(sync, aiops);
  const remediation = createRemediationService({
    ...base,
    log: logOf('remediation'),
    options: config.cockpit.remediation,
    alerting,
    cockpit,
    devices,
  });
  const chat = createChatService({
    ...base,
    log: logOf('chat'),
    options: config.chat,
    ...signedIn,
    tenancy,
    relay,
  });
  const incidentFlow = linkAlertIncidents({
    alerting,
    chat,
    incidents,
    userOf: tenantUserOf(tenancy),
    clock,
    log: logOf('incident-flow'),
    options: { ...config.incidentFlow, autoResolveHours: config.chat.incidentAutoResolveHours },
  });
  alerting.onChanged(incidentFlow.alertChanged);
  const sso = createSso({
    ...base,
    policies: ssoPolicies,
    tenancy,
    login: identity.login,
    audit,
    log,
    config: config.sso,
    publicUrl: config.publicUrl,
  });
  return {
    sso,
    incidentFlow,
    cockpit,
    notify,
    oncall,
    alerting,
    aiops,
    remediation,
    chat,
    audit,
    tenancy,
    identity,
    events,
    sync,
    webhooks,
    devices,
    releases,
    rollouts,
    incidents,
    visionModels,
    vision,
    fleetOverview,
    billing,
    pnl,
    pnlLedger,
    commerce,
    timeclock,
    sales,
    menu,
    relay,
  };
}

export type CloudServices = ReturnType<typeof createCloudServices>;
