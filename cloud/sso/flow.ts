import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { ClientContext, LoginService } from '../identity/index.ts';
import type { TenancyService } from '../tenancy/index.ts';
import type { AccountLinker, AssertedIdentity } from './accounts.ts';
import type { SsoConfig } from './config.ts';
import * as errors from './errors.ts';
import type { OidcRelyingParty } from './oidc.ts';
import type { SsoPolicies } from './policy.ts';
import { providerSettings, samlEndpoints } from './providers.ts';
import { createSamlClient, SamlRejected } from './saml.ts';
import type { SsoStore } from './store.ts';
import {
  type OidcSettings,
  protocolOf,
  type SamlSettings,
  type SsoLoginRow,
  type SsoProviderRow,
} from './tables.ts';

export interface FlowDeps {
  store: SsoStore;
  tenancy: TenancyService;
  login: LoginService;
  accounts: AccountLinker;
  policies: SsoPolicies;
  oidc: OidcRelyingParty;
  config: SsoConfig;
  clock: Clock;
  log: Logger;
}

const randomToken = () => randomBytes(32).toString('base64url');
const sha256 = (value: string) => createHash('sha256').update(value).digest();
const SOCIAL = 'social:';

/**
 * Sign-in through an identity provider, in two legs. Start: we remember the state with what the
 * return must prove (PKCE verifier, nonce, SAML request id) and send the client to the IdP. Return:
 * the client posts the code and state it got at its redirect URI; we check them, redeem the code
 * and open a session. For SAML the IdP posts to our ACS, which checks the assertion and hands the
 * client a one-time code of ours, so both protocols end in the same callback.
 */
export function createSignInFlow(deps: FlowDeps) {
  const { store, clock } = deps;

  async function remember(
    row: Omit<SsoLoginRow, 'created_at' | 'expires_at' | 'consumed_at' | 'saml_identity' | 'saml_code_hash'>,
  ) {
    const now = clock.now();
    const expiresAt = new Date(now.getTime() + deps.config.loginTtlSeconds * 1000).toISOString();
    await store.pruneLogins(new Date(now.getTime() - 3600_000).toISOString());
    await store.insertLogin({
      ...row,
      created_at: now.toISOString(),
      expires_at: expiresAt,
      consumed_at: null,
      saml_identity: null,
      saml_code_hash: null,
    });
    return expiresAt;
  }

  async function enabledProvider(providerId: string) {
    const provider = await store.providerById(providerId);
    if (!provider) throw errors.providerNotFound();
    if (provider.enabled !== 1) throw errors.providerDisabled();
    const tenant = await deps.tenancy.getTenant(provider.tenant_id);
    return { provider, tenant };
  }

  /** A live, unredeemed sign-in, or the one answer for every way it is not. */
  async function pendingLogin(state: string) {
    const login = await store.login(state);
    if (!login || login.consumed_at !== null || login.expires_at <= clock.now().toISOString())
      throw errors.loginInvalid();
    return login;
  }

  const oidcKey = (provider: SsoProviderRow) => `${provider.id}:${provider.updated_at}`;

  async function finishOidc(
    login: SsoLoginRow,
    provider: SsoProviderRow | undefined,
    response: { code: string; iss?: string | undefined },
  ) {
    const social = provider
      ? undefined
      : deps.config.socialProviders.find((p) => `${SOCIAL}${p.id}` === login.provider_key);
    const settings = provider
      ? providerSettings<OidcSettings>(provider)
      : social && { ...social, scopes: ['openid', 'email', 'profile'] };
    if (!settings) throw errors.loginInvalid();
    const identity = await deps.oidc.finish(
      provider ? oidcKey(provider) : login.provider_key,
      settings,
      { redirectUri: login.redirect_uri, code: response.code, state: login.state, iss: response.iss },
      { codeVerifier: login.code_verifier ?? '', nonce: login.nonce ?? '' },
    );
    if (provider?.kind === 'google_workspace') checkHostedDomain(provider, identity.hostedDomain);
    return identity;
  }

  function checkHostedDomain(provider: SsoProviderRow, hostedDomain: string | undefined) {
    const domains = JSON.parse(provider.allowed_domains) as string[];
    // A Workspace account outside the allowed organisations has no hd, or another one.
    if (domains.length > 0 && (!hostedDomain || !domains.includes(hostedDomain)))
      throw errors.domainNotAllowed();
  }

  function samlIdentity(login: SsoLoginRow, code: string): AssertedIdentity {
    if (!login.saml_identity || !login.saml_code_hash) throw errors.loginInvalid();
    const expected = Buffer.from(login.saml_code_hash, 'hex');
    if (!timingSafeEqual(sha256(code), expected)) throw errors.loginInvalid();
    return JSON.parse(login.saml_identity) as AssertedIdentity;
  }

  function samlClient(provider: SsoProviderRow, baseUrl: string) {
    const settings = providerSettings<SamlSettings>(provider);
    const sp = samlEndpoints(baseUrl, provider.id);
    return createSamlClient(
      {
        entryPoint: settings.entry_point,
        idpIssuer: settings.idp_issuer,
        idpCertificate: settings.idp_certificate,
      },
      { entityId: sp.sp_entity_id, acsUrl: sp.acs_url },
    );
  }

  const withParams = (uri: string, params: Record<string, string>) => {
    const url = new URL(uri);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.href;
  };

  return {
    /** A SAML provider's id (its metadata is public, as an IdP administrator fetches it). */
    async samlProviderId(providerId: string) {
      const provider = await store.providerById(providerId);
      if (!provider || protocolOf(provider.kind) !== 'saml') throw errors.providerNotFound();
      return provider.id;
    },

    /** The login page's question: which buttons to show for this tenant. Unknown tenant: none. */
    async providersFor(tenantSlug: string) {
      const tenant = await deps.tenancy.tenantBySlug(tenantSlug);
      if (tenant?.status !== 'active') return { tenant_slug: tenantSlug, sso_required: false, providers: [] };
      const providers = (await store.providers(tenant.id)).filter((p) => p.enabled === 1);
      const policy = await deps.policies.get(tenant.id);
      return {
        tenant_slug: tenantSlug,
        sso_required: policy.require_sso,
        providers: providers.map((p) => ({
          id: p.id,
          kind: p.kind,
          protocol: protocolOf(p.kind),
          name: p.name,
        })),
      };
    },

    async start(input: { providerId: string; shell: string; redirectUri: string; baseUrl: string }) {
      const { provider } = await enabledProvider(input.providerId);
      if (!(JSON.parse(provider.redirect_uris) as string[]).includes(input.redirectUri))
        throw errors.redirectUriNotAllowed('body.redirect_uri');
      const state = randomToken();
      const base = {
        state,
        tenant_id: provider.tenant_id,
        tenant_slug: null,
        provider_key: provider.id,
        redirect_uri: input.redirectUri,
        shell: input.shell,
      };
      if (protocolOf(provider.kind) === 'saml') {
        const { url, requestId } = await samlClient(provider, input.baseUrl).authorizationUrl(state);
        const expiresAt = await remember({
          ...base,
          code_verifier: null,
          nonce: null,
          saml_request_id: requestId,
        });
        return { authorization_url: url, state, expires_at: expiresAt };
      }
      const settings = providerSettings<OidcSettings>(provider);
      const domains = JSON.parse(provider.allowed_domains) as string[];
      // Google shows only accounts of that Workspace domain; the ID token's hd is still checked.
      const extra: Record<string, string> =
        provider.kind === 'google_workspace' && domains.length === 1 ? { hd: domains[0]! } : {};
      const started = await deps.oidc.start(oidcKey(provider), settings, {
        redirectUri: input.redirectUri,
        state,
        extra,
      });
      const expiresAt = await remember({
        ...base,
        code_verifier: started.codeVerifier,
        nonce: started.nonce,
        saml_request_id: null,
      });
      return { authorization_url: started.url, state, expires_at: expiresAt };
    },

    /** GET /v1/auth/oauth/:provider: the platform's social login; answers the URL to redirect to. */
    async startSocial(input: {
      providerId: string;
      redirectUri: string;
      tenantSlug?: string | undefined;
      shell?: string | undefined;
    }) {
      const social = deps.config.socialProviders.find((p) => p.id === input.providerId);
      if (!social) throw errors.socialProviderNotFound();
      if (!deps.config.socialRedirectUris.includes(input.redirectUri))
        throw errors.redirectUriNotAllowed('querystring.redirect_uri');
      const state = randomToken();
      const key = `${SOCIAL}${social.id}`;
      const settings = { ...social, scopes: ['openid', 'email', 'profile'] };
      const started = await deps.oidc.start(key, settings, { redirectUri: input.redirectUri, state });
      await remember({
        state,
        tenant_id: null,
        // A social login names its tenant by slug, or signs in to the account's only one.
        tenant_slug: input.tenantSlug ?? null,
        provider_key: key,
        redirect_uri: input.redirectUri,
        shell: input.shell ?? null,
        code_verifier: started.codeVerifier,
        nonce: started.nonce,
        saml_request_id: null,
      });
      return started.url;
    },

    /** The IdP's POST to our ACS: answers where to send the browser (the client's page, with a code or an error). */
    async acceptSamlResponse(input: {
      providerId: string;
      samlResponse: string;
      relayState: string;
      baseUrl: string;
    }) {
      const login = await pendingLogin(input.relayState);
      if (login.provider_key !== input.providerId || login.saml_request_id === null)
        throw errors.loginInvalid();
      const { provider } = await enabledProvider(input.providerId);
      let identity: AssertedIdentity;
      try {
        const asserted = await samlClient(provider, input.baseUrl).validate(input.samlResponse);
        // Unsolicited or replayed into another sign-in: the assertion must answer this request.
        if (asserted.inResponseTo !== login.saml_request_id)
          throw new SamlRejected('in_response_to_mismatch', 'InResponseTo does not match the request');
        identity = {
          subject: asserted.nameId,
          email: asserted.email?.toLowerCase(),
          emailVerified: asserted.email !== undefined,
          name: asserted.displayName,
        };
      } catch (error) {
        if (!(error instanceof SamlRejected)) throw error;
        deps.log.warn(
          { provider_id: provider.id, reason: error.reason, err: error },
          'SAML response refused',
        );
        await store.consumeLogin(login.state, clock.now().toISOString());
        return withParams(login.redirect_uri, {
          error: 'access_denied',
          error_description: `assertion refused: ${error.reason}`,
          state: login.state,
        });
      }
      const code = randomToken();
      if (!(await store.assertLogin(login.state, JSON.stringify(identity), sha256(code).toString('hex'))))
        throw errors.loginInvalid();
      return withParams(login.redirect_uri, { code, state: login.state });
    },

    /** The return leg of every protocol: the code and state the client got; answers a login result. */
    async complete(input: { state: string; code: string; iss?: string | undefined }, client: ClientContext) {
      const login = await pendingLogin(input.state);
      const social = login.provider_key.startsWith(SOCIAL);
      const provider = social ? undefined : await store.providerById(login.provider_key);
      if (!social && provider?.enabled !== 1) throw errors.loginInvalid();
      const asserted =
        provider && protocolOf(provider.kind) === 'saml' ? samlIdentity(login, input.code) : undefined;
      // One redemption per sign-in, even if two arrive at once on two replicas.
      if (!(await store.consumeLogin(login.state, clock.now().toISOString()))) throw errors.loginInvalid();
      const identity = asserted ?? (await finishOidc(login, provider, input));
      const sessionClient = { ...client, deviceName: client.deviceName ?? login.shell ?? undefined };
      if (!provider) {
        const user = await deps.accounts.forSocialProvider(login.provider_key.slice(SOCIAL.length), identity);
        return deps.login.external(
          user,
          { tenantSlug: login.tenant_slug ?? undefined },
          'oauth',
          sessionClient,
        );
      }
      const user = await deps.accounts.forTenantProvider(provider, identity);
      const tenant = await deps.tenancy.getTenant(provider.tenant_id);
      return deps.login.external(user, { tenantSlug: tenant.slug }, 'sso', sessionClient);
    },
  };
}

export type SignInFlow = ReturnType<typeof createSignInFlow>;
