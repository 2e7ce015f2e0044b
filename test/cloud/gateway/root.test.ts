import { Type } from '@sinclair/typebox';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { areaPath, rootRoutes } from '../../../cloud/gateway/root.ts';
import { conventionsPlugin } from '../../../shared/http/conventions.ts';
import { serverOptions } from '../../../shared/http/server-options.ts';

const LINKS = { docs: '/docs', openapi: '/openapi.json', health: '/health', metrics: '/metrics' };
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

async function tagged(app: FastifyInstance, opts: { tag: string; paths: string[] }) {
  for (const path of opts.paths)
    app.get(path, { schema: { tags: [opts.tag], response: { 200: Type.Object({}) } } }, async () => ({}));
}

describe('the gateway root', () => {
  let app: FastifyInstance;

  beforeAll(async () => {
    app = Fastify(serverOptions(false));
    await app.register(conventionsPlugin, {
      title: 'Edge appliance cloud',
      version: '1.0.0',
      description: 'd',
    });
    await app.register(rootRoutes, { home: '/docs', links: LINKS });
    await app.register(tagged, { prefix: '/v1/auth', tag: 'identity', paths: ['/login', '/login/pin'] });
    await app.register(tagged, { prefix: '/v1/mdm', tag: 'devices', paths: ['/devices/:id'] });
    await app.register(tagged, { prefix: '/v1/iot', tag: 'devices', paths: ['/devices'] });
    await app.register(tagged, { prefix: '/api/v1/pnl', tag: 'pnl', paths: ['/summary'] });
    await app.ready();
  });
  afterAll(() => app.close());

  it('tells an API client where the docs, OpenAPI, health and the API areas are', async () => {
    const response = await app.inject({ url: '/', headers: { accept: 'application/json' } });
    expect(response.statusCode).toBe(200);
    expect(response.json().data).toEqual({
      name: 'Edge appliance cloud',
      version: '1.0.0',
      links: LINKS,
      areas: [
        { name: 'devices', paths: ['/v1/iot', '/v1/mdm'] },
        { name: 'identity', paths: ['/v1/auth'] },
        { name: 'operations', paths: ['/', '/health'] },
        { name: 'pnl', paths: ['/api/v1/pnl'] },
      ],
    });
  });

  it('answers curl, which accepts anything, in JSON', async () => {
    const response = await app.inject({ url: '/', headers: { accept: '*/*' } });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.json().data.links).toEqual(LINKS);
  });

  it('sends a browser to the docs', async () => {
    const response = await app.inject({ url: '/', headers: { accept: BROWSER } });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/docs');
  });

  it('keeps JSON for a client that prefers it to HTML', async () => {
    const response = await app.inject({
      url: '/',
      headers: { accept: 'text/html;q=0.5, application/json' },
    });
    expect(response.statusCode).toBe(200);
  });

  it('is in the OpenAPI document, with both of its answers', async () => {
    const document = (await app.inject({ url: '/openapi.json' })).json();
    expect(Object.keys(document.paths['/'].get.responses).sort()).toEqual(['200', '302']);
  });
});

describe('areaPath', () => {
  it('keeps the version and area prefixes and the first segment that names something', () => {
    expect(areaPath('/v1/auth/login/pin')).toBe('/v1/auth');
    expect(areaPath('/api/v1/alerting/aiops/{id}')).toBe('/api/v1/alerting');
    expect(areaPath('/api/internal/cockpit/feed')).toBe('/api/internal/cockpit');
    expect(areaPath('/api/vision/cameras')).toBe('/api/vision');
    expect(areaPath('/.well-known/jwks.json')).toBe('/.well-known');
    expect(areaPath('/health')).toBe('/health');
    expect(areaPath('/')).toBe('/');
  });
});
