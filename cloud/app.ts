import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { conventionsPlugin } from '../shared/http/conventions.ts';
import { serverOptions } from '../shared/http/server-options.ts';
import { aiopsRoutes } from './aiops/index.ts';
import { alertingRoutes } from './alerting/index.ts';
import { billingRoutes } from './billing/index.ts';
import { CHAT_WS_PATH, chatRoutes } from './chat/index.ts';
import { cockpitRoutes, FEED_PATH } from './cockpit/index.ts';
import { commerceOpsRoutes, commerceRoutes } from './commerce/index.ts';
import type { CloudConfig } from './config.ts';
import { consoleRoutes } from './console/index.ts';
import { iotRoutes, mdmRoutes } from './devices/index.ts';
import { fleetOverviewRoutes } from './fleet-overview/index.ts';
import {
  authPlugin,
  createMemoryRateLimiter,
  createRedisRateLimiter,
  rateLimitPlugin,
  refuseUnclaimedUpgrades,
  rootRoutes,
  TIER_LIMITS,
} from './gateway/index.ts';
import { identityRoutes, wellKnownRoutes } from './identity/index.ts';
import { incidentApiRoutes, incidentRoutes } from './incidents/index.ts';
import { notifyRoutes } from './notify/index.ts';
import { oncallRoutes } from './oncall/index.ts';
import { pnlRoutes } from './pnl/index.ts';
import { releasesRoutes } from './releases/index.ts';
import { remediationRoutes } from './remediation/index.ts';
import { type CloudDeps, type CloudServices, createCloudServices } from './services.ts';
import { ssoRoutes } from './sso/index.ts';
import { syncRoutes } from './sync/index.ts';
import type { Tier } from './tenancy/index.ts';
import { platformRoutes } from './tenancy/index.ts';
import { visionApiRoutes, visionModelRoutes, visionRoutes } from './vision/index.ts';
import { webhookAdminPlugin, webhookSubscriptionPlugin } from './webhooks/index.ts';

export interface AppDeps extends CloudDeps {
  /** Shares rate-limit counts between gateway replicas; in-memory when absent. */
  redis?: Redis | undefined;
  services?: CloudServices;
}

// Operations endpoints stay reachable under load: monitoring must not be rate limited.
const UNLIMITED = new Set([
  '/health',
  '/metrics',
  '/openapi.json',
  '/.well-known/jwks.json',
  '/v1/auth/jwks',
]);
const TIER_CACHE_MS = 30_000;

/** The tenant's tier, cached briefly: it is read on every request and changes rarely. */
function tierLookup(services: CloudServices, deps: CloudDeps) {
  const cache = new Map<string, { tier: Tier; at: number }>();
  return async (tenantId: string): Promise<Tier> => {
    const now = deps.clock.now().getTime();
    const hit = cache.get(tenantId);
    if (hit && now - hit.at < TIER_CACHE_MS) return hit.tier;
    const tier = (await services.tenancy.tierOf(tenantId)) ?? 'free';
    cache.set(tenantId, { tier, at: now });
    return tier;
  };
}

function rateLimitOptions(config: CloudConfig, deps: AppDeps, services: CloudServices) {
  const tierOf = tierLookup(services, deps);
  return {
    limiter: deps.redis ? createRedisRateLimiter(deps.redis) : createMemoryRateLimiter(),
    clock: deps.clock,
    async resolve(request: FastifyRequest) {
      const route = request.routeOptions.url;
      if (route === undefined || UNLIMITED.has(route)) return undefined;
      // Static pages: loading one is a dozen files, which should not eat into the API's budget.
      if (route.startsWith('/docs') || route.startsWith('/console')) return undefined;
      // Appliances are admitted by sync itself (429 with Retry-After when it is busy), not by tier.
      if (request.headers.authorization?.startsWith('Appliance ')) return undefined;
      if (request.claims) {
        const tenantId = request.claims.tenant_id;
        return { key: `tenant:${tenantId}`, policy: TIER_LIMITS[await tierOf(tenantId)] };
      }
      return { key: `address:${request.ip}`, policy: TIER_LIMITS[config.anonymousTier] };
    },
  };
}

/** The cloud gateway: every module is a plugin under its prefix, registered in this one list. */
export async function buildApp(config: CloudConfig, deps: AppDeps): Promise<FastifyInstance> {
  const services = deps.services ?? createCloudServices(config, deps);
  await services.identity.keys.rotateIfDue();

  const app = Fastify(serverOptions({ level: config.logLevel }, config.trustProxy));
  await app.register(conventionsPlugin, {
    title: 'Edge appliance cloud',
    version: '1.0.0',
    description: 'Tenancy, identity and fleet services for restaurant appliances.',
    healthChecks: {
      database: async () => {
        await services.tenancy.tierOf('00000000-0000-0000-0000-000000000000');
      },
    },
  });
  await app.register(authPlugin, { tokens: services.identity.tokens, sessions: services.identity.sessions });
  if (config.rateLimit) await app.register(rateLimitPlugin, rateLimitOptions(config, deps, services));
  // Where to start: a browser goes to the docs, an API client gets the links and the API's areas.
  await app.register(rootRoutes, {
    home: '/docs',
    links: {
      docs: '/docs',
      openapi: '/openapi.json',
      health: '/health',
      metrics: '/metrics',
      console: '/console/',
    },
  });
  await app.register(consoleRoutes, { distDir: config.console.distDir });

  await app.register(wellKnownRoutes, { identity: services.identity });
  const { refreshTtlSeconds } = config;
  await app.register(identityRoutes, { prefix: '/v1/auth', identity: services.identity, refreshTtlSeconds });
  await app.register(ssoRoutes, {
    prefix: '/v1/auth',
    flow: services.sso.flow,
    publicUrl: config.publicUrl,
    refreshTtlSeconds,
  });
  await app.register(platformRoutes, { prefix: '/v1/platform', services });
  await app.register(syncRoutes, { prefix: '/v1/sync', sync: services.sync });
  const webhookOptions = {
    webhooks: services.webhooks,
    limiter: deps.redis ? createRedisRateLimiter(deps.redis) : createMemoryRateLimiter(),
    operationsPerMinute: config.webhooks.operationsPerMinute,
    clock: deps.clock,
  };
  await app.register(webhookSubscriptionPlugin, { prefix: '/v1/webhooks', ...webhookOptions });
  await app.register(webhookAdminPlugin, { prefix: '/api/v1/webhooks', ...webhookOptions });
  await app.register(mdmRoutes, { prefix: '/v1/mdm', devices: services.devices, audit: services.audit });
  await app.register(releasesRoutes, {
    prefix: '/v1/mdm',
    releases: services.releases,
    rollouts: services.rollouts,
    audit: services.audit,
    maxBytes: config.releases.maxBytes,
  });
  app.addHook('onReady', async () => services.releases.start());
  app.addHook('onClose', async () => services.releases.close());
  await app.register(iotRoutes, { prefix: '/v1/iot', devices: services.devices });
  await app.register(fleetOverviewRoutes, { prefix: '/v1/fleet', overview: services.fleetOverview });
  await app.register(incidentRoutes, { prefix: '/v1/incidents', incidents: services.incidents });
  await app.register(billingRoutes, { prefix: '/v1/billing', billing: services.billing });
  await app.register(commerceRoutes, {
    prefix: '/v1/commerce',
    commerce: services.commerce,
    menu: services.menu,
  });
  await app.register(commerceOpsRoutes, {
    prefix: '/v1/commerce',
    timeclock: services.timeclock,
    sales: services.sales,
  });
  await app.register(pnlRoutes, { prefix: '/api/v1/pnl', pnl: services.pnl, ledger: services.pnlLedger });
  await app.register(visionApiRoutes, { prefix: '/api/vision', vision: services.vision });
  await app.register(visionRoutes, { prefix: '/v1/vision', vision: services.vision, audit: services.audit });
  await app.register(visionModelRoutes, {
    prefix: '/v1/vision',
    models: services.visionModels,
    audit: services.audit,
    authenticateAppliance: services.sync.authenticate,
    publicUrl: config.publicUrl,
    maxBytes: config.visionModels.maxBytes,
  });
  await app.register(notifyRoutes, { prefix: '/api/v1/alerting', notify: services.notify });
  await app.register(oncallRoutes, { prefix: '/api/v1/oncall', oncall: services.oncall });
  await app.register(alertingRoutes, { prefix: '/api/v1', alerting: services.alerting });
  await app.register(aiopsRoutes, { prefix: '/api/v1/alerting/aiops', aiops: services.aiops });
  await app.register(remediationRoutes, {
    prefix: '/api/v1/alerting/aiops',
    remediation: services.remediation,
  });
  await app.register(cockpitRoutes, { prefix: '/api/internal/cockpit', cockpit: services.cockpit });
  services.cockpit.attach(app.server);
  app.addHook('preClose', async () => services.cockpit.close());
  await app.register(chatRoutes, { prefix: '/api/v1/chat', chat: services.chat });
  services.chat.attach(app.server);
  refuseUnclaimedUpgrades(app.server, [FEED_PATH, CHAT_WS_PATH]);
  await app.register(incidentApiRoutes, { prefix: '/api/v1/incidents', incidents: services.incidents });
  app.addHook('onReady', async () => services.incidentFlow.start());
  app.addHook('onClose', async () => services.incidentFlow.close());
  return app;
}
