import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { create } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manifestProblem } from '../../../shared/devices/update-manifest.ts';
import { bearer, createTestCloud, seedTenant, signedInUser, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { expectError, expectOk } from '../devices/device-client.ts';

const MAX_BYTES = 256 * 1024;
const PUBLIC_URL = 'http://cloud.test';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A small real .tar.gz of these files (gzip: false for a bare tar). */
async function archive(files: Record<string, string | Buffer>, gzip = true): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'release-src-'));
  try {
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), content);
    }
    const chunks: Buffer[] = [];
    for await (const chunk of create({ gzip, cwd: dir, portable: true }, Object.keys(files)))
      chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What `npm run release` puts at an archive's root, in miniature; random bytes so gzip keeps the size. */
const releaseArchive = (version: string, payloadBytes = 40_000, meta: Record<string, unknown> = {}) =>
  archive({
    'release.json': JSON.stringify({
      format: 1,
      version,
      commit: 'abc1234',
      created_at: '2026-01-01T00:00:00.000Z',
      platform: 'linux',
      arch: 'x64',
      node_abi: '115',
      ...meta,
    }),
    'package.json': '{"name":"edge-appliance-runtime"}',
    'dist/appliance.mjs': randomBytes(payloadBytes),
  });

type Headers = Record<string, string>;
type Method = 'GET' | 'POST' | 'PATCH' | 'HEAD';

function caller(cloud: TestCloud, auth: Headers) {
  return (method: Method, url: string, payload?: unknown, headers: Headers = {}) =>
    cloud.app.inject({
      method,
      url,
      headers: { ...auth, ...headers },
      ...(payload === undefined
        ? {}
        : Buffer.isBuffer(payload) || payload instanceof Readable
          ? { payload, headers: { ...auth, 'content-type': 'application/gzip', ...headers } }
          : { payload: payload as Record<string, unknown> }),
    });
}
type Caller = ReturnType<typeof caller>;

async function releaseCloud(backend: 'sqlite' | 'pg') {
  const dataDir = mkdtempSync(join(tmpdir(), 'cloud-releases-'));
  const cloud = await createTestCloud(backend, {
    config: {
      rateLimit: false,
      dataDir,
      publicUrl: PUBLIC_URL,
      releases: { maxBytes: MAX_BYTES, uploadTtlSeconds: 86_400 },
    },
  });
  const a = await seedTenant(cloud.services, 'alpha');
  const b = await seedTenant(cloud.services, 'bravo');
  const as = async (tenantId: string, email: string, roles: string[]) =>
    caller(cloud, bearer((await signedInUser(cloud, tenantId, email, roles)).token));
  return {
    cloud,
    dataDir,
    a,
    b,
    adminA: await as(a.tenant.id, 'admin@alpha.test', ['tenant_admin']),
    managerA: await as(a.tenant.id, 'manager@alpha.test', ['manager']),
    staffA: await as(a.tenant.id, 'staff@alpha.test', ['staff']),
    adminB: await as(b.tenant.id, 'admin@bravo.test', ['tenant_admin']),
    anonymous: caller(cloud, {}),
  };
}

const count = async (cloud: TestCloud, table: 'releases' | 'release_uploads') =>
  Number(
    (
      await cloud.store.db
        .withTables<{ releases: { id: string }; release_uploads: { id: string } }>()
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Files under the releases directory that are not a published artifact: what a refusal may not leave. */
const leftovers = (dataDir: string) =>
  ['.incoming', '.uploads'].flatMap((folder) => {
    const path = join(dataDir, 'releases', folder);
    return existsSync(path) ? readdirSync(path) : [];
  });

const uploads = '/v1/mdm/releases/uploads';
const chunk = (admin: Caller, id: string, offset: number, bytes: Buffer) =>
  admin('PATCH', `${uploads}/${id}`, bytes, {
    'content-type': 'application/offset+octet-stream',
    'upload-offset': String(offset),
  });

describe.each(backends)('releases in the cloud on %s', (backend) => {
  let context: Awaited<ReturnType<typeof releaseCloud>>;
  beforeAll(async () => {
    context = await releaseCloud(backend);
  });
  afterAll(async () => {
    await context.cloud.close();
    rmSync(context.dataDir, { recursive: true, force: true });
  });

  it('takes an archive in one request, checks it, keeps it and lists it', async () => {
    const { adminA, managerA, staffA, a, dataDir } = context;
    const bytes = await releaseArchive('1.0.0');
    const release = expectOk(await adminA('POST', '/v1/mdm/releases?notes=first%20cut', bytes), 201);
    expect(release).toEqual({
      id: expect.any(String),
      tenant_id: a.tenant.id,
      version: '1.0.0',
      size: bytes.length,
      sha256: sha256(bytes),
      state: 'available',
      notes: 'first cut',
      release_meta: expect.objectContaining({ format: 1, version: '1.0.0', commit: 'abc1234', arch: 'x64' }),
      created_by: expect.any(String),
      created_at: expect.any(String),
      retired_at: null,
    });
    expect(existsSync(join(dataDir, 'releases', a.tenant.id, `${release.id}.tar.gz`))).toBe(true);
    expect(expectOk(await managerA('GET', `/v1/mdm/releases/${release.id}`))).toEqual(release);
    expect(expectOk(await managerA('GET', '/v1/mdm/releases'))).toContainEqual(release);
    expectError(await staffA('GET', '/v1/mdm/releases'), 403, 'FORBIDDEN');
    expectError(await managerA('POST', '/v1/mdm/releases', bytes), 403, 'FORBIDDEN');
    expectError(await context.anonymous('GET', '/v1/mdm/releases'), 401, 'MISSING_TOKEN');
    // The declared digest, when given, is checked; octet-stream is as good as gzip.
    const second = await releaseArchive('1.0.1');
    const typed = { 'content-type': 'application/octet-stream' };
    expectOk(await adminA('POST', `/v1/mdm/releases?sha256=${sha256(second)}`, second, typed), 201);
  });

  it('refuses a version the tenant has, and keeps nothing of the second upload', async () => {
    const { adminA, adminB, cloud, dataDir } = context;
    const first = await releaseArchive('2.0.0');
    expectOk(await adminA('POST', '/v1/mdm/releases', first), 201);
    const before = await count(cloud, 'releases');
    const again = await releaseArchive('2.0.0');
    expectError(await adminA('POST', '/v1/mdm/releases', again), 409, 'RELEASE_EXISTS');
    expect(await count(cloud, 'releases')).toBe(before);
    expect(leftovers(dataDir)).toEqual([]);
    // Versions are per tenant: another tenant may have its own 2.0.0.
    expectOk(await adminB('POST', '/v1/mdm/releases', again), 201);
  });

  it('refuses what is not a release archive with a 4xx in the envelope, and stores nothing', async () => {
    const { adminA, cloud, dataDir } = context;
    const before = await count(cloud, 'releases');
    const cases: Array<[Buffer, number, string]> = [
      [Buffer.from('just some text, not gzip'), 422, 'RELEASE_ARCHIVE_INVALID'],
      [Buffer.from([0x1f]), 422, 'RELEASE_ARCHIVE_INVALID'],
      [await archive({ 'release.json': '{"version":"3.0.0"}' }, false), 422, 'RELEASE_ARCHIVE_INVALID'],
      [(await releaseArchive('3.0.0')).subarray(0, 5000), 422, 'RELEASE_ARCHIVE_INVALID'],
      [await archive({ 'dist/app.js': 'x' }), 422, 'RELEASE_JSON_INVALID'],
      [await archive({ 'nested/release.json': '{"version":"3.0.0"}' }), 422, 'RELEASE_JSON_INVALID'],
      [await archive({ 'release.json': 'not json' }), 422, 'RELEASE_JSON_INVALID'],
      [await archive({ 'release.json': '{"version":"3.0 beta"}' }), 422, 'RELEASE_JSON_INVALID'],
      [await archive({ 'release.json': '{"version":"../x"}' }), 422, 'RELEASE_JSON_INVALID'],
      [await archive({ 'release.json': '{"format":2,"version":"3.0.0"}' }), 422, 'RELEASE_JSON_INVALID'],
      [Buffer.alloc(0), 400, 'EMPTY_UPLOAD'],
      [await releaseArchive('3.0.0', MAX_BYTES), 413, 'RELEASE_TOO_LARGE'],
    ];
    for (const [bytes, status, code] of cases)
      expectError(await adminA('POST', '/v1/mdm/releases', bytes), status, code);
    const good = await releaseArchive('3.0.0');
    const wrong = 'ab'.repeat(32);
    const mismatch = expectError(
      await adminA('POST', `/v1/mdm/releases?sha256=${wrong}`, good),
      422,
      'SHA256_MISMATCH',
    );
    expect(mismatch.details[0]!.message).toContain(sha256(good));
    // Streamed without a length: the limit stops it as the bytes arrive.
    const huge = await releaseArchive('3.0.0', MAX_BYTES);
    const streamed = Readable.from([huge.subarray(0, 100_000), huge.subarray(100_000)]);
    expectError(await adminA('POST', '/v1/mdm/releases', streamed), 413, 'RELEASE_TOO_LARGE');
    expect(await count(cloud, 'releases')).toBe(before);
    expect(leftovers(dataDir)).toEqual([]);
  });

  it('takes only archive content types, answering in the envelope', async () => {
    const { adminA } = context;
    const text = { 'content-type': 'text/plain' };
    expectError(
      await adminA('POST', '/v1/mdm/releases', Buffer.from('x'), text),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectError(await adminA('POST', '/v1/mdm/releases', { version: '1' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const odd = { 'content-type': 'image/png' };
    expectError(
      await adminA('POST', '/v1/mdm/releases', Buffer.from('x'), odd),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    // A declared length past the limit is refused before a byte is read.
    const nothing = (async function* () {})();
    const service = context.cloud.services.releases;
    await expect(
      service.upload(context.a.tenant.id, null, nothing, { declaredLength: MAX_BYTES + 1 }),
    ).rejects.toMatchObject({ status: 413, code: 'RELEASE_TOO_LARGE' });
  });

  it('takes an archive in chunks, and a client that lost an answer asks and carries on', async () => {
    const { adminA, cloud, dataDir } = context;
    const bytes = await releaseArchive('4.0.0', 100_000);
    const created = await adminA('POST', uploads, {
      size: bytes.length,
      sha256: sha256(bytes),
      notes: 'slow',
    });
    const upload = expectOk(created, 201);
    expect(upload).toMatchObject({ offset: 0, size: bytes.length, state: 'open', release_id: null });
    expect(Date.parse(upload.expires_at) - cloud.clock.now().getTime()).toBe(86_400_000);
    expect(created.headers.location).toBe(`${uploads}/${upload.id}`);

    const third = Math.floor(bytes.length / 3);
    expect(expectOk(await chunk(adminA, upload.id, 0, bytes.subarray(0, third)))).toMatchObject({
      offset: third,
      state: 'open',
    });
    // The second chunk lands, but its answer never reaches the client, which sends it again.
    expectOk(await chunk(adminA, upload.id, third, bytes.subarray(third, 2 * third)));
    const resent = await chunk(adminA, upload.id, third, bytes.subarray(third, 2 * third));
    const mismatch = expectError(resent, 409, 'UPLOAD_OFFSET_MISMATCH');
    expect(resent.headers['upload-offset']).toBe(String(2 * third));
    expect(mismatch.message).toContain(String(2 * third));
    const status = await adminA('GET', `${uploads}/${upload.id}`);
    const offset = expectOk(status).offset;
    expect(offset).toBe(2 * third);
    expect(status.headers['upload-offset']).toBe(String(offset));

    const done = await chunk(adminA, upload.id, offset, bytes.subarray(offset));
    const release = expectOk(done, 201);
    expect(release).toMatchObject({
      version: '4.0.0',
      size: bytes.length,
      sha256: sha256(bytes),
      notes: 'slow',
    });
    expect(expectOk(await adminA('GET', `${uploads}/${upload.id}`))).toMatchObject({
      state: 'completed',
      offset: bytes.length,
      release_id: release.id,
    });
    const artifact = await adminA('GET', `/v1/mdm/releases/${release.id}/artifact`);
    expect(artifact.rawPayload.equals(bytes)).toBe(true);
    expectError(await chunk(adminA, upload.id, bytes.length, Buffer.alloc(0)), 409, 'UPLOAD_NOT_OPEN');
    expect(leftovers(dataDir)).toEqual([]);
  });

  it('keeps what arrived of a chunk cut off midway', async () => {
    const { cloud, a } = context;
    const bytes = await releaseArchive('4.1.0');
    const service = cloud.services.releases;
    const upload = await service.uploads.create(a.tenant.id, null, { size: bytes.length });
    async function* cutOff() {
      yield bytes.subarray(0, 1000);
      yield bytes.subarray(1000, 3000);
      throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    }
    await expect(
      service.uploads.append(a.tenant.id, upload.id, 0, cutOff(), undefined),
    ).rejects.toMatchObject({
      status: 400,
      code: 'UPLOAD_INTERRUPTED',
    });
    expect((await service.uploads.status(a.tenant.id, upload.id)).offset).toBe(3000);
    const outcome = await service.uploads.append(
      a.tenant.id,
      upload.id,
      3000,
      Readable.from([bytes.subarray(3000)]),
      undefined,
    );
    expect(outcome.release).toMatchObject({ version: '4.1.0', sha256: sha256(bytes) });
  });

  it('fails a resumable upload whose archive is refused, keeping no release and no bytes', async () => {
    const { adminA, cloud, dataDir } = context;
    const before = await count(cloud, 'releases');
    const bytes = await releaseArchive('5.0.0');
    const upload = expectOk(
      await adminA('POST', uploads, { size: bytes.length, sha256: 'cd'.repeat(32) }),
      201,
    );
    expectError(await chunk(adminA, upload.id, 0, bytes), 422, 'SHA256_MISMATCH');
    expect(expectOk(await adminA('GET', `${uploads}/${upload.id}`))).toMatchObject({
      state: 'failed',
      release_id: null,
      error: { code: 'SHA256_MISMATCH', message: expect.any(String) },
    });
    expect(await count(cloud, 'releases')).toBe(before);
    expect(leftovers(dataDir)).toEqual([]);

    const junk = Buffer.from('not an archive at all');
    const second = expectOk(await adminA('POST', uploads, { size: junk.length }), 201);
    expectError(await chunk(adminA, second.id, 0, junk), 422, 'RELEASE_ARCHIVE_INVALID');
    expect(expectOk(await adminA('GET', `${uploads}/${second.id}`)).state).toBe('failed');
  });

  it('refuses chunks past the size, bad offsets and bad types, and uploads past the limit', async () => {
    const { adminA } = context;
    expectError(await adminA('POST', uploads, { size: MAX_BYTES + 1 }), 413, 'RELEASE_TOO_LARGE');
    expectError(await adminA('POST', uploads, { size: 0 }), 400, 'INVALID_REQUEST');
    expectError(await adminA('POST', uploads, { size: 10, extra: 1 }), 400, 'INVALID_REQUEST');
    const upload = expectOk(await adminA('POST', uploads, { size: 10 }), 201);
    expectError(await chunk(adminA, upload.id, 0, Buffer.alloc(11)), 413, 'UPLOAD_EXCEEDS_SIZE');
    const streamed = await adminA(
      'PATCH',
      `${uploads}/${upload.id}`,
      Readable.from([Buffer.alloc(6), Buffer.alloc(6)]),
      {
        'content-type': 'application/offset+octet-stream',
        'upload-offset': '0',
      },
    );
    expectError(streamed, 413, 'UPLOAD_EXCEEDS_SIZE');
    expect(expectOk(await adminA('GET', `${uploads}/${upload.id}`)).offset).toBe(0);
    expectError(await chunk(adminA, upload.id, 4, Buffer.alloc(2)), 409, 'UPLOAD_OFFSET_MISMATCH');
    const noOffset = await adminA('PATCH', `${uploads}/${upload.id}`, Buffer.alloc(2), {
      'content-type': 'application/offset+octet-stream',
    });
    expectError(noOffset, 400, 'INVALID_REQUEST');
    const text = await adminA('PATCH', `${uploads}/${upload.id}`, Buffer.alloc(2), {
      'content-type': 'text/plain',
      'upload-offset': '0',
    });
    expectError(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectError(
      await chunk(adminA, '00000000-0000-7000-8000-000000000000', 0, Buffer.alloc(1)),
      404,
      'UPLOAD_NOT_FOUND',
    );
  });

  it('expires an upload after a day and removes its bytes', async () => {
    const { adminA, cloud, dataDir } = context;
    const bytes = await releaseArchive('6.0.0');
    const upload = expectOk(await adminA('POST', uploads, { size: bytes.length }), 201);
    expectOk(await chunk(adminA, upload.id, 0, bytes.subarray(0, 1000)));
    expect(leftovers(dataDir)).toContain(`${upload.id}.part`);
    // A day on, access tokens have long expired: the service is asked directly.
    const service = cloud.services.releases;
    const tenantId = context.a.tenant.id;
    cloud.clock.advance(86_400_000 + 1000);
    try {
      await expect(
        service.uploads.append(tenantId, upload.id, 1000, Readable.from([bytes.subarray(1000)]), undefined),
      ).rejects.toMatchObject({ status: 410, code: 'UPLOAD_EXPIRED' });
      expect((await service.uploads.status(tenantId, upload.id)).state).toBe('expired');
      expect(await service.uploads.sweep()).toBeGreaterThanOrEqual(1);
      expect(leftovers(dataDir)).not.toContain(`${upload.id}.part`);
      expect((await service.uploads.status(tenantId, upload.id)).state).toBe('expired');
    } finally {
      cloud.clock.advance(-(86_400_000 + 1000));
    }
  });

  it('serves the artifact whole or by byte range, so a download resumes', async () => {
    const { adminA } = context;
    const bytes = await releaseArchive('7.0.0');
    const release = expectOk(await adminA('POST', '/v1/mdm/releases', bytes), 201);
    const url = `/v1/mdm/releases/${release.id}/artifact`;
    const whole = await adminA('GET', url);
    expect(whole.statusCode).toBe(200);
    expect(whole.headers).toMatchObject({
      etag: `"${sha256(bytes)}"`,
      'accept-ranges': 'bytes',
      'content-type': 'application/gzip',
      'content-length': String(bytes.length),
    });
    expect(whole.rawPayload.equals(bytes)).toBe(true);

    const half = Math.floor(bytes.length / 2);
    const first = await adminA('GET', url, undefined, { range: `bytes=0-${half - 1}` });
    expect(first.statusCode).toBe(206);
    expect(first.headers['content-range']).toBe(`bytes 0-${half - 1}/${bytes.length}`);
    const rest = await adminA('GET', url, undefined, {
      range: `bytes=${half}-`,
      'if-range': `"${sha256(bytes)}"`,
    });
    expect(rest.statusCode).toBe(206);
    expect(rest.headers['content-range']).toBe(`bytes ${half}-${bytes.length - 1}/${bytes.length}`);
    expect(Buffer.concat([first.rawPayload, rest.rawPayload]).equals(bytes)).toBe(true);

    const past = await adminA('GET', url, undefined, { range: `bytes=${bytes.length}-` });
    expectError(past, 416, 'RANGE_NOT_SATISFIABLE');
    expect(past.headers['content-range']).toBe(`bytes */${bytes.length}`);
    // A range of a copy the client no longer holds (another ETag) answers the whole artifact.
    const stale = await adminA('GET', url, undefined, { range: 'bytes=0-9', 'if-range': '"other"' });
    expect(stale.statusCode).toBe(200);
    expect((await adminA('GET', url, undefined, { 'if-none-match': `"${sha256(bytes)}"` })).statusCode).toBe(
      304,
    );
    const head = await adminA('HEAD', url);
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(bytes.length));
    expectError(await context.managerA('GET', url), 403, 'FORBIDDEN');
    expectError(await context.anonymous('GET', url), 401, 'MISSING_TOKEN');
  });

  it('signs a manifest whose URL downloads with its token alone, until it expires', async () => {
    const { adminA, anonymous, cloud, a } = context;
    const bytes = await releaseArchive('8.0.0');
    const release = expectOk(await adminA('POST', '/v1/mdm/releases', bytes), 201);
    const other = expectOk(await adminA('POST', '/v1/mdm/releases', await releaseArchive('8.0.1')), 201);
    const service = cloud.services.releases;
    const manifest = await service.signedManifest(a.tenant.id, release.id, { ttlSeconds: 600 });
    expect(manifest).toMatchObject({ version: '8.0.0', size: bytes.length, sha256: sha256(bytes) });
    const [firstKey] = expectOk(await adminA('GET', '/v1/mdm/update-keys'));
    expect(manifestProblem(manifest, firstKey.public_key)).toBeUndefined();
    expect(manifest.url.startsWith(`${PUBLIC_URL}/v1/mdm/releases/${release.id}/artifact?token=`)).toBe(true);

    const path = manifest.url.slice(PUBLIC_URL.length);
    const download = await anonymous('GET', path);
    expect(download.statusCode, download.body).toBe(200);
    expect(download.rawPayload.equals(bytes)).toBe(true);
    const resumed = await anonymous('GET', path, undefined, { range: 'bytes=100-' });
    expect(resumed.statusCode).toBe(206);
    expect(resumed.rawPayload.equals(bytes.subarray(100))).toBe(true);

    const token = new URL(manifest.url).searchParams.get('token')!;
    const [payload, mac] = token.split('.') as [string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, r: other.id })).toString('base64url');
    const flipped = `${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BB' : 'AA'}`;
    const refusals = [
      `/v1/mdm/releases/${other.id}/artifact?token=${token}`,
      `/v1/mdm/releases/${other.id}/artifact?token=${forged}.${mac}`,
      `${path.split('?')[0]}?token=${payload}.${flipped}`,
      `${path.split('?')[0]}?token=${payload}`,
      `${path.split('?')[0]}?token=${payload}.${mac}.${mac}`,
    ];
    for (const url of refusals) expect((await anonymous('GET', url)).statusCode, url).toBe(401);
    expectError(await anonymous('GET', refusals[0]!), 401, 'INVALID_DOWNLOAD_TOKEN');

    cloud.clock.advance(601_000);
    try {
      expectError(await anonymous('GET', path), 401, 'INVALID_DOWNLOAD_TOKEN');
    } finally {
      cloud.clock.advance(-601_000);
    }
    await expect(service.signedManifest(a.tenant.id, release.id, { ttlSeconds: 0 })).rejects.toThrow(
      RangeError,
    );
    const elsewhere = await service.signedManifest(a.tenant.id, release.id, {
      ttlSeconds: 60,
      baseUrl: 'https://proxy.test/api/',
    });
    expect(
      elsewhere.url.startsWith(`https://proxy.test/api/v1/mdm/releases/${release.id}/artifact?token=`),
    ).toBe(true);
  });

  it('retires a release: no new manifests, its bytes still downloadable, and again changes nothing', async () => {
    const { adminA, cloud, a } = context;
    const release = expectOk(await adminA('POST', '/v1/mdm/releases', await releaseArchive('9.0.0')), 201);
    const retired = expectOk(await adminA('POST', `/v1/mdm/releases/${release.id}/retire`));
    expect(retired).toMatchObject({ id: release.id, state: 'retired', retired_at: expect.any(String) });
    expect(expectOk(await adminA('POST', `/v1/mdm/releases/${release.id}/retire`))).toEqual(retired);
    await expect(
      cloud.services.releases.signedManifest(a.tenant.id, release.id, { ttlSeconds: 60 }),
    ).rejects.toMatchObject({ status: 409, code: 'RELEASE_RETIRED' });
    expect((await adminA('GET', `/v1/mdm/releases/${release.id}/artifact`)).statusCode).toBe(200);
    const listed = expectOk(await adminA('GET', '/v1/mdm/releases?state=retired'));
    expect(listed.map((item: { id: string }) => item.id)).toEqual([release.id]);
    expectError(await context.managerA('POST', `/v1/mdm/releases/${release.id}/retire`), 403, 'FORBIDDEN');
  });

  it('pages the list newest first', async () => {
    const { adminB } = context;
    const versions = ['10.0.0', '10.0.1', '10.0.2'];
    for (const version of versions)
      expectOk(await adminB('POST', '/v1/mdm/releases', await releaseArchive(version, 1000)), 201);
    const first = await adminB('GET', '/v1/mdm/releases?limit=2');
    const page = first.json();
    expect(page.data.map((item: { version: string }) => item.version).slice(0, 2)).toEqual([
      '10.0.2',
      '10.0.1',
    ]);
    const next = page.meta.pagination.next_cursor;
    expect(next).toEqual(expect.any(String));
    const second = expectOk(await adminB('GET', `/v1/mdm/releases?limit=2&cursor=${next}`));
    expect(second.map((item: { version: string }) => item.version)).toContain('10.0.0');
  });

  it('shows, downloads and changes no release or upload of another tenant', async () => {
    const { adminA, adminB, anonymous, cloud, a, b } = context;
    const bytes = await releaseArchive('11.0.0');
    const release = expectOk(await adminA('POST', '/v1/mdm/releases', bytes), 201);
    const upload = expectOk(await adminA('POST', uploads, { size: bytes.length }), 201);
    const id = release.id;
    expectError(await adminB('GET', `/v1/mdm/releases/${id}`), 404, 'RELEASE_NOT_FOUND');
    expectError(await adminB('GET', `/v1/mdm/releases/${id}/artifact`), 404, 'RELEASE_NOT_FOUND');
    expectError(await adminB('POST', `/v1/mdm/releases/${id}/retire`), 404, 'RELEASE_NOT_FOUND');
    expectError(await adminB('GET', `${uploads}/${upload.id}`), 404, 'UPLOAD_NOT_FOUND');
    expectError(await chunk(adminB, upload.id, 0, bytes), 404, 'UPLOAD_NOT_FOUND');
    const listedB = expectOk(await adminB('GET', '/v1/mdm/releases?limit=200'));
    expect(listedB.map((item: { id: string }) => item.id)).not.toContain(id);
    await expect(
      cloud.services.releases.signedManifest(b.tenant.id, id, { ttlSeconds: 60 }),
    ).rejects.toMatchObject({ status: 404, code: 'RELEASE_NOT_FOUND' });

    // B's own token opens B's release only, never A's by swapping the path.
    const own = expectOk(await adminB('POST', '/v1/mdm/releases', await releaseArchive('11.0.0')), 201);
    const manifestB = await cloud.services.releases.signedManifest(b.tenant.id, own.id, { ttlSeconds: 60 });
    const tokenB = new URL(manifestB.url).searchParams.get('token');
    expectError(
      await anonymous('GET', `/v1/mdm/releases/${id}/artifact?token=${tokenB}`),
      401,
      'INVALID_DOWNLOAD_TOKEN',
    );

    expect(expectOk(await adminA('GET', `/v1/mdm/releases/${id}`))).toEqual(release);
    expect(expectOk(await adminA('GET', `${uploads}/${upload.id}`)).offset).toBe(0);
    expect(a.tenant.id).not.toBe(b.tenant.id);
  });
});
