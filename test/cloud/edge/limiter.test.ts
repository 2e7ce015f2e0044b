import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type ClientLimiter,
  createMemoryLimiter,
  createRedisLimiter,
  EDGE_LIMIT,
  limiterAnswer,
} from '../../../cloud/edge/limiter.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const T0 = Date.parse('2026-03-01T12:00:00.250Z');
const at = (ms: number) => new Date(T0 + ms);

const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
const prefix = `edge-test:${randomUUID()}:`;

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  await redis.quit();
});

const limiters: Array<[string, () => Promise<ClientLimiter>]> = [
  ['memory', async () => createMemoryLimiter()],
  [
    'redis',
    async () => {
      if (redis.status === 'wait') await redis.connect();
      return createRedisLimiter(redis, { keyPrefix: `${prefix}${randomUUID()}:` });
    },
  ],
];

describe.each(limiters)('the edge limiter in %s', (_name, make) => {
  it('admits 100 requests in a window, counting down, and refuses the 101st until the oldest leaves', async () => {
    const limiter = await make();
    const first = await limiter.take('203.0.113.1', at(0));
    expect(first).toMatchObject({ allowed: true, limit: 100, remaining: 99 });
    for (let n = 2; n <= 100; n++) {
      const decision = await limiter.take('203.0.113.1', at(10_000));
      expect(decision.allowed).toBe(true);
      expect(decision.remaining).toBe(100 - n);
    }
    const refused = await limiter.take('203.0.113.1', at(20_000));
    expect(refused).toEqual({
      allowed: false,
      limit: 100,
      remaining: 0,
      retryAfterSeconds: 40,
      resetAtSeconds: Math.ceil((T0 + 60_000) / 1000),
    });
    // Whole seconds, rounded up: 1 ms before the oldest leaves is still a second to wait.
    expect((await limiter.take('203.0.113.1', at(59_999))).retryAfterSeconds).toBe(1);
    expect((await limiter.take('203.0.113.1', at(40_500))).retryAfterSeconds).toBe(20);
    // Exactly when the oldest leaves, one place opens; the refused requests took none.
    expect(await limiter.take('203.0.113.1', at(60_000))).toMatchObject({ allowed: true, remaining: 0 });
    const next = await limiter.take('203.0.113.1', at(60_000));
    expect(next).toMatchObject({ allowed: false, retryAfterSeconds: 10 });
    expect(next.resetAtSeconds).toBe(Math.ceil((T0 + 70_000) / 1000));
    // Once the 99 of t=10 s leave, 99 places open at once.
    for (let n = 0; n < 99; n++) expect((await limiter.take('203.0.113.1', at(70_000))).allowed).toBe(true);
    expect((await limiter.take('203.0.113.1', at(70_000))).allowed).toBe(false);
  });

  it('keeps one window per client', async () => {
    const limiter = await make();
    for (let n = 0; n < 100; n++) await limiter.take('203.0.113.2', at(0));
    expect((await limiter.take('203.0.113.2', at(1))).allowed).toBe(false);
    expect(await limiter.take('203.0.113.3', at(1))).toMatchObject({ allowed: true, remaining: 99 });
    expect(await limiter.take('unknown', at(1))).toMatchObject({ allowed: true, remaining: 99 });
  });

  it('counts two requests in the same millisecond as two', async () => {
    const limiter = await make();
    await limiter.take('203.0.113.4', at(5));
    expect(await limiter.take('203.0.113.4', at(5))).toMatchObject({ allowed: true, remaining: 98 });
  });
});

describe('the limiter’s own answer', () => {
  it('is L1 (429 Rate Limited with Retry-After and the counts) for a refused request', () => {
    const answer = limiterAnswer({
      allowed: false,
      limit: 100,
      remaining: 0,
      retryAfterSeconds: 7,
      resetAtSeconds: 1_772_366_460,
    });
    expect(answer).toEqual({
      status: 429,
      body: 'Rate Limited',
      headers: {
        'retry-after': '7',
        'x-ratelimit-limit': '100',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '1772366460',
      },
    });
  });

  it('is L2 (the limit and what remains, and when the oldest leaves) for an admitted one', () => {
    const answer = limiterAnswer({
      allowed: true,
      limit: EDGE_LIMIT.limit,
      remaining: 42,
      retryAfterSeconds: 0,
      resetAtSeconds: 1,
    });
    expect(answer).toEqual({
      status: 200,
      body: '',
      headers: { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '42', 'x-ratelimit-reset': '1' },
    });
  });
});

describe('the memory limiter’s bound', () => {
  it('forgets clients idle for a whole window and never holds more than its maximum', async () => {
    const limiter = createMemoryLimiter({ maxClients: 50 });
    for (let n = 0; n < 80; n++) await limiter.take(`10.0.0.${n}`, at(n));
    expect(limiter.size()).toBe(50);
    for (let n = 0; n < 10; n++) await limiter.take('10.1.0.1', at(120_000 + n));
    expect(limiter.size()).toBeLessThan(50);
  });
});
