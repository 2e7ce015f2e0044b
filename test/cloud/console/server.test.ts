import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestCloud, type TestCloud } from '../../support/cloud.ts';

const INDEX =
  '<!doctype html><title>Fleet console</title><script type="module" src="/console/assets/x.js"></script>';

async function builtConsole() {
  const dir = await mkdtemp(join(tmpdir(), 'console-dist-'));
  await mkdir(join(dir, 'assets'));
  await writeFile(join(dir, 'index.html'), INDEX);
  await writeFile(join(dir, 'assets', 'x.js'), 'export {};\n');
  return dir;
}

function directives(response: LightMyRequestResponse) {
  const policy = String(response.headers['content-security-policy']);
  return new Map(
    policy.split(';').map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name!, values] as const;
    }),
  );
}

function expectSecurityHeaders(response: LightMyRequestResponse) {
  const csp = directives(response);
  expect(csp.get('default-src')).toEqual(["'self'"]);
  expect(csp.get('script-src')).toEqual(["'self'"]);
  expect(csp.get('style-src')).toEqual(["'self'"]);
  expect(csp.get('connect-src')).toEqual(["'self'"]);
  expect(csp.get('object-src')).toEqual(["'none'"]);
  expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
  expect(String(response.headers['content-security-policy'])).not.toContain('unsafe-');
  expect(response.headers).toMatchObject({
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=()',
    'cross-origin-opener-policy': 'same-origin',
  });
}

describe('the fleet console at /console/', () => {
  let cloud: TestCloud;
  let distDir: string;

  beforeEach(async () => {
    distDir = await builtConsole();
    cloud = await createTestCloud('sqlite', { config: { console: { distDir } } });
  });
  afterEach(async () => {
    await cloud.close();
    await rm(distDir, { recursive: true, force: true });
  });

  const get = (url: string) => cloud.app.inject({ url });

  it('sends /console to /console/', async () => {
    const response = await get('/console');
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/console/');
  });

  it.each(['/console/', '/console/stores/abc', '/console/stores/abc/devices?tab=2'])(
    'answers %s with the app page, fresh and behind the security headers',
    async (url) => {
      const response = await get(url);
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toBe(INDEX);
      expectSecurityHeaders(response);
    },
  );

  it('serves a hashed asset for a year', async () => {
    const response = await get('/console/assets/x.js');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expectSecurityHeaders(response);
  });

  it.each(['/console/assets/missing.js', '/console/favicon.ico', '/console/assets/chunk'])(
    'answers a missing asset %s with a 404, not the page',
    async (url) => {
      const response = await get(url);
      expect(response.statusCode).toBe(404);
      expect(response.json().error.code).toBe('NOT_FOUND');
      expectSecurityHeaders(response);
    },
  );

  it('serves pages to GET and HEAD only', async () => {
    const head = await cloud.app.inject({ method: 'HEAD', url: '/console/stores/abc' });
    expect(head.statusCode).toBe(200);
    const post = await cloud.app.inject({ method: 'POST', url: '/console/stores/abc', payload: {} });
    expect(post.statusCode).toBe(404);
    expect(post.json().error.code).toBe('NOT_FOUND');
  });

  it('refuses paths out of the build folder', async () => {
    for (const url of [
      '/console/../package.json',
      '/console/%2e%2e/package.json',
      '/console/assets/../../x',
    ]) {
      const response = await get(url);
      expect(response.statusCode, url).toBeGreaterThanOrEqual(400);
      expect(response.body).not.toContain('"dependencies"');
    }
  });

  it('answers 503 while a rebuild has emptied the folder', async () => {
    await rm(join(distDir, 'index.html'));
    const response = await get('/console/stores/abc');
    expect(response.statusCode).toBe(503);
    expect(response.json().error.code).toBe('CONSOLE_NOT_BUILT');
  });

  it('keeps its routes out of the API document and leaves the root and the API alone', async () => {
    const document = (await get('/openapi.json')).json();
    expect(Object.keys(document.paths).filter((path) => path.startsWith('/console'))).toEqual([]);
    const root = await get('/');
    expect(root.statusCode).toBe(200);
    expect(root.json().data.links).toMatchObject({ docs: '/docs', console: '/console/' });
    expect(root.headers['content-security-policy']).toBeUndefined();
    expect((await cloud.app.inject({ url: '/', headers: { accept: 'text/html' } })).headers.location).toBe(
      '/docs',
    );
    const api = await get('/v1/nothing-here');
    expect(api.statusCode).toBe(404);
    expect(api.headers['content-security-policy']).toBeUndefined();
  });
});

describe('the fleet console before it is built', () => {
  let cloud: TestCloud;
  let distDir: string;

  beforeEach(async () => {
    distDir = await mkdtemp(join(tmpdir(), 'console-dist-'));
    cloud = await createTestCloud('sqlite', { config: { console: { distDir } } });
  });
  afterEach(async () => {
    await cloud.close();
    await rm(distDir, { recursive: true, force: true });
  });

  it.each(['/console/', '/console/stores/abc', '/console/assets/x.js'])(
    'answers %s with 503 CONSOLE_NOT_BUILT and what to run',
    async (url) => {
      const response = await cloud.app.inject({ url });
      expect(response.statusCode).toBe(503);
      expect(response.json().error).toMatchObject({
        code: 'CONSOLE_NOT_BUILT',
        message: expect.stringContaining('npm run console:build'),
      });
      expectSecurityHeaders(response);
    },
  );

  it('still sends /console to /console/', async () => {
    expect((await cloud.app.inject({ url: '/console' })).headers.location).toBe('/console/');
  });
});
