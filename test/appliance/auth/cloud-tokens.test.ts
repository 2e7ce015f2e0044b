import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  applianceAuthPlugin,
  applianceAuthRoutes,
  createCloudJwks,
  createStaffAuth,
  type FetchFunction,
  type StaffAuth,
} from '../../../appliance/auth/index.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createManualClock, type ManualClock } from '../../../shared/clock.ts';
import { conventionsPlugin } from '../../../shared/http/conventions.ts';
import { serverOptions } from '../../../shared/http/server-options.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';

const CLOUD_URL = 'http://cloud.test';

describe('cloud tokens on the appliance', () => {
  let cloud: TestCloud;
  let acmeId: string;
  let globexId: string;
  let adaId: string;
  let dir: string;
  let db: ApplianceDatabase;
  let clock: ManualClock;
  let app: FastifyInstance;
  let auth: StaffAuth;
  let online: boolean;
  let fetches: string[];

  // The appliance reaches the real cloud app in-process; `online = false` makes it unreachable.
  const fetchFromCloud: FetchFunction = async (url) => {
    fetches.push(url);
    if (!online) throw new TypeError('fetch failed');
    const response = await cloud.app.inject({ method: 'GET', url: new URL(url).pathname });
    return new Response(response.body, {
      status: response.statusCode,
      headers: { 'content-type': 'application/json' },
    });
  };
  const guarded = (token: string) => app.inject({ url: '/test/manager', headers: bearer(token) });
  const adaToken = async () =>
    (await loginTokens(cloud.app, { email: 'ada@acme.test', password: 'ada-password' })).access_token;

  beforeEach(async () => {
    cloud = await createTestCloud();
    acmeId = (await seedTenant(cloud.services, 'acme')).tenant.id;
    globexId = (await seedTenant(cloud.services, 'globex')).tenant.id;
    const ada = await cloud.services.tenancy.addUser(acmeId, {
      email: 'ada@acme.test',
      username: 'ada',
      password: 'ada-password',
      roles: ['manager'],
    });
    adaId = ada.id;
    await cloud.services.tenancy.addUser(globexId, {
      email: 'bob@globex.test',
      password: 'bob-password',
      roles: ['manager'],
    });

    online = true;
    fetches = [];
    dir = mkdtempSync(join(tmpdir(), 'appliance-cloud-auth-'));
    db = openApplianceDb(dir);
    clock = createManualClock(cloud.clock.now());
    const cloudJwks = createCloudJwks({ cloudUrl: CLOUD_URL, clock, fetch: fetchFromCloud });
    auth = createStaffAuth({
      db,
      tenantId: acmeId,
      locationId: null,
      hasher: createSecretHasher({ memoryCost: 1024, timeCost: 1 }),
      clock,
      newId,
      cloudJwks,
    });
    await auth.upsertStaff({
      id: adaId,
      email: 'ada@acme.test',
      displayName: 'Ada',
      roles: ['manager'],
      version: 1,
    });
    app = Fastify(serverOptions(false));
    await app.register(conventionsPlugin, { title: 'test', version: '1.0.0', description: 'test' });
    await app.register(applianceAuthPlugin, { auth });
    await app.register(applianceAuthRoutes, { prefix: '/v1/auth', auth });
    app.get('/test/manager', { onRequest: app.authenticate(['manager']) }, async (request) => ({
      auth: request.auth,
    }));
  });
  afterEach(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
    await cloud.close();
  });

  it('accepts a cloud token of its tenant’s active staff, fetching the JWKS once', async () => {
    const token = await adaToken();
    const response = await guarded(token);
    expect(response.statusCode).toBe(200);
    expect(response.json().auth).toMatchObject({ userId: adaId, tenantId: acmeId, roles: ['manager'] });
    expect((await app.inject({ url: '/v1/auth/me', headers: bearer(token) })).json().data.id).toBe(adaId);
    expect((await guarded(await adaToken())).statusCode).toBe(200);
    expect(fetches).toEqual([`${CLOUD_URL}/.well-known/jwks.json`]);
  });

  it('refuses a cloud token of another tenant, and one of staff it does not know', async () => {
    const { access_token } = await loginTokens(cloud.app, {
      email: 'bob@globex.test',
      password: 'bob-password',
    });
    const foreign = await guarded(access_token);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().error.code).toBe('TENANT_ACCESS_DENIED');

    await cloud.services.tenancy.addUser(acmeId, {
      email: 'cy@acme.test',
      password: 'cy-password',
      roles: ['manager'],
    });
    const unsynced = await loginTokens(cloud.app, { email: 'cy@acme.test', password: 'cy-password' });
    expect((await guarded(unsynced.access_token)).statusCode).toBe(403);

    await auth.upsertStaff({
      id: adaId,
      email: 'ada@acme.test',
      displayName: 'Ada',
      roles: ['manager'],
      status: 'disabled',
      version: 2,
    });
    expect((await guarded(await adaToken())).statusCode).toBe(403);
  });

  it('keeps verifying with the cached keys when the cloud is unreachable', async () => {
    expect((await guarded(await adaToken())).statusCode).toBe(200);
    online = false;
    const second = await adaToken();
    expect((await guarded(second)).statusCode).toBe(200);
    expect(fetches).toHaveLength(1);

    // A key the appliance has not seen: one failed look, then no more for 30 s.
    await cloud.services.identity.keys.rotate();
    const rotated = await adaToken();
    expect((await guarded(rotated)).statusCode).toBe(401);
    expect(fetches).toHaveLength(1);
    clock.advance(30_000);
    for (let i = 0; i < 3; i++) {
      const refused = await guarded(rotated);
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.code).toBe('INVALID_TOKEN');
    }
    expect(fetches).toHaveLength(2);
    expect((await guarded(second)).statusCode).toBe(200);

    online = true;
    expect((await guarded(rotated)).statusCode).toBe(401);
    clock.advance(30_000);
    expect((await guarded(rotated)).statusCode).toBe(200);
    expect(fetches).toHaveLength(3);
  });

  it('does not end a cloud session from the appliance', async () => {
    const response = await app.inject({
      method: 'DELETE',
      url: '/v1/auth/session',
      headers: bearer(await adaToken()),
    });
    expect(response.statusCode).toBe(409);
    expect(response.json().error.code).toBe('CLOUD_SESSION');
  });
});
