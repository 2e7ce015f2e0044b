import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginTokens, TEST_PASSWORD } from '../../support/cloud.ts';
import { type OidcIdp, startOidcIdp } from '../../support/oidc-idp.ts';
import { backends } from '../../support/stores.ts';
import { CLIENT_REDIRECT, caller, expectError, ssoCloud } from './sso-cloud.ts';

const CLIENT = {
  client_id: 'edge-cloud',
  client_secret: 'a-long-client-secret-for-tests',
  redirect_uris: [CLIENT_REDIRECT],
};
const ACCOUNTS = {
  'ada-sub': { email: 'ada@alpha.test', name: 'Ada Lovelace' },
  'grace-sub': { email: 'grace@alpha.test', name: 'Grace Hopper' },
  'stranger-sub': { email: 'eve@elsewhere.test' },
  'unverified-sub': { email: 'ivy@alpha.test', email_verified: false },
  'newcomer-sub': { email: 'newcomer@alpha.test' },
  'known-sub': { email: 'known@alpha.test' },
  // Someone of tenant bravo: alpha's IdP must not be able to claim their account.
  'bravo-admin-sub': { email: 'admin@bravo.test' },
};

describe.each(backends)('OpenID Connect sign-in on %s', (backend) => {
  let idp: OidcIdp;
  let c: Awaited<ReturnType<typeof ssoCloud>>;
  let providerId: string;

  const init = async (redirect = CLIENT_REDIRECT, id = providerId) =>
    c.anonymous('POST', '/v1/auth/sso/init', { provider_id: id, shell: 'web', redirect_uri: redirect });

  /** Starts a sign-in, plays the browser at the IdP as `sub`, and answers what the client would post. */
  async function signInAt(sub: string, edit?: (url: URL) => void) {
    const started = await init();
    expect(started.statusCode).toBe(200);
    const url = new URL(started.json().data.authorization_url);
    edit?.(url);
    const back = await idp.authorize(url.href, sub);
    return {
      state: back.searchParams.get('state')!,
      code: back.searchParams.get('code')!,
      iss: back.searchParams.get('iss') ?? undefined,
    };
  }

  beforeAll(async () => {
    idp = await startOidcIdp({ clients: [CLIENT], accounts: ACCOUNTS });
    c = await ssoCloud(backend, {
      config: {
        sso: {
          socialProviders: [{ id: 'acme-id', name: 'Acme ID', issuer: idp.issuer, ...CLIENT }],
          socialRedirectUris: [CLIENT_REDIRECT],
          loginTtlSeconds: 600,
        },
      },
    });
    const created = await c.adminA('POST', '/v1/platform/sso/providers', {
      kind: 'okta',
      name: 'Alpha Okta',
      redirect_uris: [CLIENT_REDIRECT],
      allowed_domains: ['alpha.test'],
      oidc: { issuer: idp.issuer, client_id: CLIENT.client_id, client_secret: CLIENT.client_secret },
    });
    expect(created.statusCode).toBe(201);
    providerId = created.json().data.id;
  });
  afterAll(async () => {
    await c.cloud.close();
    await idp.close();
  });

  it('lists the tenant’s providers for its login page, and none for an unknown tenant', async () => {
    const listed = (await c.anonymous('GET', '/v1/auth/sso/providers?tenant_slug=alpha')).json().data;
    expect(listed).toEqual({
      tenant_slug: 'alpha',
      sso_required: false,
      providers: [{ id: providerId, kind: 'okta', protocol: 'oidc', name: 'Alpha Okta' }],
    });
    expect(
      (await c.anonymous('GET', '/v1/auth/sso/providers?tenant_slug=bravo')).json().data.providers,
    ).toEqual([]);
    expect(
      (await c.anonymous('GET', '/v1/auth/sso/providers?tenant_slug=nobody')).json().data.providers,
    ).toEqual([]);
  });

  it('sends the browser to the IdP with PKCE (S256), state and nonce', async () => {
    const started = (await init()).json().data;
    const url = new URL(started.authorization_url);
    expect(url.origin).toBe(new URL(idp.issuer).origin);
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('state')).toBe(started.state);
    expect(url.searchParams.get('nonce')).toMatch(/^[\w-]{20,}$/);
    expect(url.searchParams.get('redirect_uri')).toBe(CLIENT_REDIRECT);
    expect(url.searchParams.get('client_id')).toBe(CLIENT.client_id);
  });

  it('completes the code flow: a new user is created with the default role, and signs in again as the same account', async () => {
    const first = await c.anonymous('POST', '/v1/auth/sso/callback', await signInAt('ada-sub'));
    expect(first.statusCode).toBe(200);
    const status = first.json().status;
    expect(status.type).toBe('success');
    expect(status.user).toMatchObject({
      email: 'ada@alpha.test',
      tenant_id: c.a.tenant.id,
      roles: ['staff'],
    });
    const me = await caller(c.cloud, status.access_token)('GET', '/v1/auth/session');
    expect(me.json().data).toMatchObject({ auth_method: 'sso', tenant_id: c.a.tenant.id });

    const again = (await c.anonymous('POST', '/v1/auth/sso/callback', await signInAt('ada-sub'))).json()
      .status;
    expect(again.user.id).toBe(status.user.id);
  });

  it('refuses a state it did not issue, and a state used once already', async () => {
    const back = await signInAt('grace-sub');
    expectError(
      await c.anonymous('POST', '/v1/auth/sso/callback', { ...back, state: 'x'.repeat(43) }),
      401,
      'SSO_STATE_INVALID',
    );
    expect((await c.anonymous('POST', '/v1/auth/sso/callback', back)).statusCode).toBe(200);
    expectError(await c.anonymous('POST', '/v1/auth/sso/callback', back), 401, 'SSO_STATE_INVALID');
  });

  it('refuses a sign-in that took longer than SSO_LOGIN_TTL_SECONDS', async () => {
    const back = await signInAt('grace-sub');
    c.cloud.clock.advance(601_000);
    try {
      expectError(await c.anonymous('POST', '/v1/auth/sso/callback', back), 401, 'SSO_STATE_INVALID');
    } finally {
      c.cloud.clock.advance(-601_000);
    }
  });

  it('refuses a code presented with another sign-in’s state (its PKCE verifier does not match)', async () => {
    const mine = await signInAt('grace-sub');
    const other = (await init()).json().data;
    expectError(
      await c.anonymous('POST', '/v1/auth/sso/callback', { ...mine, state: other.state }),
      401,
      'SSO_IDP_REJECTED',
    );
  });

  it('refuses an ID token carrying another nonce', async () => {
    const back = await signInAt('grace-sub', (url) =>
      url.searchParams.set('nonce', 'an-attacker-chosen-nonce-value'),
    );
    expectError(await c.anonymous('POST', '/v1/auth/sso/callback', back), 401, 'SSO_ASSERTION_INVALID');
  });

  it('refuses an ID token issued for another audience', async () => {
    const back = await signInAt('grace-sub');
    idp.tamperIdToken((claims) => ({ ...claims, aud: 'someone-elses-client' }));
    try {
      expectError(await c.anonymous('POST', '/v1/auth/sso/callback', back), 401, 'SSO_ASSERTION_INVALID');
    } finally {
      idp.tamperIdToken(undefined);
    }
  });

  it('refuses an ID token from another issuer', async () => {
    const back = await signInAt('grace-sub');
    idp.tamperIdToken((claims) => ({ ...claims, iss: 'https://evil.example.test' }));
    try {
      expectError(await c.anonymous('POST', '/v1/auth/sso/callback', back), 401, 'SSO_ASSERTION_INVALID');
    } finally {
      idp.tamperIdToken(undefined);
    }
  });

  it('refuses e-mail domains outside the provider’s list and unverified e-mail', async () => {
    expectError(
      await c.anonymous('POST', '/v1/auth/sso/callback', await signInAt('stranger-sub')),
      403,
      'SSO_DOMAIN_NOT_ALLOWED',
    );
    expectError(
      await c.anonymous('POST', '/v1/auth/sso/callback', await signInAt('unverified-sub')),
      403,
      'SSO_EMAIL_UNVERIFIED',
    );
  });

  it('never lets a tenant’s IdP claim an account of another tenant', async () => {
    await c.adminA('PATCH', `/v1/platform/sso/providers/${providerId}`, { allowed_domains: [] });
    try {
      expectError(
        await c.anonymous('POST', '/v1/auth/sso/callback', await signInAt('bravo-admin-sub')),
        409,
        'SSO_ACCOUNT_CONFLICT',
      );
    } finally {
      await c.adminA('PATCH', `/v1/platform/sso/providers/${providerId}`, {
        allowed_domains: ['alpha.test'],
      });
    }
  });

  it('with just-in-time creation off, signs in existing members only', async () => {
    await c.adminA('PATCH', `/v1/platform/sso/providers/${providerId}`, { jit_enabled: false });
    try {
      expectError(
        await c.anonymous('POST', '/v1/auth/sso/callback', await signInAt('newcomer-sub')),
        403,
        'SSO_USER_NOT_PROVISIONED',
      );
      await c.cloud.services.tenancy.addUser(c.a.tenant.id, {
        email: 'known@alpha.test',
        roles: ['manager'],
      });
      const known = (await c.anonymous('POST', '/v1/auth/sso/callback', await signInAt('known-sub'))).json()
        .status;
      expect(known.user).toMatchObject({ email: 'known@alpha.test', roles: ['manager'] });
    } finally {
      await c.adminA('PATCH', `/v1/platform/sso/providers/${providerId}`, { jit_enabled: true });
    }
  });

  it('refuses a redirect URI the provider has not registered, and a disabled provider', async () => {
    const response = await init('https://evil.example.test/catch');
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details).toEqual([
      { field: 'body.redirect_uri', message: expect.stringContaining('not one of') },
    ]);
    await c.adminA('PATCH', `/v1/platform/sso/providers/${providerId}`, { enabled: false });
    try {
      expectError(await init(), 403, 'SSO_PROVIDER_DISABLED');
    } finally {
      await c.adminA('PATCH', `/v1/platform/sso/providers/${providerId}`, { enabled: true });
    }
    expectError(
      await init(CLIENT_REDIRECT, '018f0000-0000-7000-8000-000000000000'),
      404,
      'SSO_PROVIDER_NOT_FOUND',
    );
  });

  it('enforces a required SSO: passwords refused save for the break-glass role, SSO still works', async () => {
    await c.cloud.services.tenancy.addUser(c.a.tenant.id, {
      email: 'pw@alpha.test',
      password: TEST_PASSWORD,
      roles: ['manager'],
    });
    const policy = await c.adminA('PUT', '/v1/platform/sso/policy', { require_sso: true });
    expect(policy.json().data).toMatchObject({ require_sso: true, bypass_roles: ['tenant_admin'] });
    try {
      expectError(
        await c.anonymous('POST', '/v1/auth/login', { email: 'pw@alpha.test', password: TEST_PASSWORD }),
        403,
        'SSO_REQUIRED',
      );
      await loginTokens(c.cloud.app, { email: 'admin@alpha.test', password: TEST_PASSWORD });
      expect(
        (await c.anonymous('GET', '/v1/auth/sso/providers?tenant_slug=alpha')).json().data.sso_required,
      ).toBe(true);
      expect((await c.anonymous('POST', '/v1/auth/sso/callback', await signInAt('ada-sub'))).statusCode).toBe(
        200,
      );
      // Bravo's policy is its own.
      await loginTokens(c.cloud.app, { email: 'admin@bravo.test', password: TEST_PASSWORD });
    } finally {
      await c.adminA('PUT', '/v1/platform/sso/policy', { require_sso: false });
    }
    await loginTokens(c.cloud.app, { email: 'pw@alpha.test', password: TEST_PASSWORD });
  });
});

describe('OpenID Connect sign-in with a short-lived code', () => {
  it('refuses a code redeemed after the IdP’s code lifetime', async () => {
    const idp = await startOidcIdp({ clients: [CLIENT], accounts: ACCOUNTS, codeTtlSeconds: 1 });
    const c = await ssoCloud('sqlite');
    try {
      const created = await c.adminA('POST', '/v1/platform/sso/providers', {
        kind: 'azure_ad',
        name: 'Alpha Entra',
        redirect_uris: [CLIENT_REDIRECT],
        oidc: { issuer: idp.issuer, client_id: CLIENT.client_id, client_secret: CLIENT.client_secret },
      });
      const started = await c.anonymous('POST', '/v1/auth/sso/init', {
        provider_id: created.json().data.id,
        shell: 'pos',
        redirect_uri: CLIENT_REDIRECT,
      });
      const back = await idp.authorize(started.json().data.authorization_url, 'ada-sub');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const late = await c.anonymous('POST', '/v1/auth/sso/callback', {
        state: back.searchParams.get('state'),
        code: back.searchParams.get('code'),
        iss: back.searchParams.get('iss'),
      });
      expectError(late, 401, 'SSO_IDP_REJECTED');
      expect(late.json().error.message).toContain('invalid_grant');
    } finally {
      await c.cloud.close();
      await idp.close();
    }
  });
});

describe('social login (GET /v1/auth/oauth/:provider)', () => {
  let idp: OidcIdp;
  let c: Awaited<ReturnType<typeof ssoCloud>>;

  beforeAll(async () => {
    idp = await startOidcIdp({ clients: [CLIENT], accounts: ACCOUNTS });
    c = await ssoCloud('sqlite', {
      config: {
        sso: {
          socialProviders: [{ id: 'acme-id', name: 'Acme ID', issuer: idp.issuer, ...CLIENT }],
          socialRedirectUris: [CLIENT_REDIRECT],
          loginTtlSeconds: 600,
        },
      },
    });
  });
  afterAll(async () => {
    await c.cloud.close();
    await idp.close();
  });

  const start = (query: string) => c.anonymous('GET', `/v1/auth/oauth/acme-id?${query}`);

  it('redirects to the provider and signs in the existing account its verified e-mail names', async () => {
    const redirect = await start(`redirect_uri=${encodeURIComponent(CLIENT_REDIRECT)}&tenant_slug=bravo`);
    expect(redirect.statusCode).toBe(302);
    const location = new URL(redirect.headers.location as string);
    expect(location.origin).toBe(new URL(idp.issuer).origin);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    const back = await idp.authorize(location.href, 'bravo-admin-sub');
    const result = await c.anonymous('POST', '/v1/auth/sso/callback', Object.fromEntries(back.searchParams));
    expect(result.statusCode).toBe(200);
    expect(result.json().status.user).toMatchObject({ email: 'admin@bravo.test', tenant_id: c.b.tenant.id });
    const session = await caller(c.cloud, result.json().status.access_token)('GET', '/v1/auth/session');
    expect(session.json().data.auth_method).toBe('oauth');
  });

  it('creates no accounts', async () => {
    const location = (await start(`redirect_uri=${encodeURIComponent(CLIENT_REDIRECT)}`)).headers
      .location as string;
    const back = await idp.authorize(location, 'stranger-sub');
    expectError(
      await c.anonymous('POST', '/v1/auth/sso/callback', Object.fromEntries(back.searchParams)),
      403,
      'SSO_ACCOUNT_NOT_FOUND',
    );
  });

  it('refuses an unknown provider and an unregistered redirect URI', async () => {
    expectError(
      await c.anonymous('GET', `/v1/auth/oauth/nobody?redirect_uri=${encodeURIComponent(CLIENT_REDIRECT)}`),
      404,
      'OAUTH_PROVIDER_NOT_FOUND',
    );
    const bad = await start(`redirect_uri=${encodeURIComponent('https://evil.example.test/x')}`);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0].field).toBe('querystring.redirect_uri');
  });

  it('is refused for a tenant that requires its own SSO', async () => {
    const adminB = await c.adminB('PUT', '/v1/platform/sso/policy', { require_sso: true, bypass_roles: [] });
    expect(adminB.statusCode).toBe(200);
    const location = (await start(`redirect_uri=${encodeURIComponent(CLIENT_REDIRECT)}&tenant_slug=bravo`))
      .headers.location as string;
    const back = await idp.authorize(location, 'bravo-admin-sub');
    expectError(
      await c.anonymous('POST', '/v1/auth/sso/callback', Object.fromEntries(back.searchParams)),
      403,
      'SSO_REQUIRED',
    );
  });
});
