import type { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import type { Clock } from '../shared/clock.ts';
import { AppError } from '../shared/http/errors.ts';
import { createSecretHasher } from '../shared/identity/secrets.ts';
import type { ThrottlePolicies } from '../shared/identity/throttle.ts';
import type { IdGenerator } from '../shared/ids.ts';
import { createAiopsService } from './aiops/index.ts';
import { createAlertingService } from './alerting/index.ts';
import { createAuditLog } from './audit/index.ts';
import { createBillingService, createHttpPlatform, createInProcessPlatform } from './billing/index.ts';
import { createChatService } from './chat/index.ts';
import { createCockpitService, createConsoleFeed } from './cockpit/index.ts';
import type { CloudConfig } from './config.ts';
import type { Store } from './db/index.ts';
import { createDeviceService } from './devices/index.ts';
import { createEventLog } from './events/index.ts';
import {
  linkAiopsMetrics,
  linkAlertIncidents,
  linkEdgeAlerts,
  linkPnl,
  linkStoreDevices,
  linkVision,
  locationEvents,
  pnlStaffExists,
  pnlStructure,
  tenantUserOf,
  visionEdges,
} from './flows/index.ts';
import { createIdentity } from './identity/index.ts';
import { createIncidentService } from './incidents/index.ts';
import { createNotifyService } from './notify/index.ts';
import { createOncallService } from './oncall/index.ts';
import { createLedgerService, createPnlService } from './pnl/index.ts';
import { createRelay } from './relay.ts';
import { createRemediationService } from './remediation/index.ts';
import { createSso, createSsoPolicies, createSsoStore } from './sso/index.ts';
import { createSyncService, type SyncService } from './sync/index.ts';
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

/** The cloud's domain services, built once and shared by the HTTP app and the operator CLI. */
export function createCloudServices(config: CloudConfig, deps: CloudDeps) {
  const { store, clock, newId } = deps;
  const hasher = createSecretHasher(config.hashing);
  const audit = createAuditLog({ db: store.db, clock, newId });
  // Sync needs tenancy's staff, and tenancy tells sync of every staff change: bound late.
  let sync: SyncService | undefined;
  const events = createEventLog();
  const tenancy = createTenancyService({
    store,
    clock,
    newId,
    hasher,
    onStaffChanged: (trx, staff) => sync!.publishStaff(trx, staff),
    onLocationChanged: locationEvents({ events, clock, newId }),
  });
  sync = createSyncService({
    store,
    events,
    clock,
    newId,
    staffOf: (tenantId) => tenancy.staffRecords(tenantId),
    locationExists: async (tenantId, locationId) =>
      (await tenancy.getLocation(tenantId, locationId).catch(() => undefined)) !== undefined,
    options: config.sync,
  });
  const ssoPolicies = createSsoPolicies({ store: createSsoStore(store.db), clock });
  const identity = createIdentity({
    store,
    tenancy,
    signInAllowed: ssoPolicies.signInAllowed,
    audit,
    hasher,
    clock,
    newId,
    refreshTtlSeconds: config.refreshTtlSeconds,
    keyRotationSeconds: config.keyRotationSeconds,
    throttle: deps.throttle,
  });
  const log = deps.log ?? pino({ level: config.logLevel });
  const relay = createRelay({
    redis: deps.redis,
    log: log.child({ module: 'relay' }),
    namespace: deps.relayNamespace,
  });
  const webhooks = createWebhooks({
    store,
    events,
    clock,
    newId,
    log,
    options: config.webhooks,
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
  });
  const devices = createDeviceService({
    store,
    clock,
    newId,
    log,
    audit,
    options: config.devices,
    locationExists: async (tenantId, locationId) =>
      (await tenancy.getLocation(tenantId, locationId).catch(() => undefined)) !== undefined,
    issueApplianceCredential: async (tenantId, locationId, applianceId, name) =>
      (await sync.provisionAppliance(tenantId, { location_id: locationId, id: applianceId, name }))
        .credential,
  });
  linkStoreDevices(sync, devices);
  const incidents = createIncidentService({
    store,
    events,
    clock,
    newId,
    log,
    audit,
    locationName: async (tenantId, locationId) => (await tenancy.findLocation(tenantId, locationId))?.name,
    device: (tenantId, deviceId) =>
      devices.getDevice(tenantId, deviceId).catch((error: unknown) => {
        if (error instanceof AppError && error.status === 404) return undefined;
        throw error;
      }),
  });
  const visionModels = createVisionModelService({
    store,
    clock,
    newId,
    log: log.child({ module: 'vision-models' }),
    options: config.visionModels,
    edges: createEdgeFleet({ devices, sync }),
  });
  const vision = createVisionService({
    store,
    clock,
    newId,
    log: log.child({ module: 'vision' }),
    edges: visionEdges(devices, sync),
    locationExists: async (tenantId, locationId) =>
      (await tenancy.findLocation(tenantId, locationId)) !== undefined,
  });
  linkVision(sync, vision);
  const structure = pnlStructure(tenancy);
  const pnl = createPnlService({ db: store.db, structure });
  const pnlLedger = createLedgerService({
    db: store.db,
    clock,
    newId,
    structure,
    staffExists: pnlStaffExists(tenancy),
  });
  linkPnl(sync, { locking: store.dialect === 'pg' });
  const billing = createBillingService({
    store,
    clock,
    newId,
    log,
    platform: config.platformServiceUrl
      ? createHttpPlatform(config.platformServiceUrl)
      : createInProcessPlatform(async (tenantId) => {
          const tenant = await tenancy.getTenant(tenantId).catch((error: unknown) => {
            if (error instanceof AppError && error.status === 404) return undefined;
            throw error;
          });
          return tenant?.status === 'active';
        }),
  });
  const cockpit = createCockpitService({
    store,
    clock,
    newId,
    log: log.child({ module: 'cockpit' }),
    options: config.cockpit,
    feed: createConsoleFeed(relay),
    tokens: identity.tokens,
    sessions: identity.sessions,
  });
  const notify = createNotifyService({
    store,
    clock,
    newId,
    log: log.child({ module: 'notify' }),
    options: config.notify,
    consoleFeed: cockpit.feed,
  });
  const oncall = createOncallService({ store, clock, newId });
  const alerting = createAlertingService({
    store,
    events,
    clock,
    newId,
    log: log.child({ module: 'alerting' }),
    options: config.alerting,
    notify,
    oncall,
  });
  linkEdgeAlerts(events, alerting, log.child({ module: 'edge-alerts' }));
  const aiops = createAiopsService({
    store,
    clock,
    newId,
    log: log.child({ module: 'aiops' }),
    options: config.aiops,
    alerting,
    incidentAlert: (tenantId, incidentId) => incidents.alertOf(tenantId, incidentId),
  });
  linkAiopsMetrics(sync, aiops);
  const remediation = createRemediationService({
    store,
    clock,
    newId,
    log: log.child({ module: 'remediation' }),
    options: config.cockpit.remediation,
    alerting,
    cockpit,
    devices,
  });
  const chat = createChatService({
    store,
    clock,
    newId,
    log: log.child({ module: 'chat' }),
    options: config.chat,
    tokens: identity.tokens,
    sessions: identity.sessions,
    tenancy,
    relay,
  });
  const incidentFlow = linkAlertIncidents({
    alerting,
    chat,
    incidents,
    userOf: tenantUserOf(tenancy),
    clock,
    log: log.child({ module: 'incident-flow' }),
    options: {
      ...config.incidentFlow,
      autoResolveHours: config.chat.incidentAutoResolveHours,
    },
  });
  alerting.onChanged(incidentFlow.alertChanged);
  const sso = createSso({
    store,
    policies: ssoPolicies,
    tenancy,
    login: identity.login,
    audit,
    clock,
    newId,
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
    incidents,
    visionModels,
    vision,
    billing,
    pnl,
    pnlLedger,
    relay,
  };
}

export type CloudServices = ReturnType<typeof createCloudServices>;
