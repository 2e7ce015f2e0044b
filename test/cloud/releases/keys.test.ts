import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { create } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReleases, DEFAULT_RELEASE_OPTIONS } from '../../../cloud/releases/index.ts';
import { manifestProblem, trustedKeys } from '../../../shared/devices/update-manifest.ts';
import { newId } from '../../../shared/ids.ts';
import { bearer, createTestCloud, seedTenant, signedInUser, type TestCloud } from '../../support/cloud.ts';
import { backends, openTestStore } from '../../support/stores.ts';
import { expectError, expectOk } from '../devices/device-client.ts';

const PUBLIC_URL = 'http://cloud.test';

/** A small real release archive: a release.json and a file. */
async function releaseArchive(version: string): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), 'release-src-'));
  try {
    writeFileSync(join(dir, 'release.json'), JSON.stringify({ format: 1, version }));
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist/appliance.mjs'), randomBytes(2000));
    const chunks: Buffer[] = [];
    for await (const chunk of create({ gzip: true, cwd: dir, portable: true }, ['release.json', 'dist']))
      chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const activeCount = async (cloud: Pick<TestCloud, 'store'>) =>
  Number(
    (
      await cloud.store.db
        .withTables<{ update_keys: { key_id: string; state: string } }>()
        .selectFrom('update_keys')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('state', '=', 'active')
        .executeTakeFirstOrThrow()
    ).n,
  );

describe.each(backends)('update keys on %s', (backend) => {
  let cloud: TestCloud;
  let dataDir: string;
  let tenantId: string;
  const tokens = { admin: '', manager: '', platform: '' };
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'cloud-keys-'));
    cloud = await createTestCloud(backend, { config: { rateLimit: false, dataDir, publicUrl: PUBLIC_URL } });
    const seeded = await seedTenant(cloud.services, 'alpha');
    tenantId = seeded.tenant.id;
    tokens.admin = (await signedInUser(cloud, tenantId, 'admin@alpha.test', ['tenant_admin'])).token;
    tokens.manager = (await signedInUser(cloud, tenantId, 'manager@alpha.test', ['manager'])).token;
    tokens.platform = (await signedInUser(cloud, tenantId, 'ops@alpha.test', ['platform_admin'])).token;
  });
  afterAll(async () => {
    await cloud.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const call = (token: string, method: 'GET' | 'POST', url: string, payload?: Buffer) =>
    cloud.app.inject({
      method,
      url,
      headers: { ...bearer(token), ...(payload ? { 'content-type': 'application/gzip' } : {}) },
      ...(payload ? { payload } : {}),
    });

  it('has one active key from the first start, its public half for any admin', async () => {
    const keys = expectOk(await call(tokens.admin, 'GET', '/v1/mdm/update-keys'));
    expect(keys).toEqual([
      {
        key_id: expect.stringMatching(/^[0-9a-f]{16}$/),
        public_key: expect.stringContaining('BEGIN PUBLIC KEY'),
        state: 'active',
        active: true,
        endorsed_by: null,
        created_at: expect.any(String),
        retired_at: null,
      },
    ]);
    expect(JSON.stringify(keys)).not.toContain('PRIVATE');
    expect(await activeCount(cloud)).toBe(1);
    expectError(await call(tokens.manager, 'GET', '/v1/mdm/update-keys'), 403, 'FORBIDDEN');
  });

  it('makes exactly one first key when replicas start at once', async () => {
    const store = await openTestStore(backend);
    try {
      const replica = () =>
        createReleases({
          store,
          clock: cloud.clock,
          newId,
          log: pino({ level: 'silent' }),
          options: DEFAULT_RELEASE_OPTIONS,
          dir: join(dataDir, 'replicas'),
          publicUrl: PUBLIC_URL,
        });
      const replicas = Array.from({ length: 4 }, replica);
      const made = await Promise.all(replicas.map((service) => service.keys.ensureActive()));
      expect(new Set(made.map((key) => key.key_id)).size).toBe(1);
      expect(await activeCount({ store })).toBe(1);
      // Two rotations racing: one wins, the other is told so; one key stays active.
      const rotations = await Promise.allSettled(
        replicas.slice(0, 2).map((service) => service.keys.rotate()),
      );
      expect(rotations.some((outcome) => outcome.status === 'fulfilled')).toBe(true);
      for (const outcome of rotations)
        if (outcome.status === 'rejected')
          expect(outcome.reason).toMatchObject({ code: 'ROTATION_CONFLICT' });
      expect(await activeCount({ store })).toBe(1);
    } finally {
      await store.destroy();
    }
  });

  it('rotates for the platform’s operators only; manifests after rotation verify with the first key', async () => {
    const releases = cloud.services.releases;
    const release = expectOk(
      await call(tokens.admin, 'POST', '/v1/mdm/releases', await releaseArchive('1.0.0')),
      201,
    );
    const [first] = expectOk(await call(tokens.admin, 'GET', '/v1/mdm/update-keys'));
    const before = await releases.signedManifest(tenantId, release.id, { ttlSeconds: 3600 });
    expect(before.key_id).toBe(first.key_id);
    expect(before.endorsements).toBeUndefined();

    expectError(await call(tokens.admin, 'POST', '/v1/mdm/update-keys/rotate'), 403, 'FORBIDDEN');
    const second = expectOk(await call(tokens.platform, 'POST', '/v1/mdm/update-keys/rotate'), 201);
    expect(second).toMatchObject({ state: 'active', active: true, endorsed_by: first.key_id });
    const third = expectOk(await call(tokens.platform, 'POST', '/v1/mdm/update-keys/rotate'), 201);
    expect(third.endorsed_by).toBe(second.key_id);
    const keys = expectOk(await call(tokens.admin, 'GET', '/v1/mdm/update-keys'));
    expect(keys.map((key: { key_id: string; active: boolean }) => [key.key_id, key.active])).toEqual([
      [first.key_id, false],
      [second.key_id, false],
      [third.key_id, true],
    ]);
    expect(keys[0]).toMatchObject({ state: 'retired', retired_at: expect.any(String) });
    expect(await activeCount(cloud)).toBe(1);

    const after = await releases.signedManifest(tenantId, release.id, { ttlSeconds: 3600 });
    expect(after.key_id).toBe(third.key_id);
    expect(after.endorsements?.map((endorsement) => endorsement.key_id)).toEqual([
      second.key_id,
      third.key_id,
    ]);
    // An appliance set up with only the first key follows the chain, and remembers what it learned.
    const trusted = trustedKeys([first.public_key]);
    expect(manifestProblem(after, trusted)).toBeUndefined();
    expect([...trusted.keys()]).toEqual([first.key_id, second.key_id, third.key_id]);
    expect(manifestProblem(after, second.public_key)).toBeUndefined();
    expect(manifestProblem(after, third.public_key)).toBeUndefined();
    // Without its endorsements the manifest means nothing to an appliance that knows only the first key.
    expect(manifestProblem({ ...after, endorsements: [] }, first.public_key)).toMatch(/does not trust/);
    expect(manifestProblem({ ...after, version: '6.6.6' }, first.public_key)).toMatch(/signature/);
    // The manifest signed before rotation still downloads: its token's key is retired, not gone.
    const path = before.url.slice(PUBLIC_URL.length);
    expect((await cloud.app.inject({ method: 'GET', url: path })).statusCode).toBe(200);
  });
});
