import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OidcIdp, type OidcIdpClient, type OidcIdpOptions, startOidcIdp } from './oidc-idp.ts';

const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const CLIENT = { client_id: 'cloud', client_secret: 'cloud-secret', redirect_uris: [REDIRECT_URI] };
const POST_CLIENT = {
  ...CLIENT,
  client_id: 'cloud-post',
  token_endpoint_auth_method: 'client_secret_post' as const,
};

const makeOptions = (overrides: Partial<OidcIdpOptions> = {}): OidcIdpOptions => ({
  clients: [CLIENT, POST_CLIENT],
  accounts: { 'alice-sub': { email: 'alice@example.com', name: 'Alice' } },
  ...overrides,
});

/** The relying party's side, as the product would do it with openid-client. */
async function relyingParty(idp: OidcIdp, registered: OidcIdpClient = CLIENT) {
  // Without a ClientAuth argument openid-client sends client_secret_post.
  const auth =
    registered.token_endpoint_auth_method === 'client_secret_post'
      ? undefined
      : client.ClientSecretBasic(registered.client_secret);
  const config = await client.discovery(
    new URL(idp.issuer),
    registered.client_id,
    registered.client_secret,
    auth,
    { execute: [client.allowInsecureRequests] },
  );
  const verifier = client.randomPKCECodeVerifier();
  const checks = {
    pkceCodeVerifier: verifier,
    expectedState: client.randomState(),
    expectedNonce: client.randomNonce(),
  };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid email profile',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    state: checks.expectedState,
    nonce: checks.expectedNonce,
  });
  const login = (sub: string) => idp.authorize(url.href, sub);
  const redeem = (callback: URL, overrides: Partial<typeof checks> = {}) =>
    client.authorizationCodeGrant(config, callback, { ...checks, idTokenExpected: true, ...overrides });
  return { login, redeem };
}

/** openid-client's error for an ID token claim that does not match: the claim is two causes down. */
const claimRejected = (claim: string) => ({
  code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED',
  cause: { cause: { claim } },
});

describe('oidc-idp', () => {
  let idp: OidcIdp;

  beforeAll(async () => {
    idp = await startOidcIdp(makeOptions());
  });

  afterAll(async () => {
    await idp.close();
  });

  it('runs the code flow and puts the account in the ID token', async () => {
    const rp = await relyingParty(idp);
    const callback = await rp.login('alice-sub');
    expect(callback.origin + callback.pathname).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('code')).toBeTruthy();

    const tokens = await rp.redeem(callback);
    expect(tokens.claims()).toMatchObject({
      iss: idp.issuer,
      aud: CLIENT.client_id,
      sub: 'alice-sub',
      email: 'alice@example.com',
      email_verified: true,
      name: 'Alice',
    });
  });

  it('accepts client_secret_post for a client registered with it', async () => {
    const rp = await relyingParty(idp, POST_CLIENT);
    const tokens = await rp.redeem(await rp.login('alice-sub'));
    expect(tokens.claims()?.aud).toBe(POST_CLIENT.client_id);
  });

  it('answers access_denied for an unknown account', async () => {
    const rp = await relyingParty(idp);
    const callback = await rp.login('nobody');
    expect(callback.searchParams.get('error')).toBe('access_denied');
  });

  it('refuses a wrong PKCE verifier', async () => {
    const rp = await relyingParty(idp);
    const callback = await rp.login('alice-sub');
    await expect(
      rp.redeem(callback, { pkceCodeVerifier: client.randomPKCECodeVerifier() }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('refuses a code used twice', async () => {
    const rp = await relyingParty(idp);
    const callback = await rp.login('alice-sub');
    await rp.redeem(callback);
    await expect(rp.redeem(callback)).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  describe('tamperIdToken', () => {
    afterAll(() => idp.tamperIdToken(undefined));

    it('re-signs the edited token with the IdP key', async () => {
      idp.tamperIdToken((claims) => ({ ...claims, name: 'Mallory' }));
      const rp = await relyingParty(idp);
      const tokens = await rp.redeem(await rp.login('alice-sub'));
      const idToken = tokens.id_token ?? '';
      const jwks = createRemoteJWKSet(new URL('/jwks', idp.issuer));
      const { payload } = await jwtVerify(idToken, jwks, { issuer: idp.issuer, audience: CLIENT.client_id });
      expect(payload.name).toBe('Mallory');
      expect(decodeProtectedHeader(idToken).kid).toBeTruthy();
    });

    it('makes the relying party reject another audience', async () => {
      idp.tamperIdToken((claims) => ({ ...claims, aud: 'someone-else' }));
      const rp = await relyingParty(idp);
      await expect(rp.redeem(await rp.login('alice-sub'))).rejects.toMatchObject(claimRejected('aud'));
    });

    it('makes the relying party reject another nonce', async () => {
      idp.tamperIdToken((claims) => ({ ...claims, nonce: 'replayed' }));
      const rp = await relyingParty(idp);
      await expect(rp.redeem(await rp.login('alice-sub'))).rejects.toMatchObject(claimRejected('nonce'));
    });

    it('stops when given undefined', async () => {
      idp.tamperIdToken(undefined);
      const rp = await relyingParty(idp);
      const tokens = await rp.redeem(await rp.login('alice-sub'));
      expect(tokens.claims()?.name).toBe('Alice');
    });
  });

  it('refuses a code past codeTtlSeconds', async () => {
    const shortLived = await startOidcIdp(makeOptions({ codeTtlSeconds: 1 }));
    try {
      const rp = await relyingParty(shortLived);
      const callback = await rp.login('alice-sub');
      // Expiry is checked in whole seconds: 1.1 s after issue the second has always turned.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await expect(rp.redeem(callback)).rejects.toMatchObject({ error: 'invalid_grant' });
    } finally {
      await shortLived.close();
    }
  });
});
