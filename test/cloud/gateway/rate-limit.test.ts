import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createMemoryRateLimiter,
  createRedisRateLimiter,
  type RateLimiter,
  type RateLimitPolicy,
  TIER_LIMITS,
} from '../../../cloud/gateway/rate-limit.ts';
import { createManualClock, type ManualClock } from '../../../shared/clock.ts';

const REDIS_URL = 'redis://127.0.0.1:6379';
// A quarter second past a whole second, so every ceil() in the header math is exercised.
const START = '2026-01-01T00:00:00.250Z';
const START_MS = Date.parse(START);
const FREE = TIER_LIMITS.free;

async function takeMany(
  limiter: RateLimiter,
  key: string,
  policy: RateLimitPolicy,
  clock: ManualClock,
  n: number,
) {
  const decisions = [];
  for (let i = 0; i < n; i += 1) decisions.push(await limiter.take(key, policy, clock.now()));
  return decisions;
}

/** The behaviour both stores must share, run once per store like the cloud store suites. */
function behavesLikeARateLimiter(limiterFor: () => RateLimiter) {
  let limiter: RateLimiter;
  let clock: ManualClock;
  // Fresh keys per test, so a Redis run never sees another test's buckets.
  let key: string;

  beforeEach(() => {
    limiter = limiterFor();
    clock = createManualClock(START);
    key = `tenant-${randomUUID()}`;
  });

  it('has the tier limits of the spec', () => {
    expect(TIER_LIMITS).toEqual({
      free: { perMinute: 60, burst: 10 },
      professional: { perMinute: 600, burst: 100 },
      enterprise: { perMinute: 6000, burst: 1000 },
    });
  });

  it('allows the whole burst at once and counts remaining down to zero', async () => {
    const decisions = await takeMany(limiter, key, FREE, clock, 10);
    expect(decisions.every((d) => d.allowed)).toBe(true);
    expect(decisions.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
  });

  it('refuses burst + 1 with a retry-after of one emission interval', async () => {
    await takeMany(limiter, key, FREE, clock, 10);
    const refused = await limiter.take(key, FREE, clock.now());
    expect(refused).toEqual({
      allowed: false,
      limit: 60,
      remaining: 0,
      resetAtSeconds: Math.ceil((START_MS + 10_000) / 1000),
      retryAfterSeconds: 1,
    });
  });

  it('does not let refused requests push the bucket further out', async () => {
    await takeMany(limiter, key, FREE, clock, 15);
    clock.advance(1000);
    expect((await limiter.take(key, FREE, clock.now())).allowed).toBe(true);
  });

  it('refills one request per emission interval', async () => {
    await takeMany(limiter, key, FREE, clock, 10);
    clock.advance(999);
    expect((await limiter.take(key, FREE, clock.now())).allowed).toBe(false);
    clock.advance(1);
    const refilled = await limiter.take(key, FREE, clock.now());
    expect(refilled).toMatchObject({ allowed: true, remaining: 0 });
    expect((await limiter.take(key, FREE, clock.now())).allowed).toBe(false);
  });

  it('refills at perMinute/60 per second up to the burst', async () => {
    await takeMany(limiter, key, FREE, clock, 10);
    clock.advance(5000);
    const refilled = await takeMany(limiter, key, FREE, clock, 6);
    expect(refilled.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
    clock.advance(60_000);
    const full = await takeMany(limiter, key, FREE, clock, 11);
    expect(full.filter((d) => d.allowed)).toHaveLength(10);
  });

  it('reports exact limit, remaining and reset after one request', async () => {
    const first = await limiter.take(key, FREE, clock.now());
    expect(first).toEqual({
      allowed: true,
      limit: 60,
      remaining: 9,
      // The bucket is full again one interval after the request: 00:00:01.250, rounded up.
      resetAtSeconds: Math.ceil((START_MS + 1000) / 1000),
      retryAfterSeconds: 0,
    });
    expect(first.resetAtSeconds).toBe(Math.floor(START_MS / 1000) + 2);
  });

  it('rounds a partial wait up to a whole second of Retry-After', async () => {
    const pro = TIER_LIMITS.professional;
    const decisions = await takeMany(limiter, key, pro, clock, 101);
    expect(decisions[99]).toMatchObject({ allowed: true, limit: 600, remaining: 0 });
    // 100 requests at 100 ms each: full again 10 s later.
    expect(decisions[99]?.resetAtSeconds).toBe(Math.ceil((START_MS + 10_000) / 1000));
    expect(decisions[100]).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(100);
    expect((await limiter.take(key, pro, clock.now())).allowed).toBe(true);
  });

  it('reports a multi-second Retry-After for a slow policy', async () => {
    const slow = { perMinute: 6, burst: 2 };
    await takeMany(limiter, key, slow, clock, 2);
    clock.advance(2500);
    const refused = await limiter.take(key, slow, clock.now());
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 8 });
    clock.advance(7500);
    expect(await limiter.take(key, slow, clock.now())).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('keeps separate keys independent', async () => {
    await takeMany(limiter, key, FREE, clock, 11);
    const other = await limiter.take(`${key}-other`, FREE, clock.now());
    expect(other).toMatchObject({ allowed: true, remaining: 9 });
  });
}

describe('memory rate limiter', () => {
  behavesLikeARateLimiter(() => createMemoryRateLimiter());

  it('drops buckets once they are full again', async () => {
    const limiter = createMemoryRateLimiter();
    const clock = createManualClock(START);
    for (const key of ['a', 'b', 'c']) await limiter.take(key, FREE, clock.now());
    expect(limiter.size()).toBe(3);
    clock.advance(1000);
    await limiter.take('d', FREE, clock.now());
    expect(limiter.size()).toBe(1);
  });

  it('never holds more than maxKeys, evicting the least recently used', async () => {
    const limiter = createMemoryRateLimiter({ maxKeys: 3 });
    const clock = createManualClock(START);
    await takeMany(limiter, 'first', FREE, clock, 10);
    for (let i = 0; i < 50; i += 1) await limiter.take(`key-${i}`, FREE, clock.now());
    expect(limiter.size()).toBe(3);
    // The evicted bucket starts over: the documented price of the memory bound.
    expect(await limiter.take('first', FREE, clock.now())).toMatchObject({ allowed: true, remaining: 9 });
  });

  it('forgets everything on close', async () => {
    const limiter = createMemoryRateLimiter();
    const clock = createManualClock(START);
    await limiter.take('a', FREE, clock.now());
    await limiter.close();
    expect(limiter.size()).toBe(0);
  });

  it('rejects a policy that cannot meter anything', async () => {
    const limiter = createMemoryRateLimiter();
    await expect(limiter.take('a', { perMinute: 0, burst: 10 }, new Date(START))).rejects.toThrow(RangeError);
  });
});

describe('redis rate limiter', () => {
  const keyPrefix = `ratelimit-test:${randomUUID()}:`;
  const clients: Redis[] = [];

  // lazyConnect + connect() rejects at once when Redis is unreachable, so these tests fail, not skip.
  async function connect(): Promise<Redis> {
    const client = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
    clients.push(client);
    await client.connect().catch((error: unknown) => {
      throw new Error(`These tests need Redis at ${REDIS_URL}`, { cause: error });
    });
    return client;
  }

  let replicaA: Redis;
  let replicaB: Redis;

  beforeAll(async () => {
    replicaA = await connect();
    replicaB = await connect();
  });

  afterAll(async () => {
    const keys = replicaA ? await replicaA.keys(`${keyPrefix}*`) : [];
    if (keys.length > 0) await replicaA.del(...keys);
    await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  });

  behavesLikeARateLimiter(() => createRedisRateLimiter(replicaA, { keyPrefix }));

  it('shares one budget between two replicas', async () => {
    const clock = createManualClock(START);
    const a = createRedisRateLimiter(replicaA, { keyPrefix });
    const b = createRedisRateLimiter(replicaB, { keyPrefix });
    const decisions = [];
    for (let i = 0; i < 10; i += 1) {
      decisions.push(await (i % 2 === 0 ? a : b).take('shared-tenant', FREE, clock.now()));
    }
    expect(decisions.map((d) => d.allowed)).toEqual(Array(10).fill(true));
    expect(decisions.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(await b.take('shared-tenant', FREE, clock.now())).toMatchObject({
      allowed: false,
      retryAfterSeconds: 1,
    });
    expect((await a.take('shared-tenant', FREE, clock.now())).allowed).toBe(false);
  });

  it('counts concurrent requests from both replicas atomically', async () => {
    const clock = createManualClock(START);
    const a = createRedisRateLimiter(replicaA, { keyPrefix });
    const b = createRedisRateLimiter(replicaB, { keyPrefix });
    const decisions = await Promise.all(
      Array.from({ length: 30 }, (_, i) => (i % 2 === 0 ? a : b).take('concurrent', FREE, clock.now())),
    );
    expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
  });

  it('stores one key per bucket under the prefix, expiring when the bucket is full', async () => {
    const clock = createManualClock(START);
    const limiter = createRedisRateLimiter(replicaA, { keyPrefix });
    await takeMany(limiter, 'ttl', FREE, clock, 3);
    const ttl = await replicaA.pttl(`${keyPrefix}ttl`);
    expect(ttl).toBeGreaterThan(2000);
    expect(ttl).toBeLessThanOrEqual(3000);
    expect(await replicaA.get(`${keyPrefix}ttl`)).toBe(String(START_MS + 3000));
  });

  it('leaves the redis client open on close, for its owner to quit', async () => {
    const limiter = createRedisRateLimiter(replicaA, { keyPrefix });
    await limiter.close();
    expect(await replicaA.ping()).toBe('PONG');
  });
});
