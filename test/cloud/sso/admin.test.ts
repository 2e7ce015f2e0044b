import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { seedTenant, signedInUser } from '../../support/cloud.ts';
import { createTestIdp } from '../../support/saml-idp.ts';
import { backends } from '../../support/stores.ts';
import { CLIENT_REDIRECT, caller, expectError, ssoCloud } from './sso-cloud.ts';

const okta = {
  kind: 'okta',
  name: 'Okta',
  redirect_uris: [CLIENT_REDIRECT],
  oidc: { issuer: 'https://alpha.okta.example.test', client_id: 'cid', client_secret: 'top-secret-value' },
};

let tenantSeq = 0;

describe.each(backends)('SSO provider administration on %s', (backend) => {
  let c: Awaited<ReturnType<typeof ssoCloud>>;
  let a: Awaited<ReturnType<typeof tenantWithOkta>>;

  /**
   * A tenant of the test's own, with its admin and its Okta provider: tests add, change and remove
   * providers, and one counts them and reads their defaults.
   */
  async function tenantWithOkta() {
    const slug = `alpha-${++tenantSeq}`;
    const { tenant } = await seedTenant(c.cloud.services, slug);
    const admin = caller(
      c.cloud,
      (await signedInUser(c.cloud, tenant.id, `admin@${slug}.test`, ['tenant_admin'])).token,
    );
    const created = await admin('POST', '/v1/platform/sso/providers', okta);
    expect(created.statusCode).toBe(201);
    return { tenantId: tenant.id, slug, admin, providerId: created.json().data.id as string };
  }

  // One cloud for the file, and its tenant B, to which no test gives a provider; A is each test's own.
  beforeAll(async () => {
    c = await ssoCloud(backend);
  });
  beforeEach(async () => {
    a = await tenantWithOkta();
  });
  afterAll(() => c.cloud.close());

  it('answers the provider with its defaults and never the client secret', async () => {
    const got = await a.admin('GET', `/v1/platform/sso/providers/${a.providerId}`);
    expect(got.json().data).toMatchObject({
      kind: 'okta',
      protocol: 'oidc',
      enabled: true,
      jit_enabled: true,
      default_role: 'staff',
      allowed_domains: [],
      oidc: {
        issuer: okta.oidc.issuer,
        client_id: 'cid',
        scopes: ['openid', 'email', 'profile'],
        client_secret_set: true,
      },
    });
    expect(got.body).not.toContain('top-secret-value');
    expect((await a.admin('GET', '/v1/platform/sso/providers')).json().data).toHaveLength(1);
  });

  it('defaults the workspace suite’s issuer, and checks a SAML certificate', async () => {
    const google = await a.admin('POST', '/v1/platform/sso/providers', {
      kind: 'google_workspace',
      name: 'Google',
      redirect_uris: [CLIENT_REDIRECT],
      allowed_domains: ['Alpha.test'.toLowerCase()],
      oidc: { client_id: 'g', client_secret: 's' },
    });
    expect(google.json().data.oidc.issuer).toBe('https://accounts.google.com');
    const idp = await createTestIdp();
    const bad = await a.admin('POST', '/v1/platform/sso/providers', {
      kind: 'saml',
      name: 'Bad SAML',
      redirect_uris: [CLIENT_REDIRECT],
      saml: { entry_point: idp.ssoUrl, idp_issuer: idp.entityId, idp_certificate: 'not a certificate' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details.map((d: { field: string }) => d.field)).toEqual([
      'body.saml.idp_certificate',
    ]);
  });

  it('rejects bad settings with every problem named', async () => {
    const response = await a.admin('POST', '/v1/platform/sso/providers', {
      kind: 'azure_ad',
      name: 'Entra',
      redirect_uris: ['http://evil.example.test/cb', 'https://app.example.test/cb?x=1'],
      default_role: 'tenant_admin',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().error.details.map((d: { field: string }) => d.field)).toEqual([
      'body.redirect_uris.0',
      'body.redirect_uris.1',
      'body.default_role',
      'body.oidc',
      'body.oidc.issuer',
    ]);
    const unknownField = await a.admin('POST', '/v1/platform/sso/providers', {
      ...okta,
      name: 'x',
      color: 'red',
    });
    expect(unknownField.statusCode).toBe(400);
    expectError(await a.admin('POST', '/v1/platform/sso/providers', okta), 409, 'SSO_PROVIDER_EXISTS');
    const wrongProtocol = await a.admin('PATCH', `/v1/platform/sso/providers/${a.providerId}`, {
      saml: { entry_point: 'https://x.test' },
    });
    expect(wrongProtocol.json().error.details[0].field).toBe('body.saml');
  });

  it('changes and removes a provider', async () => {
    const changed = await a.admin('PATCH', `/v1/platform/sso/providers/${a.providerId}`, {
      name: 'Okta (prod)',
      jit_enabled: false,
      oidc: { client_secret: 'rotated-secret' },
    });
    expect(changed.json().data).toMatchObject({
      name: 'Okta (prod)',
      jit_enabled: false,
      oidc: { client_id: 'cid' },
    });
    const temporary = (await a.admin('POST', '/v1/platform/sso/providers', { ...okta, name: 'Temp' })).json()
      .data.id;
    expect((await a.admin('DELETE', `/v1/platform/sso/providers/${temporary}`)).statusCode).toBe(204);
    expectError(
      await a.admin('GET', `/v1/platform/sso/providers/${temporary}`),
      404,
      'SSO_PROVIDER_NOT_FOUND',
    );
  });

  it('keeps each tenant’s providers and policy to itself', async () => {
    expectError(
      await c.adminB('GET', `/v1/platform/sso/providers/${a.providerId}`),
      404,
      'SSO_PROVIDER_NOT_FOUND',
    );
    expectError(
      await c.adminB('PATCH', `/v1/platform/sso/providers/${a.providerId}`, { enabled: false }),
      404,
      'SSO_PROVIDER_NOT_FOUND',
    );
    expectError(
      await c.adminB('DELETE', `/v1/platform/sso/providers/${a.providerId}`),
      404,
      'SSO_PROVIDER_NOT_FOUND',
    );
    expect((await c.adminB('GET', '/v1/platform/sso/providers')).json().data).toEqual([]);
    await c.adminB('PUT', '/v1/platform/sso/policy', { require_sso: true });
    expect((await a.admin('GET', '/v1/platform/sso/policy')).json().data.require_sso).toBe(false);
    expect((await a.admin('GET', `/v1/platform/sso/providers/${a.providerId}`)).json().data.enabled).toBe(
      true,
    );
  });

  it('is for tenant administrators only', async () => {
    const staff = await signedInUser(c.cloud, a.tenantId, `staff@${a.slug}.test`, ['staff']);
    expect((await caller(c.cloud, staff.token)('GET', '/v1/platform/sso/providers')).statusCode).toBe(403);
    expect((await c.anonymous('GET', '/v1/platform/sso/providers')).statusCode).toBe(401);
    const badPolicy = await a.admin('PUT', '/v1/platform/sso/policy', { bypass_roles: ['wizard'] });
    expect(badPolicy.statusCode).toBe(400);
  });
});
