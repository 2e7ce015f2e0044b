import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';

describe.each(backends)('sessions and tokens on %s', (backend) => {
  let cloud: TestCloud;
  let acme: Awaited<ReturnType<typeof seedTenant>>;
  const credentials = { email: 'ada@acme.test', password: 'ada-password' };

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    acme = await seedTenant(cloud.services, 'acme');
    await cloud.services.tenancy.addUser(acme.tenant.id, { ...credentials, roles: ['manager'] });
  });
  afterEach(() => cloud.close());

  const me = (token: string) => cloud.app.inject({ url: '/v1/auth/me', headers: bearer(token) });
  const refresh = (token: string) =>
    cloud.app.inject({ method: 'POST', url: '/v1/auth/refresh', payload: { refresh_token: token } });

  it('answers /me with exactly the profile fields of the spec', async () => {
    const { access_token } = await loginTokens(cloud.app, credentials);
    const response = await me(access_token);
    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.json().data).sort()).toEqual(
      [
        'display_name',
        'email',
        'email_verified',
        'first_name',
        'id',
        'last_name',
        'roles',
        'status',
        'tenant_id',
        'username',
      ].sort(),
    );
    expect(response.json().data).toMatchObject({
      tenant_id: acme.tenant.id,
      roles: ['manager'],
      status: 'active',
    });
  });

  it('refuses a missing, malformed, forged or expired token with 401', async () => {
    const { access_token, refresh_token } = await loginTokens(cloud.app, credentials);
    expect((await cloud.app.inject({ url: '/v1/auth/me' })).json().error.code).toBe('MISSING_TOKEN');
    expect((await me('not.a.token')).json().error.code).toBe('INVALID_TOKEN');
    const [header, payload] = access_token.split('.');
    const forgedPayload = Buffer.from(
      JSON.stringify({
        ...JSON.parse(Buffer.from(payload!, 'base64url').toString()),
        roles: ['system_admin'],
      }),
    ).toString('base64url');
    expect((await me(`${header}.${forgedPayload}.${access_token.split('.')[2]}`)).json().error.code).toBe(
      'INVALID_TOKEN',
    );
    expect((await me(refresh_token)).statusCode).toBe(401);
    const basic = await cloud.app.inject({
      url: '/v1/auth/me',
      headers: { authorization: `Basic ${access_token}` },
    });
    expect(basic.statusCode).toBe(401);

    cloud.clock.advance(3601_000);
    const expired = await me(access_token);
    expect(expired.statusCode).toBe(401);
    expect(expired.json().error.code).toBe('TOKEN_EXPIRED');
    expect(expired.headers['www-authenticate']).toBe('Bearer');
  });

  it('rotates refresh tokens, and a reused one revokes the whole session', async () => {
    const first = await loginTokens(cloud.app, credentials);
    const rotated = await refresh(first.refresh_token);
    expect(rotated.statusCode).toBe(200);
    const second = rotated.json().status;
    expect(second).toMatchObject({ type: 'success', expires_in: 3600 });
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await me(second.access_token)).statusCode).toBe(200);

    const reused = await refresh(first.refresh_token);
    expect(reused.statusCode).toBe(401);
    expect(reused.json().error.code).toBe('REFRESH_TOKEN_REUSED');
    // Theft detection: the thief's and the owner's tokens die together.
    expect((await me(second.access_token)).json().error.code).toBe('SESSION_ENDED');
    expect((await refresh(second.refresh_token)).json().error.code).toBe('SESSION_ENDED');
    const audit = await cloud.services.audit.list(acme.tenant.id, {
      limit: 10,
      action: 'auth.refresh_token_reuse',
    });
    expect(audit).toHaveLength(1);
  });

  it('refuses an access token at the refresh endpoint and an expired refresh token', async () => {
    const tokens = await loginTokens(cloud.app, credentials);
    expect((await refresh(tokens.access_token)).json().error.code).toBe('INVALID_REFRESH_TOKEN');
    cloud.clock.advance(31 * 86_400_000);
    expect((await refresh(tokens.refresh_token)).json().error.code).toBe('INVALID_REFRESH_TOKEN');
  });

  it('ends a session at once with DELETE /session or /logout', async () => {
    for (const end of [
      { method: 'DELETE' as const, url: '/v1/auth/session' },
      { method: 'POST' as const, url: '/v1/auth/logout' },
    ]) {
      const tokens = await loginTokens(cloud.app, credentials);
      const ended = await cloud.app.inject({ ...end, headers: bearer(tokens.access_token) });
      expect(ended.statusCode).toBe(200);
      expect(ended.json().data).toMatchObject({
        status: 'ended',
        end_reason: 'logout',
        ended_at: expect.any(String),
      });
      const after = await me(tokens.access_token);
      expect(after.statusCode).toBe(401);
      expect(after.json().error.code).toBe('SESSION_ENDED');
      expect((await refresh(tokens.refresh_token)).statusCode).toBe(401);
    }
  });

  it('creates an independent session with POST /session, in another tenant when asked', async () => {
    const globex = await seedTenant(cloud.services, 'globex');
    await cloud.services.tenancy.addUser(
      globex.tenant.id,
      { email: credentials.email, roles: ['tenant_admin'] },
      { trusted: true },
    );
    const parent = await loginTokens(cloud.app, { ...credentials, tenant_slug: 'acme' });
    const fork = await cloud.app.inject({
      method: 'POST',
      url: '/v1/auth/session',
      headers: bearer(parent.access_token),
      payload: { tenant_slug: 'globex', device_name: 'Tablet' },
    });
    expect(fork.statusCode).toBe(201);
    const child = fork.json().status;
    expect(child.user).toMatchObject({ tenant_id: globex.tenant.id, roles: ['tenant_admin'] });
    const session = (
      await cloud.app.inject({ url: '/v1/auth/session', headers: bearer(child.access_token) })
    ).json().data;
    expect(session).toMatchObject({ auth_method: 'session', device: { name: 'Tablet' } });
    await cloud.app.inject({
      method: 'DELETE',
      url: '/v1/auth/session',
      headers: bearer(parent.access_token),
    });
    expect((await me(child.access_token)).statusCode).toBe(200);

    const initech = await seedTenant(cloud.services, 'initech');
    const denied = await cloud.app.inject({
      method: 'POST',
      url: '/v1/auth/session',
      headers: bearer(child.access_token),
      payload: { tenant_slug: initech.tenant.slug },
    });
    expect(denied.statusCode).toBe(403);
  });

  it('answers concurrent requests each with its own session and profile, and refuses an ended one among them', async () => {
    const globex = await seedTenant(cloud.services, 'globex');
    await cloud.services.tenancy.addUser(globex.tenant.id, {
      email: 'gus@globex.test',
      password: 'gus-password',
      roles: ['tenant_admin'],
    });
    const ada = await loginTokens(cloud.app, credentials);
    const gus = await loginTokens(cloud.app, { email: 'gus@globex.test', password: 'gus-password' });
    const gone = await loginTokens(cloud.app, credentials);
    await cloud.app.inject({ method: 'DELETE', url: '/v1/auth/session', headers: bearer(gone.access_token) });
    // Lookups made in one event-loop turn share one read: each answer must still be its own.
    const tokens = Array.from({ length: 30 }, (_, i) => [ada, gus, gone][i % 3]!.access_token);
    const responses = await Promise.all(tokens.map((token) => me(token)));
    const expected = [
      { data: { email: 'ada@acme.test', tenant_id: acme.tenant.id } },
      { data: { email: 'gus@globex.test', tenant_id: globex.tenant.id } },
      { error: { code: 'SESSION_ENDED' } },
    ];
    for (const [i, response] of responses.entries()) expect(response.json()).toMatchObject(expected[i % 3]!);
  });

  it('never shows another tenant’s session or profile', async () => {
    const globex = await seedTenant(cloud.services, 'globex');
    await cloud.services.tenancy.addUser(globex.tenant.id, {
      email: 'gus@globex.test',
      password: 'gus-password',
      roles: ['tenant_admin'],
    });
    const ada = await loginTokens(cloud.app, credentials);
    const gus = await loginTokens(cloud.app, { email: 'gus@globex.test', password: 'gus-password' });
    expect((await me(gus.access_token)).json().data.tenant_id).toBe(globex.tenant.id);
    const adaSession = (
      await cloud.app.inject({ url: '/v1/auth/session', headers: bearer(ada.access_token) })
    ).json().data;
    const gusSession = (
      await cloud.app.inject({ url: '/v1/auth/session', headers: bearer(gus.access_token) })
    ).json().data;
    expect(gusSession.session_id).not.toBe(adaSession.session_id);
    expect(gusSession.tenant_id).toBe(globex.tenant.id);
  });
});
