import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { deviceKey, expectError, expectOk } from '../devices/device-client.ts';

const FIXTURE = join(import.meta.dirname, '../../fixtures/vision/rectangles');
const onnx = readFileSync(`${FIXTURE}.onnx`);
const fixtureManifest = JSON.parse(readFileSync(`${FIXTURE}.json`, 'utf8')) as Record<string, unknown>;
const PASSWORD = 'correct-horse-battery';
const MAX_MB = 3;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const manifestFor = (
  bytes: Uint8Array,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> => ({
  ...fixtureManifest,
  sha256: sha256(bytes),
  ...overrides,
});

type Headers = Record<string, string>;

/** Two tenants with an admin each, A with a manager and a staff member; uploads are capped at MAX_MB. */
async function modelCloud(backend: 'sqlite' | 'pg') {
  const cloud = await createTestCloud(backend, {
    config: { rateLimit: false, visionModels: { maxBytes: MAX_MB * 1024 * 1024 } },
  });
  const a = await seedTenant(cloud.services, 'alpha');
  const b = await seedTenant(cloud.services, 'bravo');
  const as = async (tenantId: string, email: string, roles: string[]) => {
    await cloud.services.tenancy.addUser(tenantId, { email, password: PASSWORD, roles });
    const { access_token } = await loginTokens(cloud.app, { email, password: PASSWORD });
    return caller(cloud, bearer(access_token));
  };
  return {
    cloud,
    a,
    b,
    adminA: await as(a.tenant.id, 'admin@alpha.test', ['tenant_admin']),
    managerA: await as(a.tenant.id, 'manager@alpha.test', ['manager']),
    staffA: await as(a.tenant.id, 'staff@alpha.test', ['staff']),
    adminB: await as(b.tenant.id, 'admin@bravo.test', ['tenant_admin']),
    anonymous: caller(cloud, {}),
  };
}

type Caller = ReturnType<typeof caller>;
function caller(cloud: TestCloud, auth: Headers) {
  return (method: 'GET' | 'POST' | 'PUT' | 'HEAD', url: string, payload?: unknown, headers: Headers = {}) =>
    cloud.app.inject({
      method,
      url,
      headers: { ...auth, ...headers },
      ...(payload === undefined
        ? {}
        : Buffer.isBuffer(payload)
          ? { payload, headers: { ...auth, 'content-type': 'application/octet-stream', ...headers } }
          : { payload: payload as Record<string, unknown> }),
    });
}

/** An appliance of the tenant's store enrolled through the registry: its id and its sync credential. */
async function enrolledAppliance(cloud: TestCloud, tenantId: string, locationId: string, serial: string) {
  const device = await cloud.services.devices.register(tenantId, {
    location_id: locationId,
    device_type: 'appliance',
    name: 'Store appliance',
    serial_number: serial,
  });
  const issued = await cloud.services.devices.enrol({
    enrollment_token: device.enrollment_token,
    csr: (await deviceKey()).csr,
  });
  return { id: device.id, credential: issued.sync_credential! };
}

const versions = (model = 'rectangles') => `/v1/vision/models/${model}/versions`;
const fileOf = (version: string, model = 'rectangles') => `${versions(model)}/${version}/file`;

async function publish(admin: Caller, bytes: Uint8Array, version: string, deploy = false) {
  expectOk(await admin('POST', versions(), manifestFor(bytes, { version })), 201);
  expectOk(await admin('PUT', fileOf(version), Buffer.from(bytes)));
  if (deploy) expectOk(await admin('POST', `${versions()}/${version}/deploy`));
}

const chunkCount = async (cloud: TestCloud) =>
  Number(
    (
      await cloud.store.db
        .selectFrom('vision_model_chunks')
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe.each(backends)('vision model versions on %s', (backend) => {
  let context: Awaited<ReturnType<typeof modelCloud>>;
  beforeAll(async () => {
    context = await modelCloud(backend);
  });
  afterAll(() => context.cloud.close());

  it('registers a version by its manifest, takes its bytes, marks it for deployment and serves it', async () => {
    const { adminA, managerA } = context;
    const registered = expectOk(await adminA('POST', versions(), manifestFor(onnx)), 201);
    expect(registered).toMatchObject({
      model_id: 'rectangles',
      version: '1.0.0',
      state: 'awaiting_file',
      sha256: sha256(onnx),
      size: null,
      deployed: false,
      // Extra manifest fields (training notes, input format) are kept as given.
      manifest: { training: fixtureManifest.training, input: { size: 128, format: 'rgb' } },
    });
    // The same manifest again is no conflict: a retried registration.
    expectOk(await adminA('POST', versions(), manifestFor(onnx)), 200);
    expectError(await adminA('POST', `${versions()}/1.0.0/deploy`), 409, 'MODEL_FILE_MISSING');
    expectError(await adminA('GET', fileOf('1.0.0')), 409, 'MODEL_FILE_MISSING');

    const uploaded = expectOk(await adminA('PUT', fileOf('1.0.0'), onnx));
    expect(uploaded).toMatchObject({ state: 'ready', size: onnx.length, uploaded_at: expect.any(String) });
    const model = expectOk(await adminA('POST', `${versions()}/1.0.0/deploy`));
    expect(model).toMatchObject({
      model_id: 'rectangles',
      deploy_version: '1.0.0',
      versions: [{ version: '1.0.0', deployed: true, state: 'ready' }],
    });
    expect(expectOk(await managerA('GET', '/v1/vision/models'))).toEqual([model]);
    expect(expectOk(await managerA('GET', `${versions()}/1.0.0`))).toMatchObject({ deployed: true });

    const download = await adminA('GET', fileOf('1.0.0'));
    expect(download.statusCode).toBe(200);
    expect(download.headers).toMatchObject({
      etag: `"${sha256(onnx)}"`,
      'content-length': String(onnx.length),
      'content-type': 'application/octet-stream',
      'accept-ranges': 'bytes',
    });
    expect(sha256(download.rawPayload)).toBe(sha256(onnx));
    const cached = await adminA('GET', fileOf('1.0.0'), undefined, { 'if-none-match': `"${sha256(onnx)}"` });
    expect(cached.statusCode).toBe(304);
    const head = await adminA('HEAD', fileOf('1.0.0'));
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(onnx.length));
  });

  it('streams a model of several pieces whole and by ranges, across piece boundaries', async () => {
    const { adminA } = context;
    const big = randomBytes(2.5 * 1024 * 1024);
    await publish(adminA, big, '2.0.0-big');
    const whole = await adminA('GET', fileOf('2.0.0-big'));
    expect(Buffer.compare(whole.rawPayload, big)).toBe(0);

    const mib = 1024 * 1024;
    const across = await adminA('GET', fileOf('2.0.0-big'), undefined, {
      range: `bytes=${mib - 10}-${2 * mib + 9}`,
    });
    expect(across.statusCode).toBe(206);
    expect(across.headers['content-range']).toBe(`bytes ${mib - 10}-${2 * mib + 9}/${big.length}`);
    expect(Buffer.compare(across.rawPayload, big.subarray(mib - 10, 2 * mib + 10))).toBe(0);
    const tail = await adminA('GET', fileOf('2.0.0-big'), undefined, { range: 'bytes=-100' });
    expect(Buffer.compare(tail.rawPayload, big.subarray(big.length - 100))).toBe(0);
    const resumed = await adminA('GET', fileOf('2.0.0-big'), undefined, {
      range: `bytes=${big.length - 5}-`,
    });
    expect(resumed.headers['content-length']).toBe('5');
    expectError(
      await adminA('GET', fileOf('2.0.0-big'), undefined, { range: `bytes=${big.length}-` }),
      416,
      'RANGE_NOT_SATISFIABLE',
    );
    // A range for another version of the file (If-Range not its ETag) gets the whole file.
    const stale = await adminA('GET', fileOf('2.0.0-big'), undefined, {
      range: 'bytes=0-9',
      'if-range': '"old"',
    });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.length).toBe(big.length);
  });

  it('refuses bytes that are not the manifest’s, and keeps nothing of them', async () => {
    const { adminA, cloud } = context;
    expectOk(await adminA('POST', versions(), manifestFor(onnx, { version: '3.0.0' })), 201);
    const before = await chunkCount(cloud);
    const corrupt = Buffer.from(onnx);
    corrupt[1000] = (corrupt[1000]! + 1) % 256;
    const refused = expectError(await adminA('PUT', fileOf('3.0.0'), corrupt), 400, 'MODEL_DIGEST_MISMATCH');
    expect(refused.details[0]!.message).toContain(sha256(onnx));
    expect(await chunkCount(cloud)).toBe(before);
    expect(expectOk(await adminA('GET', `${versions()}/3.0.0`))).toMatchObject({ state: 'awaiting_file' });

    expectError(await adminA('PUT', fileOf('3.0.0'), Buffer.alloc(0)), 400, 'EMPTY_UPLOAD');
    const json = await context.cloud.app.inject({
      method: 'PUT',
      url: fileOf('3.0.0'),
      headers: await adminHeaders(context.cloud, 'admin@alpha.test'),
      payload: { bytes: 'nope' },
    });
    expectError(json, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const tooBig = randomBytes(MAX_MB * 1024 * 1024 + 1);
    expectOk(await adminA('POST', versions(), manifestFor(tooBig, { version: '3.1.0' })), 201);
    expectError(await adminA('PUT', fileOf('3.1.0'), tooBig), 413, 'MODEL_TOO_LARGE');
    expect(await chunkCount(cloud)).toBe(before);

    // The right bytes are then taken; the same again changes nothing.
    expectOk(await adminA('PUT', fileOf('3.0.0'), onnx));
    const settled = await chunkCount(cloud);
    expectOk(await adminA('PUT', fileOf('3.0.0'), onnx));
    expect(await chunkCount(cloud)).toBe(settled);
  });

  it('checks manifests and names', async () => {
    const { adminA } = context;
    const mismatch = expectError(
      await adminA('POST', versions('vehicles'), manifestFor(onnx, { version: '9.0.0' })),
      400,
      'INVALID_REQUEST',
    );
    expect(mismatch.details).toEqual([{ field: 'body.name', message: expect.stringContaining('vehicles') }]);
    const { classes: _classes, ...noClasses } = manifestFor(onnx, { version: '9.0.1' });
    expect(
      expectError(await adminA('POST', versions(), noClasses), 400, 'INVALID_REQUEST').details,
    ).toContainEqual({ field: 'body.classes', message: 'is required' });
    expectError(
      await adminA('POST', versions(), manifestFor(onnx, { version: '../../etc' })),
      400,
      'INVALID_REQUEST',
    );
    expectError(
      await adminA('POST', versions(), manifestFor(onnx, { sha256: 'ABC' })),
      400,
      'INVALID_REQUEST',
    );
    expectError(await adminA('GET', '/v1/vision/models/Bad%20Name'), 400, 'INVALID_REQUEST');
    // Another manifest under a version that exists: its bytes never change.
    expectError(
      await adminA('POST', versions(), manifestFor(randomBytes(10), { version: '1.0.0' })),
      409,
      'MODEL_VERSION_EXISTS',
    );
    expectError(await adminA('GET', '/v1/vision/models/nothing'), 404, 'MODEL_NOT_FOUND');
    expectError(await adminA('GET', `${versions()}/7.7.7`), 404, 'MODEL_VERSION_NOT_FOUND');
    expectError(await adminA('PUT', fileOf('7.7.7'), onnx), 404, 'MODEL_VERSION_NOT_FOUND');
  });

  it('lets administrators write, managers read, and nobody else in', async () => {
    const { managerA, staffA, anonymous } = context;
    const manifest = manifestFor(onnx, { version: '4.0.0' });
    expectError(await managerA('POST', versions(), manifest), 403, 'FORBIDDEN');
    expectError(await managerA('PUT', fileOf('1.0.0'), onnx), 403, 'FORBIDDEN');
    expectError(await managerA('POST', `${versions()}/1.0.0/deploy`), 403, 'FORBIDDEN');
    expectError(await managerA('GET', fileOf('1.0.0')), 403, 'FORBIDDEN');
    expectError(await staffA('GET', '/v1/vision/models'), 403, 'FORBIDDEN');
    expectError(await anonymous('GET', '/v1/vision/models'), 401, 'MISSING_TOKEN');
    expectError(await anonymous('GET', fileOf('1.0.0')), 401, 'MISSING_TOKEN');
  });

  it('serves a file to an appliance of the tenant with its credential, and to no other', async () => {
    const { cloud, a, b } = context;
    const mine = await enrolledAppliance(cloud, a.tenant.id, a.location.id, 'APL-A');
    const theirs = await enrolledAppliance(cloud, b.tenant.id, b.location.id, 'APL-B');
    const asAppliance = (credential: string) => caller(cloud, { authorization: `Appliance ${credential}` });
    const download = await asAppliance(mine.credential)('GET', fileOf('1.0.0'));
    expect(download.statusCode, download.body).toBe(200);
    expect(sha256(download.rawPayload)).toBe(sha256(onnx));
    expectError(await asAppliance(theirs.credential)('GET', fileOf('1.0.0')), 404, 'MODEL_NOT_FOUND');
    expectError(
      await asAppliance(`${mine.credential}x`)('GET', fileOf('1.0.0')),
      401,
      'APPLIANCE_UNAUTHORIZED',
    );
    // The credential opens the download only, nothing an administrator does.
    expectError(await asAppliance(mine.credential)('GET', '/v1/vision/models'), 401, 'INVALID_TOKEN');
  });

  it('keeps every tenant’s models to itself', async () => {
    const { adminB } = context;
    expect(expectOk(await adminB('GET', '/v1/vision/models'))).toEqual([]);
    expectError(await adminB('GET', '/v1/vision/models/rectangles'), 404, 'MODEL_NOT_FOUND');
    expectError(await adminB('GET', `${versions()}/1.0.0`), 404, 'MODEL_NOT_FOUND');
    expectError(await adminB('GET', fileOf('1.0.0')), 404, 'MODEL_NOT_FOUND');
    expectError(await adminB('PUT', fileOf('1.0.0'), onnx), 404, 'MODEL_NOT_FOUND');
    expectError(await adminB('POST', `${versions()}/1.0.0/deploy`), 404, 'MODEL_NOT_FOUND');
    // B's own model of the same name is B's alone.
    await publish(adminB, onnx, '1.0.0');
    expect(expectOk(await adminB('GET', '/v1/vision/models/rectangles'))).toMatchObject({
      deploy_version: null,
      versions: [{ version: '1.0.0' }],
    });
    expect(expectOk(await context.adminA('GET', '/v1/vision/models/rectangles'))).toMatchObject({
      deploy_version: '1.0.0',
    });
  });

  it('documents the routes', async () => {
    const spec = (await context.cloud.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const paths = Object.keys(spec.paths as Record<string, unknown>);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/v1/vision/models',
        '/v1/vision/models/{model_id}/versions',
        '/v1/vision/models/{model_id}/versions/{version}/file',
        '/v1/vision/edge/{edge_id}/models/sync',
        '/v1/vision/edge/{edge_id}/models/sync/{command_id}',
      ]),
    );
    const upload = spec.paths['/v1/vision/models/{model_id}/versions/{version}/file'].put;
    expect(Object.keys(upload.requestBody.content)).toEqual(['application/octet-stream']);
  });
});

async function adminHeaders(cloud: TestCloud, email: string): Promise<Headers> {
  const { access_token } = await loginTokens(cloud.app, { email, password: PASSWORD });
  return bearer(access_token);
}
