import { createPublicKey, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  applianceAuthPlugin,
  applianceAuthRoutes,
  applianceJwksRoutes,
  createStaffAuth,
  type StaffAuth,
} from '../../../appliance/auth/index.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createManualClock, type ManualClock } from '../../../shared/clock.ts';
import { conventionsPlugin } from '../../../shared/http/conventions.ts';
import { serverOptions } from '../../../shared/http/server-options.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const OTHER_TENANT = '01900000-0000-7000-8000-0000000000b2';
const LOCATION = '01900000-0000-7000-8000-0000000000c3';
const ADA = '01900000-0000-7000-8000-000000000001';
const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function buildAuthApp(db: ApplianceDatabase, clock: ManualClock) {
  const auth = createStaffAuth({ db, tenantId: TENANT, locationId: LOCATION, hasher, clock, newId });
  const app = Fastify(serverOptions(false));
  await app.register(conventionsPlugin, { title: 'test', version: '1.0.0', description: 'test' });
  await app.register(applianceAuthPlugin, { auth });
  await app.register(applianceAuthRoutes, { prefix: '/v1/auth', auth });
  await app.register(applianceJwksRoutes, { auth });
  app.get('/test/manager', { onRequest: app.authenticate(['manager']) }, async (request) => ({
    auth: request.auth,
  }));
  return { app, auth };
}

describe('appliance PIN login and sessions', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let clock: ManualClock;
  let app: Awaited<ReturnType<typeof buildAuthApp>>['app'];
  let auth: StaffAuth;

  const pinLogin = (payload: Record<string, unknown>, remoteAddress = '10.0.0.5') =>
    app.inject({ method: 'POST', url: '/v1/auth/login/pin', payload, remoteAddress });
  const tokenFor = async (payload: Record<string, unknown>) => {
    const response = await pinLogin(payload);
    expect(response.statusCode).toBe(200);
    return response.json().status.access_token as string;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'appliance-auth-'));
    db = openApplianceDb(dir);
    clock = createManualClock('2026-03-01T08:00:00.000Z');
    ({ app, auth } = await buildAuthApp(db, clock));
    await auth.upsertStaff({
      id: ADA,
      email: 'Ada@Acme.test',
      username: 'ada',
      displayName: 'Ada',
      roles: ['manager'],
      pin: '123456',
      version: 1,
    });
  });
  afterEach(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('logs in by username and PIN with a 12-hour token carrying exactly the cloud’s claims', async () => {
    const response = await pinLogin({ identifier: 'ada', pin: '123456' });
    expect(response.statusCode).toBe(200);
    const { status, meta } = response.json();
    expect(meta.request_id).toBe(response.headers['x-request-id']);
    expect(status).toMatchObject({ type: 'success', token_type: 'Bearer', expires_in: 12 * 3600 });
    expect(status.user).toEqual({ id: ADA, tenant_id: TENANT, email: 'ada@acme.test', roles: ['manager'] });
    const [header, payload] = status.access_token.split('.').slice(0, 2).map(decode);
    expect(Object.keys(payload).sort()).toEqual([
      'email',
      'exp',
      'iat',
      'roles',
      'session_id',
      'sub',
      'tenant_id',
    ]);
    expect(payload).toMatchObject({
      sub: ADA,
      tenant_id: TENANT,
      email: 'ada@acme.test',
      roles: ['manager'],
    });
    expect(payload.exp - payload.iat).toBe(12 * 3600);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: auth.jwks().keys[0]?.kid });

    const guarded = await app.inject({ url: '/test/manager', headers: bearer(status.access_token) });
    expect(guarded.statusCode).toBe(200);
    expect(guarded.json().auth).toEqual({
      userId: ADA,
      tenantId: TENANT,
      email: 'ada@acme.test',
      roles: ['manager'],
      sessionId: payload.session_id,
      locationId: LOCATION,
    });
    const me = await app.inject({ url: '/v1/auth/me', headers: bearer(status.access_token) });
    expect(me.json().data).toEqual({
      id: ADA,
      tenant_id: TENANT,
      email: 'ada@acme.test',
      username: 'ada',
      display_name: 'Ada',
      roles: ['manager'],
      status: 'active',
    });
  });

  it('answers a wrong PIN, an unknown identifier and another tenant’s staff alike', async () => {
    await auth.upsertStaff({
      id: newId(),
      tenantId: OTHER_TENANT,
      email: 'eve@globex.test',
      username: 'eve',
      displayName: 'Eve',
      roles: ['manager'],
      pin: '654321',
      version: 1,
    });
    const answers = [
      await pinLogin({ identifier: 'ada', pin: '000000' }),
      await pinLogin({ identifier: 'nobody', pin: '123456' }),
      await pinLogin({ identifier: 'nobody@acme.test', pin: '123456' }),
      await pinLogin({ identifier: 'eve', pin: '654321' }),
    ];
    for (const response of answers) {
      expect(response.statusCode).toBe(401);
      expect(response.json().error).toEqual({
        code: 'INVALID_CREDENTIALS',
        message: 'The email, username, password or PIN is incorrect',
        details: [],
      });
    }
  });

  it('refuses a disabled staff member, saying so only to the right PIN', async () => {
    await auth.upsertStaff({
      id: ADA,
      email: 'ada@acme.test',
      username: 'ada',
      displayName: 'Ada',
      roles: ['manager'],
      pin: '123456',
      status: 'disabled',
      version: 2,
    });
    const right = await pinLogin({ identifier: 'ada', pin: '123456' });
    expect(right.statusCode).toBe(403);
    expect(right.json().error.code).toBe('ACCOUNT_DISABLED');
    expect((await pinLogin({ identifier: 'ada', pin: '999999' })).json().error.code).toBe(
      'INVALID_CREDENTIALS',
    );
  });

  it('ends the sessions of a staff member disabled by a later sync', async () => {
    const token = await tokenFor({ identifier: 'ada', pin: '123456' });
    const older = { id: ADA, email: 'ada@acme.test', displayName: 'Ada', roles: ['manager'] };
    expect(await auth.upsertStaff({ ...older, status: 'disabled', version: 0 })).toBe(false);
    expect((await app.inject({ url: '/test/manager', headers: bearer(token) })).statusCode).toBe(200);
    expect(await auth.upsertStaff({ ...older, status: 'disabled', version: 3 })).toBe(true);
    const refused = await app.inject({ url: '/test/manager', headers: bearer(token) });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().error.code).toBe('SESSION_ENDED');
  });

  it('refuses a 5-digit PIN as an invalid request naming body.pin', async () => {
    const response = await pinLogin({ identifier: 'ada', pin: '12345' });
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: [{ field: 'body.pin', message: expect.any(String) }],
    });
    const missing = await pinLogin({ identifier: 'ada' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error.details).toEqual([
      { field: 'body.pin', message: 'is required (or its alias code)' },
    ]);
  });

  it('accepts the aliases email and code, and refuses them when they disagree', async () => {
    const response = await pinLogin({ email: 'ADA@acme.test', code: '123456' });
    expect(response.statusCode).toBe(200);
    expect(response.json().status.user.id).toBe(ADA);
    const clash = await pinLogin({ identifier: 'ada', email: 'bob', pin: '123456' });
    expect(clash.statusCode).toBe(400);
    expect(clash.json().error.details).toEqual([
      { field: 'body.email', message: 'differs from identifier; send one' },
    ]);
    const unknownField = await pinLogin({ identifier: 'ada', pin: '123456', password: 'x' });
    expect(unknownField.statusCode).toBe(400);
  });

  it('makes the account wait after three failures, then locks it after ten', async () => {
    const attempt = (pin: string) => pinLogin({ identifier: 'ada', pin });
    for (let i = 0; i < 4; i++) expect((await attempt('000000')).statusCode).toBe(401);
    const waiting = await attempt('123456');
    expect(waiting.statusCode).toBe(429);
    expect(waiting.json().error.code).toBe('TOO_MANY_ATTEMPTS');
    expect(Number(waiting.headers['retry-after'])).toBeGreaterThanOrEqual(1);

    for (let failures = 5; failures <= 10; failures++) {
      clock.advance(61_000);
      expect((await attempt('000000')).statusCode).toBe(401);
    }
    clock.advance(61_000);
    const locked = await attempt('123456');
    expect(locked.statusCode).toBe(423);
    expect(locked.json().error.code).toBe('ACCOUNT_LOCKED');
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(800);

    clock.advance(15 * 60_000);
    expect((await attempt('123456')).statusCode).toBe(200);
    expect((await attempt('000000')).statusCode).toBe(401);
    expect((await attempt('123456')).statusCode).toBe(200);
  });

  it('ends the session on DELETE /v1/auth/session; the token is refused after it', async () => {
    const token = await tokenFor({ identifier: 'ada', pin: '123456' });
    const ended = await app.inject({ method: 'DELETE', url: '/v1/auth/session', headers: bearer(token) });
    expect(ended.statusCode).toBe(200);
    expect(ended.json().data).toMatchObject({
      user_id: ADA,
      tenant_id: TENANT,
      status: 'ended',
      location_id: LOCATION,
      ended_at: clock.now().toISOString(),
    });
    for (const url of ['/v1/auth/me', '/test/manager']) {
      const refused = await app.inject({ url, headers: bearer(token) });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().error.code).toBe('SESSION_ENDED');
    }
    const again = await app.inject({ method: 'DELETE', url: '/v1/auth/session', headers: bearer(token) });
    expect(again.json().error.code).toBe('SESSION_ENDED');
  });

  it('refuses a token once its shift is over', async () => {
    const token = await tokenFor({ identifier: 'ada', pin: '123456' });
    clock.advance(12 * 3600_000 - 1000);
    expect((await app.inject({ url: '/test/manager', headers: bearer(token) })).statusCode).toBe(200);
    clock.advance(2000);
    const expired = await app.inject({ url: '/test/manager', headers: bearer(token) });
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('TOKEN_EXPIRED');
    expect(expired.headers['www-authenticate']).toBe('Bearer');
  });

  it('answers a missing or malformed token with 401 and a wrong role with 403', async () => {
    const missing = await app.inject({ url: '/test/manager' });
    expect(missing.statusCode).toBe(401);
    expect(missing.json().error.code).toBe('MISSING_TOKEN');
    for (const authorization of ['Bearer not.a.jwt', 'Basic abc', 'Bearer']) {
      const bad = await app.inject({ url: '/test/manager', headers: { authorization } });
      expect(bad.statusCode).toBe(401);
      expect(bad.json().error.code).toBe('INVALID_TOKEN');
    }
    await auth.upsertStaff({
      id: newId(),
      email: 'cook@acme.test',
      username: 'cook',
      displayName: 'Cook',
      roles: ['staff'],
      pin: '111111',
      version: 1,
    });
    const token = await tokenFor({ identifier: 'cook', pin: '111111' });
    const forbidden = await app.inject({ url: '/test/manager', headers: bearer(token) });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().error.code).toBe('FORBIDDEN');
    expect((await app.inject({ url: '/v1/auth/me', headers: bearer(token) })).statusCode).toBe(200);
  });

  it('publishes a JWKS that verifies its tokens with node:crypto alone, across a restart', async () => {
    const token = await tokenFor({ identifier: 'ada', pin: '123456' });
    const jwks = (await app.inject({ url: '/.well-known/jwks.json' })).json();
    expect(jwks.keys).toHaveLength(1);
    const [headerPart, payloadPart, signaturePart] = token.split('.') as [string, string, string];
    const jwk = jwks.keys.find((key: { kid: string }) => key.kid === decode(headerPart).kid);
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    const key = createPublicKey({ key: { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }, format: 'jwk' });
    const signed = Buffer.from(`${headerPart}.${payloadPart}`);
    const signature = Buffer.from(signaturePart, 'base64url');
    expect(verify('sha256', signed, { key, dsaEncoding: 'ieee-p1363' }, signature)).toBe(true);

    await app.close();
    ({ app, auth } = await buildAuthApp(db, clock));
    expect(auth.jwks().keys[0]?.kid).toBe(jwk.kid);
    expect((await app.inject({ url: '/test/manager', headers: bearer(token) })).statusCode).toBe(200);
  });

  it('refuses a token signed by another appliance’s key', async () => {
    const otherDir = mkdtempSync(join(tmpdir(), 'appliance-auth-'));
    const otherDb = openApplianceDb(otherDir);
    const other = await buildAuthApp(otherDb, clock);
    try {
      await other.auth.upsertStaff({
        id: ADA,
        email: 'ada@acme.test',
        username: 'ada',
        displayName: 'Ada',
        roles: ['manager'],
        pin: '123456',
        version: 1,
      });
      const login = await other.app.inject({
        method: 'POST',
        url: '/v1/auth/login/pin',
        payload: { identifier: 'ada', pin: '123456' },
      });
      const forged = await app.inject({
        url: '/test/manager',
        headers: bearer(login.json().status.access_token),
      });
      expect(forged.statusCode).toBe(401);
      expect(forged.json().error.code).toBe('INVALID_TOKEN');
    } finally {
      await other.app.close();
      otherDb.close();
      rmSync(otherDir, { recursive: true, force: true });
    }
  });
});
