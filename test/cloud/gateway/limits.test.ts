import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../../cloud/app.ts';
import { createCloudServices } from '../../../cloud/services.ts';
import { newId } from '../../../shared/ids.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';

describe('gateway rate limits by tenant tier', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function cloudWithUser(tier: 'free' | 'professional' | 'enterprise') {
    const cloud = await createTestCloud();
    cleanups.push(() => cloud.close());
    const { tenant } = await seedTenant(cloud.services, 'acme', tier);
    await cloud.services.tenancy.addUser(tenant.id, {
      email: 'ada@acme.test',
      password: 'ada-password',
      roles: ['manager'],
    });
    const { access_token } = await loginTokens(cloud.app, {
      email: 'ada@acme.test',
      password: 'ada-password',
    });
    return { cloud, token: access_token, tenant };
  }

  const burst = async (cloud: TestCloud, token: string, count: number) => {
    const responses = [];
    for (let i = 0; i < count; i++)
      responses.push(await cloud.app.inject({ url: '/v1/auth/me', headers: bearer(token) }));
    return responses;
  };

  it.each([
    ['free', 60, 10],
    ['professional', 600, 100],
  ] as const)(
    'lets a %s tenant burst %i/min by %i, then answers 429 with the headers',
    async (tier, perMinute, burstSize) => {
      const { cloud, token } = await cloudWithUser(tier);
      const responses = await burst(cloud, token, burstSize + 1);
      const first = responses[0]!;
      expect(first.headers['x-ratelimit-limit']).toBe(String(perMinute));
      expect(first.headers['x-ratelimit-remaining']).toBe(String(burstSize - 1));
      expect(Number(first.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 5);
      expect(responses.slice(0, burstSize).every((r) => r.statusCode === 200)).toBe(true);
      const refused = responses[burstSize]!;
      expect(refused.statusCode).toBe(429);
      expect(refused.json().error.code).toBe('RATE_LIMITED');
      expect(refused.headers['x-ratelimit-remaining']).toBe('0');
      expect(refused.headers['retry-after']).toBeDefined();
      // One request's worth refills after 60/limit seconds.
      cloud.clock.advance((60_000 / perMinute) * 1.01);
      expect((await burst(cloud, token, 1))[0]!.statusCode).toBe(200);
    },
  );

  it('counts each tenant separately and leaves health and metrics unlimited', async () => {
    const { cloud, token } = await cloudWithUser('free');
    const { tenant: other } = await seedTenant(cloud.services, 'globex', 'free');
    await cloud.services.tenancy.addUser(other.id, {
      email: 'gus@globex.test',
      password: 'gus-password',
      roles: [],
    });
    const gus = await loginTokens(cloud.app, { email: 'gus@globex.test', password: 'gus-password' });
    await burst(cloud, token, 11);
    expect((await burst(cloud, gus.access_token, 1))[0]!.statusCode).toBe(200);
    for (let i = 0; i < 30; i++) expect((await cloud.app.inject({ url: '/health' })).statusCode).toBe(200);
    expect((await cloud.app.inject({ url: '/health' })).headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('shares one budget across gateway replicas through Redis', async () => {
    const first = await createTestCloud();
    cleanups.push(() => first.close());
    const { tenant } = await seedTenant(first.services, 'acme', 'free');
    await first.services.tenancy.addUser(tenant.id, {
      email: 'ada@acme.test',
      password: 'ada-password',
      roles: [],
    });
    const replicas = [];
    for (let i = 0; i < 2; i++) {
      const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      cleanups.push(() => redis.quit());
      const deps = { store: first.store, clock: first.clock, newId };
      const app = await buildApp(first.config, {
        ...deps,
        redis,
        services: createCloudServices(first.config, deps),
      });
      cleanups.push(() => app.close());
      // Ready before the first request: a replica compiling its routes mid-burst took over a second,
      // and the bucket's Redis key (its TTL in real time, its arithmetic on the test's clock) lapsed.
      await app.ready();
      replicas.push(app);
    }
    const { access_token } = await loginTokens(replicas[0]!, {
      email: 'ada@acme.test',
      password: 'ada-password',
    });
    const statuses = [];
    for (let i = 0; i < 12; i++) {
      const replica = replicas[i % 2]!;
      statuses.push((await replica.inject({ url: '/v1/auth/me', headers: bearer(access_token) })).statusCode);
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.slice(10)).toEqual([429, 429]);
  });
});
