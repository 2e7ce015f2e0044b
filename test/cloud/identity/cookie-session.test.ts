import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { totpCode } from '../../../cloud/identity/totp.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { type OidcIdp, startOidcIdp } from '../../support/oidc-idp.ts';
import { backends } from '../../support/stores.ts';
import { CLIENT_REDIRECT, ssoCloud } from '../sso/sso-cloud.ts';

const BROWSER = { 'x-refresh-token-transport': 'cookie' };
const CREDENTIALS = { email: 'ada@acme.test', password: 'ada-password' };
/** CLOUD_REFRESH_TOKEN_DAYS' default, 30 days. */
const REFRESH_TTL = 30 * 86_400;

const JWT = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** The one Set-Cookie of a response, split into its token and its attributes. */
function refreshCookie(response: LightMyRequestResponse) {
  const header = response.headers['set-cookie'];
  expect(typeof header, 'one Set-Cookie header').toBe('string');
  const [pair, ...attributes] = String(header).split('; ');
  const [name, value] = pair!.split(/=(.*)/s);
  expect(name).toBe('refresh_token');
  return { value: value!, attributes };
}

const cookieOf = (response: LightMyRequestResponse) => `refresh_token=${refreshCookie(response).value}`;

describe.each(backends)('the refresh token in an http-only cookie on %s', (backend) => {
  let cloud: TestCloud;

  const post = (url: string, options: { payload?: object; headers?: Record<string, string> } = {}) =>
    cloud.app.inject({ method: 'POST', url, ...options });
  const browserLogin = () => post('/v1/auth/login', { payload: CREDENTIALS, headers: BROWSER });
  const refreshBy = (cookie: string) => post('/v1/auth/refresh', { headers: { ...BROWSER, cookie } });
  const me = (accessToken: string) => cloud.app.inject({ url: '/v1/auth/me', headers: bearer(accessToken) });

  beforeEach(async () => {
    cloud = await createTestCloud(backend, { config: { rateLimit: false } });
    const { tenant } = await seedTenant(cloud.services, 'acme');
    await cloud.services.tenancy.addUser(tenant.id, { ...CREDENTIALS, roles: ['manager'] });
  });
  afterEach(() => cloud.close());

  it('sets the cookie at login, http-only, same-site, for /v1/auth only, and leaves the token out of the body', async () => {
    const response = await browserLogin();
    expect(response.statusCode).toBe(200);
    const { value, attributes } = refreshCookie(response);
    expect(value).toMatch(JWT);
    expect(attributes).toEqual(['HttpOnly', 'SameSite=Strict', 'Path=/v1/auth', `Max-Age=${REFRESH_TTL}`]);
    const { status } = response.json();
    expect(status).toMatchObject({ type: 'success', token_type: 'Bearer', expires_in: 3600 });
    expect(status).not.toHaveProperty('refresh_token');
    expect(value).not.toBe(status.access_token);
    expect((await me(status.access_token)).statusCode).toBe(200);
  });

  it('marks the cookie Secure when the request came over https', async () => {
    await cloud.close();
    cloud = await createTestCloud(backend, { config: { rateLimit: false, trustProxy: true } });
    const { tenant } = await seedTenant(cloud.services, 'acme');
    await cloud.services.tenancy.addUser(tenant.id, { ...CREDENTIALS, roles: ['manager'] });
    const response = await post('/v1/auth/login', {
      payload: CREDENTIALS,
      headers: { ...BROWSER, 'x-forwarded-proto': 'https' },
    });
    expect(refreshCookie(response).attributes).toEqual([
      'HttpOnly',
      'SameSite=Strict',
      'Path=/v1/auth',
      `Max-Age=${REFRESH_TTL}`,
      'Secure',
    ]);
  });

  it('refreshes by the cookie alone and rotates it; the spent cookie is refused and ends the session', async () => {
    const first = cookieOf(await browserLogin());
    const refreshed = await refreshBy(first);
    expect(refreshed.statusCode).toBe(200);
    const second = cookieOf(refreshed);
    expect(second).not.toBe(first);
    expect(refreshCookie(refreshed).attributes).toContain(`Max-Age=${REFRESH_TTL}`);
    const { status } = refreshed.json();
    expect(status).not.toHaveProperty('refresh_token');
    expect((await me(status.access_token)).statusCode).toBe(200);

    const reused = await refreshBy(first);
    expect(reused.statusCode).toBe(401);
    expect(reused.json().error.code).toBe('REFRESH_TOKEN_REUSED');
    // Reuse is theft as far as the cloud can tell: the whole session goes, the newer cookie with it.
    expect((await refreshBy(second)).json().error.code).toBe('SESSION_ENDED');
  });

  it('answers a refresh with the header but no cookie with 401 in the auth envelope', async () => {
    for (const cookie of [undefined, 'theme=dark', 'refresh_token=']) {
      const response = await post('/v1/auth/refresh', {
        headers: { ...BROWSER, ...(cookie ? { cookie } : {}) },
      });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({
        error: { code: 'REFRESH_TOKEN_MISSING', message: expect.any(String), details: [] },
        meta: { request_id: response.headers['x-request-id'] },
      });
    }
  });

  it('finds the cookie among others, and takes a body token over it', async () => {
    const login = await browserLogin();
    const cookie = `theme=dark; ${cookieOf(login)}; lang=en`;
    const refreshed = await refreshBy(cookie);
    expect(refreshed.statusCode).toBe(200);
    // An API client's body token still works with the header, and the new token comes as a cookie.
    const api = await loginTokens(cloud.app, CREDENTIALS);
    const both = await post('/v1/auth/refresh', {
      payload: { refresh_token: api.refresh_token },
      headers: { ...BROWSER, cookie: cookieOf(refreshed) },
    });
    expect(both.statusCode).toBe(200);
    expect(both.json().status).not.toHaveProperty('refresh_token');
    expect((await refreshBy(cookieOf(refreshed))).statusCode).toBe(200);
  });

  it('clears the cookie at logout and ends the session', async () => {
    const login = await browserLogin();
    const { access_token } = login.json().status;
    const logout = await post('/v1/auth/logout', { headers: { ...BROWSER, ...bearer(access_token) } });
    expect(logout.statusCode).toBe(200);
    expect(logout.json().data).toMatchObject({ status: 'ended', end_reason: 'logout' });
    expect(refreshCookie(logout)).toEqual({
      value: '',
      attributes: ['HttpOnly', 'SameSite=Strict', 'Path=/v1/auth', 'Max-Age=0'],
    });
    expect((await me(access_token)).json().error.code).toBe('SESSION_ENDED');
    expect((await refreshBy(cookieOf(login))).json().error.code).toBe('SESSION_ENDED');
  });

  it('changes nothing for a client without the header', async () => {
    const login = await post('/v1/auth/login', { payload: CREDENTIALS });
    expect(login.headers['set-cookie']).toBeUndefined();
    const { status } = login.json();
    expect(status.refresh_token).toMatch(JWT);

    const cookie = `refresh_token=${status.refresh_token}`;
    const cookieOnly = await post('/v1/auth/refresh', { headers: { cookie } });
    expect(cookieOnly.statusCode).toBe(400);
    expect(cookieOnly.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: [{ field: 'body.refresh_token', message: 'is required' }],
    });

    const refreshed = await post('/v1/auth/refresh', { payload: { refresh_token: status.refresh_token } });
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.headers['set-cookie']).toBeUndefined();
    expect(refreshed.json().status.refresh_token).toMatch(JWT);

    const logout = await post('/v1/auth/logout', { headers: bearer(refreshed.json().status.access_token) });
    expect(logout.statusCode).toBe(200);
    expect(logout.headers['set-cookie']).toBeUndefined();
  });

  it('refuses a transport it does not know', async () => {
    const response = await post('/v1/auth/login', {
      payload: CREDENTIALS,
      headers: { 'x-refresh-token-transport': 'body' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual([
      { field: 'headers.x-refresh-token-transport', message: expect.any(String) },
    ]);
  });

  it('sets the cookie when an MFA challenge is answered, not before', async () => {
    const { access_token } = await loginTokens(cloud.app, CREDENTIALS);
    const enrolled = (
      await post('/v1/auth/mfa/factors', { payload: {}, headers: bearer(access_token) })
    ).json();
    const { id, secret } = enrolled.data;
    const code = () => totpCode(secret, cloud.clock.now());
    await post(`/v1/auth/mfa/factors/${id}/activate`, {
      payload: { code: code() },
      headers: bearer(access_token),
    });
    cloud.clock.advance(30_000);

    const challenged = await browserLogin();
    expect(challenged.json().status.type).toBe('mfa_required');
    expect(challenged.headers['set-cookie']).toBeUndefined();
    const verified = await post('/v1/auth/mfa/verify', {
      payload: { challenge_id: challenged.json().status.challenge_id, code: code() },
      headers: BROWSER,
    });
    expect(verified.statusCode).toBe(200);
    expect(verified.json().status).not.toHaveProperty('refresh_token');
    const { attributes } = refreshCookie(verified);
    expect(attributes).toEqual(['HttpOnly', 'SameSite=Strict', 'Path=/v1/auth', `Max-Age=${REFRESH_TTL}`]);
    const refreshed = await refreshBy(cookieOf(verified));
    expect(refreshed.statusCode).toBe(200);
    const session = await cloud.app.inject({
      url: '/v1/auth/session',
      headers: bearer(refreshed.json().status.access_token),
    });
    expect(session.json().data).toMatchObject({ mfa_verified: true });
  });
});

describe.each(backends)('the refresh token cookie after an SSO sign-in on %s', (backend) => {
  const client = { client_id: 'edge-cloud', client_secret: 'a-long-client-secret-for-tests' };
  let idp: OidcIdp;
  let c: Awaited<ReturnType<typeof ssoCloud>>;
  let providerId: string;

  beforeAll(async () => {
    idp = await startOidcIdp({
      clients: [{ ...client, redirect_uris: [CLIENT_REDIRECT] }],
      accounts: { 'ada-sub': { email: 'ada@alpha.test' } },
    });
    c = await ssoCloud(backend);
    const created = await c.adminA('POST', '/v1/platform/sso/providers', {
      kind: 'okta',
      name: 'Alpha Okta',
      redirect_uris: [CLIENT_REDIRECT],
      allowed_domains: ['alpha.test'],
      oidc: { issuer: idp.issuer, ...client },
    });
    providerId = created.json().data.id;
  });
  afterAll(async () => {
    await c.cloud.close();
    await idp.close();
  });

  it('sets the cookie on the callback and keeps the token out of its body', async () => {
    const started = await c.anonymous('POST', '/v1/auth/sso/init', {
      provider_id: providerId,
      shell: 'web',
      redirect_uri: CLIENT_REDIRECT,
    });
    const back = await idp.authorize(started.json().data.authorization_url, 'ada-sub');
    const callback = await c.cloud.app.inject({
      method: 'POST',
      url: '/v1/auth/sso/callback',
      headers: BROWSER,
      payload: {
        state: back.searchParams.get('state'),
        code: back.searchParams.get('code'),
        iss: back.searchParams.get('iss') ?? undefined,
      },
    });
    expect(callback.statusCode).toBe(200);
    expect(callback.json().status).toMatchObject({ type: 'success', user: { email: 'ada@alpha.test' } });
    expect(callback.json().status).not.toHaveProperty('refresh_token');
    const { attributes } = refreshCookie(callback);
    expect(attributes).toEqual(['HttpOnly', 'SameSite=Strict', 'Path=/v1/auth', `Max-Age=${REFRESH_TTL}`]);
    const refreshed = await c.cloud.app.inject({
      method: 'POST',
      url: '/v1/auth/refresh',
      headers: { ...BROWSER, cookie: cookieOf(callback) },
    });
    expect(refreshed.statusCode).toBe(200);
  });
});
