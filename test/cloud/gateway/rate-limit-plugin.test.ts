import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, type RateLimiter } from '../../../cloud/gateway/rate-limit.ts';
import { rateLimitPlugin } from '../../../cloud/gateway/rate-limit-plugin.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { conventionsPlugin } from '../../../shared/http/conventions.ts';
import { serverOptions } from '../../../shared/http/server-options.ts';

const START = '2026-01-01T00:00:00.250Z';
const START_SECONDS = Math.floor(Date.parse(START) / 1000);
const POLICY = { perMinute: 60, burst: 2 };

async function resolveByHeader(request: FastifyRequest) {
  const key = request.headers['x-test-key'];
  if (typeof key !== 'string') return undefined;
  return { key, policy: POLICY };
}

const failingLimiter: RateLimiter = {
  take: async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
  },
  close: async () => {},
};

async function buildApp(limiter: RateLimiter, logLines: string[] = []) {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  // The shared options with a logger whose lines the fail-open test can read.
  const app = Fastify({ ...serverOptions(false), logger: { level: 'warn', stream } });
  await app.register(conventionsPlugin, { title: 't', version: '0', description: 'd' });
  await app.register(rateLimitPlugin, { limiter, clock: createManualClock(START), resolve: resolveByHeader });
  app.get('/things', async () => ({ ok: true }));
  await app.ready();
  return app;
}

describe('rate limit plugin', () => {
  let app: FastifyInstance | undefined;

  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  const getThings = (key?: string) =>
    app!.inject({ method: 'GET', url: '/things', headers: key ? { 'x-test-key': key } : {} });

  it('sets the rate limit headers on an allowed response', async () => {
    app = await buildApp(createMemoryRateLimiter());
    const response = await getThings('tenant-a');
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-ratelimit-limit']).toBe('60');
    expect(response.headers['x-ratelimit-remaining']).toBe('1');
    expect(response.headers['x-ratelimit-reset']).toBe(String(START_SECONDS + 2));
    expect(response.headers['retry-after']).toBeUndefined();
  });

  it('answers 429 in the error envelope once the burst is spent', async () => {
    app = await buildApp(createMemoryRateLimiter());
    await getThings('tenant-a');
    await getThings('tenant-a');
    const response = await getThings('tenant-a');
    expect(response.statusCode).toBe(429);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.headers['x-ratelimit-limit']).toBe('60');
    expect(response.headers['x-ratelimit-remaining']).toBe('0');
    expect(response.headers['x-ratelimit-reset']).toBe(String(START_SECONDS + 3));
    const body = response.json();
    expect(body.error.code).toBe('RATE_LIMITED');
    expect(body.error.message).toBe('Rate limit exceeded, retry later');
    expect(body.meta.request_id).toBe(response.headers['x-request-id']);
    expect(body.meta.request_id).toEqual(expect.any(String));
  });

  it('meters each key separately', async () => {
    app = await buildApp(createMemoryRateLimiter());
    await getThings('tenant-a');
    await getThings('tenant-a');
    expect((await getThings('tenant-a')).statusCode).toBe(429);
    expect((await getThings('tenant-b')).statusCode).toBe(200);
  });

  it('leaves requests that resolve to no bucket unmetered and without headers', async () => {
    app = await buildApp(createMemoryRateLimiter());
    for (let i = 0; i < 5; i += 1) {
      const response = await getThings();
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-ratelimit-limit']).toBeUndefined();
      expect(response.headers['x-ratelimit-remaining']).toBeUndefined();
      expect(response.headers['x-ratelimit-reset']).toBeUndefined();
    }
    const health = await app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('fails open with a warning when the limiter itself fails', async () => {
    const logLines: string[] = [];
    app = await buildApp(failingLimiter, logLines);
    const response = await getThings('tenant-a');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ ok: true });
    expect(response.headers['x-ratelimit-limit']).toBeUndefined();
    const warning = logLines.map((line) => JSON.parse(line)).find((entry) => entry.level === 40);
    expect(warning).toMatchObject({ msg: 'rate limiter unavailable, request let through', key: 'tenant-a' });
    expect(warning.err.message).toContain('ECONNREFUSED');
  });
});
