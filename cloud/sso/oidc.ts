import * as oidc from 'openid-client';
import { assertionInvalid, idpRefused } from './errors.ts';
import { isLoopback } from './redirect-uris.ts';

export interface OidcClientSettings {
  issuer: string;
  client_id: string;
  client_secret: string;
  scopes: string[];
}

/** What the ID token says, after signature, issuer, audience, expiry and nonce checked out. */
export interface OidcIdentity {
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
  /** Google Workspace's hosted domain, when present. */
  hostedDomain: string | undefined;
}

export interface StartedOidcLogin {
  url: string;
  codeVerifier: string;
  nonce: string;
}

const DISCOVERY_TTL_MS = 60 * 60_000;
const IDP_TIMEOUT_SECONDS = 10;

const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);

/**
 * The relying party of every OpenID Connect provider, through openid-client: discovery (cached per
 * provider version), the authorization URL with PKCE (S256), state and nonce, and the code exchange
 * whose ID token must be signed by the issuer, for our client id, fresh, and carry our nonce.
 */
export function createOidcRelyingParty() {
  const discovered = new Map<string, { at: number; configuration: Promise<oidc.Configuration> }>();

  function configuration(cacheKey: string, settings: OidcClientSettings) {
    const cached = discovered.get(cacheKey);
    if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.configuration;
    const issuer = new URL(settings.issuer);
    const configuration = oidc
      .discovery(
        issuer,
        settings.client_id,
        settings.client_secret,
        oidc.ClientSecretBasic(settings.client_secret),
        {
          timeout: IDP_TIMEOUT_SECONDS,
          // http only ever passes validation for a loopback issuer (a development or test IdP).
          execute: [
            ...(isLoopback(issuer) && issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : []),
            // Without it openid-client trusts the token endpoint's TLS alone for the ID token's signature.
            oidc.enableNonRepudiationChecks,
          ],
        },
      )
      .catch((error: unknown) => {
        discovered.delete(cacheKey);
        throw idpRefused(`discovery failed: ${(error as Error).message}`);
      });
    discovered.set(cacheKey, { at: Date.now(), configuration });
    return configuration;
  }

  return {
    async start(
      cacheKey: string,
      settings: OidcClientSettings,
      request: { redirectUri: string; state: string; extra?: Record<string, string> },
    ): Promise<StartedOidcLogin> {
      const config = await configuration(cacheKey, settings);
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: request.redirectUri,
        scope: settings.scopes.join(' '),
        response_type: 'code',
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state: request.state,
        nonce,
        ...request.extra,
      });
      return { url: url.href, codeVerifier, nonce };
    },

    async finish(
      cacheKey: string,
      settings: OidcClientSettings,
      response: { redirectUri: string; code: string; state: string; iss?: string | undefined },
      expected: { codeVerifier: string; nonce: string },
    ): Promise<OidcIdentity> {
      const config = await configuration(cacheKey, settings);
      const callback = new URL(response.redirectUri);
      callback.searchParams.set('code', response.code);
      callback.searchParams.set('state', response.state);
      if (response.iss !== undefined) callback.searchParams.set('iss', response.iss);
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(config, callback, {
          pkceCodeVerifier: expected.codeVerifier,
          expectedState: response.state,
          expectedNonce: expected.nonce,
          idTokenExpected: true,
        });
      } catch (error) {
        throw rejection(error);
      }
      const claims = tokens.claims();
      if (!claims) throw assertionInvalid('no ID token');
      return {
        subject: claims.sub,
        email: text(claims.email)?.toLowerCase(),
        emailVerified: claims.email_verified === true,
        name: text(claims.name),
        hostedDomain: text(claims.hd)?.toLowerCase(),
      };
    },
  };
}

/** The IdP refusing the code (expired, used, wrong verifier) differs from its answer failing our checks. */
function rejection(error: unknown) {
  if (error instanceof oidc.ResponseBodyError) return idpRefused(error.error);
  const message = error instanceof Error ? error.message : String(error);
  return assertionInvalid(message);
}

export type OidcRelyingParty = ReturnType<typeof createOidcRelyingParty>;
