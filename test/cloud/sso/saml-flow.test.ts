import { inflateRawSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AssertionSpec,
  createTestIdp,
  type TestIdp,
  WRAPPING_VARIANTS,
} from '../../support/saml-idp.ts';
import { backends } from '../../support/stores.ts';
import { CLIENT_REDIRECT, expectError, ssoCloud } from './sso-cloud.ts';

const PUBLIC_URL = 'https://cloud.example.test';

describe.each(backends)('SAML 2.0 sign-in through the cloud on %s', (backend) => {
  let idp: TestIdp;
  let c: Awaited<ReturnType<typeof ssoCloud>>;
  let provider: { id: string; saml: { sp_entity_id: string; acs_url: string } };

  /** Starts a sign-in; answers its state and the AuthnRequest's ID an assertion must answer. */
  async function start() {
    const started = await c.anonymous('POST', '/v1/auth/sso/init', {
      provider_id: provider.id,
      shell: 'web',
      redirect_uri: CLIENT_REDIRECT,
    });
    expect(started.statusCode).toBe(200);
    const url = new URL(started.json().data.authorization_url);
    const request = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest')!, 'base64')).toString();
    return {
      state: started.json().data.state as string,
      url,
      requestId: /\sID="([^"]+)"/.exec(request)![1]!,
      request,
    };
  }

  const spec = (requestId: string, overrides: Partial<AssertionSpec> = {}): AssertionSpec => ({
    audience: provider.saml.sp_entity_id,
    recipient: provider.saml.acs_url,
    inResponseTo: requestId,
    nameId: 'ada@alpha.test',
    email: 'ada@alpha.test',
    ...overrides,
  });

  const post = (samlResponse: string, relayState: string) =>
    c.cloud.app.inject({
      method: 'POST',
      url: `/v1/auth/sso/saml/${provider.id}/acs`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: relayState }).toString(),
    });

  /** The ACS refused: the browser goes back to the client with error=access_denied and no code. */
  function expectRefused(response: { statusCode: number; headers: Record<string, unknown> }, reason: string) {
    expect(response.statusCode).toBe(303);
    const location = new URL(response.headers.location as string);
    expect(location.searchParams.get('code')).toBeNull();
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('error_description')).toContain(reason);
  }

  beforeAll(async () => {
    idp = await createTestIdp({ ssoUrl: 'https://idp.alpha.test/saml/sso' });
    c = await ssoCloud(backend, { config: { publicUrl: PUBLIC_URL } });
    const created = await c.adminA('POST', '/v1/platform/sso/providers', {
      kind: 'saml',
      name: 'Alpha ADFS',
      redirect_uris: [CLIENT_REDIRECT],
      default_role: 'manager',
      saml: { entry_point: idp.ssoUrl, idp_issuer: idp.entityId, idp_certificate: idp.certificatePem },
    });
    expect(created.statusCode).toBe(201);
    provider = created.json().data;
  });
  afterAll(() => c.cloud.close());

  it('tells the admin what to register at the IdP, and serves our metadata', async () => {
    expect(provider.saml).toMatchObject({
      sp_entity_id: `${PUBLIC_URL}/v1/auth/sso/saml/${provider.id}/metadata`,
      acs_url: `${PUBLIC_URL}/v1/auth/sso/saml/${provider.id}/acs`,
    });
    const metadata = await c.anonymous('GET', `/v1/auth/sso/saml/${provider.id}/metadata`);
    expect(metadata.headers['content-type']).toContain('application/samlmetadata+xml');
    expect(metadata.body).toContain(`entityID="${provider.saml.sp_entity_id}"`);
    expect(metadata.body).toContain(`Location="${provider.saml.acs_url}"`);
  });

  it('sends the browser to the IdP with an AuthnRequest for our ACS, and RelayState = state', async () => {
    const { url, state, request } = await start();
    expect(`${url.origin}${url.pathname}`).toBe(idp.ssoUrl);
    expect(url.searchParams.get('RelayState')).toBe(state);
    expect(request).toContain(`AssertionConsumerServiceURL="${provider.saml.acs_url}"`);
  });

  it('accepts a correctly signed assertion: ACS hands the client a code, the callback answers tokens', async () => {
    const { state, requestId } = await start();
    const acs = await post(idp.signedResponse(spec(requestId)), state);
    expect(acs.statusCode).toBe(303);
    const back = new URL(acs.headers.location as string);
    expect(`${back.origin}${back.pathname}`).toBe(CLIENT_REDIRECT);
    expect(back.searchParams.get('state')).toBe(state);
    const result = await c.anonymous('POST', '/v1/auth/sso/callback', {
      state,
      code: back.searchParams.get('code'),
    });
    expect(result.statusCode).toBe(200);
    expect(result.json().status.user).toMatchObject({
      email: 'ada@alpha.test',
      tenant_id: c.a.tenant.id,
      roles: ['manager'],
    });
    // The code is good once.
    expectError(
      await c.anonymous('POST', '/v1/auth/sso/callback', { state, code: back.searchParams.get('code') }),
      401,
      'SSO_STATE_INVALID',
    );
  });

  it('refuses a wrong code for a sign-in the ACS accepted, and keeps that sign-in unusable', async () => {
    const { state, requestId } = await start();
    const back = new URL((await post(idp.signedResponse(spec(requestId)), state)).headers.location as string);
    expectError(
      await c.anonymous('POST', '/v1/auth/sso/callback', { state, code: 'x'.repeat(43) }),
      401,
      'SSO_STATE_INVALID',
    );
    expect(back.searchParams.get('code')).toBeTruthy();
  });

  it('refuses an unsigned assertion', async () => {
    const { state, requestId } = await start();
    expectRefused(await post(idp.unsignedResponse(spec(requestId)), state), 'not_signed');
  });

  it.each(WRAPPING_VARIANTS)('refuses a signature-wrapping attack (%s)', async (variant) => {
    const { state, requestId } = await start();
    const attack = idp.wrappedResponse(
      spec(requestId),
      { nameId: 'admin@alpha.test', email: 'admin@alpha.test' },
      variant,
    );
    expectRefused(await post(attack, state), 'signature_invalid');
  });

  it('refuses an expired assertion and one for another audience', async () => {
    const first = await start();
    expectRefused(await post(idp.expiredResponse(spec(first.requestId)), first.state), 'expired');
    const second = await start();
    expectRefused(
      await post(idp.wrongAudienceResponse(spec(second.requestId)), second.state),
      'audience_mismatch',
    );
  });

  it('refuses an assertion answering another request, and a response replayed into a finished sign-in', async () => {
    const { state } = await start();
    const other = await start();
    expectRefused(await post(idp.signedResponse(spec(other.requestId)), state), 'in_response_to_mismatch');

    const fresh = await start();
    const response = idp.signedResponse(spec(fresh.requestId));
    expect((await post(response, fresh.state)).statusCode).toBe(303);
    expectError(await post(response, fresh.state), 401, 'SSO_STATE_INVALID');
  });

  it('refuses an assertion signed by another IdP', async () => {
    const impostor = await createTestIdp({ entityId: idp.entityId });
    const { state, requestId } = await start();
    expectRefused(await post(impostor.signedResponse(spec(requestId)), state), 'signature_invalid');
  });

  it('refuses a RelayState it did not issue, and an ACS of another provider', async () => {
    const { requestId } = await start();
    expectError(await post(idp.signedResponse(spec(requestId)), 'y'.repeat(43)), 401, 'SSO_STATE_INVALID');
  });
});
