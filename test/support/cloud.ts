import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { buildApp } from '../../cloud/app.ts';
import { type CloudConfig, loadCloudConfig } from '../../cloud/config.ts';
import { type CloudServices, createCloudServices } from '../../cloud/services.ts';
import type { Tier } from '../../cloud/tenancy/tables.ts';
import { createManualClock, type ManualClock } from '../../shared/clock.ts';
import type { ThrottlePolicies } from '../../shared/identity/throttle.ts';
import { newId } from '../../shared/ids.ts';
import { openTestStore, type TestStore } from './stores.ts';

export interface TestCloud {
  app: FastifyInstance;
  store: TestStore;
  clock: ManualClock;
  services: CloudServices;
  config: CloudConfig;
  close(): Promise<void>;
}

/** A real gateway on a fresh store; argon2 runs with light parameters so suites stay fast. */
export async function createTestCloud(
  backend: 'sqlite' | 'pg' = 'sqlite',
  options: {
    config?: Partial<CloudConfig>;
    throttle?: ThrottlePolicies;
    /** A second replica: the first one's store (left open on close) and a Redis for the relay. */
    replicaOf?: { store: TestStore; redis: Redis; relayNamespace: string };
  } = {},
): Promise<TestCloud> {
  const replica = options.replicaOf;
  const store = replica?.store ?? (await openTestStore(backend));
  const clock = createManualClock(new Date());
  const config: CloudConfig = {
    ...loadCloudConfig({}),
    // TEST_CLOUD_LOG=error shows why a test's request failed (a 500's cause is not in its body).
    logLevel: (process.env.TEST_CLOUD_LOG ?? 'silent') as 'silent',
    hashing: { memoryCost: 1024, timeCost: 1 },
    ...options.config,
  };
  const deps = {
    store,
    clock,
    newId,
    throttle: options.throttle,
    redis: replica?.redis,
    relayNamespace: replica?.relayNamespace,
  };
  const services = createCloudServices(config, deps);
  const app = await buildApp(config, { ...deps, services });
  return {
    app,
    store,
    clock,
    services,
    config,
    close: async () => {
      await app.close();
      await services.webhooks.close();
      // issue 10: background work started by a test
      for (const module of [services.notify, services.alerting, services.aiops, services.chat])
        await module.close();
      services.remediation.close();
      await services.relay.close();
      if (!replica) await store.destroy();
    },
  };
}

export async function seedTenant(services: CloudServices, slug: string, tier: Tier = 'professional') {
  const tenant = await services.tenancy.createTenant({ slug, name: `Tenant ${slug}`, tier });
  const brand = await services.tenancy.createGroup('brands', tenant.id, 'Brand');
  const region = await services.tenancy.createGroup('regions', tenant.id, 'Region');
  const location = await services.tenancy.createLocation(tenant.id, {
    name: 'Store 1',
    brand_id: brand.id,
    region_id: region.id,
  });
  return { tenant, brand, region, location };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Logs in by password and returns the tokens; fails the test when login does not succeed. */
export async function loginTokens(app: FastifyInstance, body: Record<string, unknown>) {
  const response = await app.inject({ method: 'POST', url: '/v1/auth/login', payload: body });
  const json = response.json();
  if (response.statusCode !== 200 || json.status?.type !== 'success') {
    throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  }
  return json.status as {
    access_token: string;
    refresh_token: string;
    user: { id: string; tenant_id: string; roles: string[] };
  };
}

export const TEST_PASSWORD = 'correct-horse-battery';

/** Adds a user with these roles to the tenant and signs them in by password. */
export async function signedInUser(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  await cloud.services.tenancy.addUser(tenantId, { email, password: TEST_PASSWORD, roles });
  const tokens = await loginTokens(cloud.app, { email, password: TEST_PASSWORD });
  return { id: tokens.user.id, email, token: tokens.access_token };
}

/** A test cloud without the rate limit, and two tenants (alpha, bravo) to test isolation across. */
export async function twoTenantCloud(
  backend: 'sqlite' | 'pg',
  options: Parameters<typeof createTestCloud>[1] = {},
) {
  const cloud = await createTestCloud(backend, {
    ...options,
    config: { rateLimit: false, ...options.config },
  });
  return {
    cloud,
    a: await seedTenant(cloud.services, 'alpha'),
    b: await seedTenant(cloud.services, 'bravo'),
  };
}
