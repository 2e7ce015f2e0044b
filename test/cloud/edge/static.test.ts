import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdgeConfig } from '../../../cloud/edge/config.ts';
import { createDiskStore } from '../../../cloud/edge/storage/disk.ts';
import type { ObjectStore } from '../../../cloud/edge/storage/index.ts';
import { createS3Store } from '../../../cloud/edge/storage/s3.ts';
import { call, SECURITY, type TestEdge, testEdge } from './edge-support.ts';
import { startS3rver } from './s3rver.ts';

const CACHE = 'public, max-age=31536000, immutable';
// Static answers never reach the gateway: any address will do.
const GATEWAY = 'http://127.0.0.1:9';

interface Backend {
  store: ObjectStore;
  /** Stores an object the way another tool would, with a content type of its choosing. */
  putTyped(key: string, body: string, contentType: string): Promise<void>;
  close(): Promise<void>;
}

async function diskBackend(): Promise<Backend> {
  const dir = await mkdtemp(join(tmpdir(), 'edge-static-'));
  return {
    store: createDiskStore(dir),
    // On disk the type comes from the extension: a typed put is a put under a typed name.
    putTyped: (key, body) => createDiskStore(dir).put(key, body),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

async function s3Backend(): Promise<Backend> {
  const s3 = await startS3rver('static');
  const config: Extract<EdgeConfig['storage'], { kind: 's3' }> = {
    kind: 's3',
    bucket: 'static',
    endpoint: s3.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
  };
  const store = createS3Store(config, s3.client);
  return {
    store,
    putTyped: async (key, body, contentType) => {
      await s3.client.send(
        new PutObjectCommand({ Bucket: 'static', Key: key, Body: body, ContentType: contentType }),
      );
    },
    close: s3.close,
  };
}

describe.each([
  ['disk', diskBackend],
  ['s3 (s3rver)', s3Backend],
])('/static/* from %s', (_name, make) => {
  let backend: Backend;
  let edge: TestEdge;
  let client = 0;
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    call(edge.port, {
      path,
      method,
      headers: { 'cf-connecting-ip': `203.0.113.${++client % 250}`, ...headers },
    });

  beforeAll(async () => {
    backend = await make();
    edge = await testEdge(GATEWAY, {}, { store: backend.store });
    await backend.store.put('app.3f9a.js', 'console.log("hi")');
    await backend.store.put('blob', Buffer.from([0, 1, 2, 3, 255]));
    await backend.store.put('nested/dir/logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"/>');
    await backend.putTyped('report.css', 'body{}', 'text/css');
  });
  afterAll(async () => {
    await edge.stop();
    await backend.close();
  });

  it('serves an object by its key with its type, a year of immutable caching and an ETag', async () => {
    const answer = await get('/static/app.3f9a.js');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('console.log("hi")');
    expect(answer.headers).toMatchObject({
      ...SECURITY,
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': CACHE,
      'content-length': '17',
      'x-ratelimit-limit': '100',
    });
    expect(answer.headers.etag).toMatch(/^"[^"]+"$/);
    const nested = await get('/static/nested/dir/logo.svg?v=2');
    expect(nested.headers['content-type']).toBe('image/svg+xml');
    const typed = await get('/static/report.css');
    expect(typed.headers['content-type']).toMatch(/^text\/css/);
  });

  it('defaults the content type to application/octet-stream', async () => {
    const answer = await get('/static/blob');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/octet-stream');
    expect(answer.headers['content-length']).toBe('5');
  });

  it('answers 304 with the ETag and cache headers, and no body, when If-None-Match holds it', async () => {
    const { headers } = await get('/static/app.3f9a.js');
    const etag = headers.etag!;
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const answer = await get('/static/app.3f9a.js', { 'if-none-match': ifNoneMatch });
      expect(answer.status, ifNoneMatch).toBe(304);
      expect(answer.body).toBe('');
      expect(answer.headers).toMatchObject({ ...SECURITY, etag, 'cache-control': CACHE });
    }
    expect((await get('/static/app.3f9a.js', { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('gives a changed object a new ETag', async () => {
    await backend.store.put('changing.txt', 'one');
    const before = (await get('/static/changing.txt')).headers.etag;
    await backend.store.put('changing.txt', 'two');
    const after = await get('/static/changing.txt', { 'if-none-match': before! });
    expect(after.status).toBe(200);
    expect(after.body).toBe('two');
    expect(after.headers.etag).not.toBe(before);
  });

  it('answers HEAD with the headers and no body', async () => {
    const answer = await get('/static/app.3f9a.js', {}, 'HEAD');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('');
    expect(answer.headers).toMatchObject({ 'content-length': '17', 'cache-control': CACHE, ...SECURITY });
  });

  it('answers 404 Not Found for a missing key, an empty one, a folder, and keys leaving the root', async () => {
    for (const path of [
      '/static/missing.js',
      '/static/',
      '/static/nested',
      '/static/nested/',
      '/static/../package.json',
      '/static/%2e%2e/package.json',
      '/static/nested/%2E%2E/%2E%2E/app.3f9a.js',
      '/static/%2Fetc%2Fpasswd',
      '/static/%E0%A4%A',
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(404);
      expect(answer.body).toBe('Not Found');
      expect(answer.headers).toMatchObject(SECURITY);
    }
  });

  it('answers 405 to other methods on /static', async () => {
    const answer = await get('/static/app.3f9a.js', {}, 'POST');
    expect(answer.status).toBe(405);
    expect(answer.headers).toMatchObject({ ...SECURITY, allow: 'GET, HEAD' });
  });
});

describe('the disk store on its own', () => {
  it('refuses keys that resolve outside its root, as no object', async () => {
    const root = await mkdtemp(join(tmpdir(), 'edge-disk-'));
    await mkdir(join(root, 'in'));
    await writeFile(join(root, 'in', 'a.txt'), 'a');
    const store = createDiskStore(join(root, 'in'));
    try {
      await writeFile(join(root, 'outside.txt'), 'secret');
      expect(await store.get('../outside.txt')).toBeUndefined();
      expect(await store.get(join(root, 'outside.txt'))).toBeUndefined();
      await expect(store.put('../x.txt', 'x')).rejects.toThrow(RangeError);
      const found = await store.get('a.txt');
      found?.stream.destroy();
      expect(found).toMatchObject({ contentType: 'text/plain; charset=utf-8', size: 1 });
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
