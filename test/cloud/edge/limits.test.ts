import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, echoUpstream, SECURITY, type TestEdge, testEdge } from './edge-support.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let upstream: Awaited<ReturnType<typeof echoUpstream>>;
beforeAll(async () => {
  upstream = await echoUpstream();
});
afterAll(() => upstream.close());

const get = (edge: TestEdge, ip?: string, path = '/api/v1/echo') =>
  call(edge.port, { path, headers: ip ? { 'cf-connecting-ip': ip } : {} });

describe('the edge limiter through the router', () => {
  let edge: TestEdge;
  beforeAll(async () => {
    edge = await testEdge(upstream.url);
  });
  afterAll(() => edge.stop());

  it('admits the 100th request, refuses the 101st with 429 Too Many Requests, and admits again as the oldest leaves', async () => {
    const start = edge.clock.now().getTime();
    const ip = '192.0.2.10';
    expect((await get(edge, ip)).headers['x-ratelimit-remaining']).toBe('99');
    edge.clock.advance(10_000);
    for (let n = 2; n <= 100; n++) {
      const answer = await get(edge, ip);
      expect(answer.status).toBe(201);
      expect(answer.headers['x-ratelimit-limit']).toBe('100');
      expect(answer.headers['x-ratelimit-remaining']).toBe(String(100 - n));
    }
    edge.clock.advance(5_500);
    const refused = await get(edge, ip);
    expect(refused.status).toBe(429);
    expect(refused.body).toBe('Too Many Requests');
    expect(refused.headers).toMatchObject({
      ...SECURITY,
      'retry-after': '45',
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Math.ceil((start + 60_000) / 1000)),
    });
    const before = upstream.seen.length;
    edge.clock.set(new Date(start + 59_999));
    expect((await get(edge, ip)).headers['retry-after']).toBe('1');
    expect(upstream.seen.length).toBe(before);
    edge.clock.set(new Date(start + 60_000));
    const again = await get(edge, ip);
    expect(again.status).toBe(201);
    expect(again.headers['x-ratelimit-remaining']).toBe('0');
    expect((await get(edge, ip)).headers['retry-after']).toBe('10');
  });

  it('counts every path but /health: 404s, static and bad tenants spend the budget too', async () => {
    const ip = '192.0.2.11';
    await get(edge, ip, '/nowhere');
    await call(edge.port, { path: '/api/v1/echo', host: 'edge.test', headers: { 'cf-connecting-ip': ip } });
    await get(edge, ip, '/health');
    expect((await get(edge, ip)).headers['x-ratelimit-remaining']).toBe('97');
  });

  it('puts requests without CF-Connecting-IP in one `unknown` bucket, apart from every address', async () => {
    for (let n = 0; n < 100; n++) expect((await get(edge)).status).toBe(201);
    expect((await get(edge)).status).toBe(429);
    expect((await get(edge, 'unknown-but-not')).status).toBe(201);
    expect((await get(edge, '192.0.2.12')).headers['x-ratelimit-remaining']).toBe('99');
    edge.clock.advance(60_000);
    expect((await get(edge)).status).toBe(201);
  });

  it('refuses a WebSocket upgrade of a limited client with 429 and the security headers', async () => {
    const ip = '192.0.2.13';
    for (let n = 0; n < 100; n++) await get(edge, ip, '/nowhere');
    const answer = await call(edge.port, {
      path: '/api/v1/chat/ws',
      headers: {
        'cf-connecting-ip': ip,
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    expect(answer.status).toBe(429);
    expect(answer.body).toBe('Too Many Requests');
    expect(answer.headers).toMatchObject({ ...SECURITY, 'retry-after': '60' });
  });
});

describe('two routers sharing Redis', () => {
  it('count one client’s requests together', async () => {
    const env = { REDIS_URL, EDGE_REDIS_KEY_PREFIX: `edge-test:${randomUUID()}:` };
    const one = await testEdge(upstream.url, env);
    const two = await testEdge(upstream.url, env);
    try {
      const ip = '192.0.2.20';
      for (let n = 0; n < 50; n++) {
        expect((await get(one, ip)).headers['x-ratelimit-remaining']).toBe(String(99 - 2 * n));
        expect((await get(two, ip)).headers['x-ratelimit-remaining']).toBe(String(98 - 2 * n));
      }
      expect((await get(one, ip)).status).toBe(429);
      const refused = await get(two, ip);
      expect(refused.status).toBe(429);
      expect(refused.headers['retry-after']).toBe('60');
      expect((await get(one, '192.0.2.21')).headers['x-ratelimit-remaining']).toBe('99');
    } finally {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${env.EDGE_REDIS_KEY_PREFIX}*`);
      if (keys.length > 0) await redis.del(...keys);
      await redis.quit();
      await one.stop();
      await two.stop();
    }
  });

  it('fail open when Redis cannot be reached: requests pass, promptly', async () => {
    const probe = createServer();
    const port = await new Promise<number>((resolve) =>
      probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)),
    );
    await new Promise((resolve) => probe.close(resolve));
    const edge = await testEdge(upstream.url, { REDIS_URL: `redis://127.0.0.1:${port}` });
    try {
      for (let n = 0; n < 3; n++) {
        const started = Date.now();
        const answer = await get(edge, '192.0.2.30');
        expect(answer.status).toBe(201);
        expect(Date.now() - started).toBeLessThan(1500);
      }
    } finally {
      await edge.stop();
    }
  });
});
