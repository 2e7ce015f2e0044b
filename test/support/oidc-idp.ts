import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CryptoKey, decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';

/**
 * A real OpenID Connect provider (`oidc-provider`) on a loopback port, for tests of the relying party.
 * It plays the IdP end to end: discovery, JWKS, authorization with PKCE, token endpoint. Only the login
 * page is replaced: `authorize()` plays the browser and logs in as a given account.
 */

export interface OidcIdpClient {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  /** Enforced strictly by oidc-provider. openid-client sends client_secret_post unless given ClientSecretBasic. */
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post';
}

export interface OidcIdpAccount {
  email: string;
  email_verified?: boolean;
  name?: string;
}

export interface OidcIdpOptions {
  clients: OidcIdpClient[];
  /** Keyed by `sub`. */
  accounts: Record<string, OidcIdpAccount>;
  /** Authorization code lifetime; default 60. */
  codeTtlSeconds?: number;
}

export type IdTokenEdit = (claims: Record<string, unknown>) => Record<string, unknown>;

export interface OidcIdp {
  /** e.g. http://127.0.0.1:PORT */
  issuer: string;
  /**
   * Plays the browser: follows authorizationUrl through the IdP (login as `sub`, consent) carrying
   * cookies, and returns the final redirect to the client's redirect_uri (with code and state, or
   * error) without fetching it. An unknown `sub` comes back as error=access_denied.
   */
  authorize(authorizationUrl: string, sub: string): Promise<URL>;
  /**
   * While set, ID tokens from the token endpoint are rewritten by `edit` and re-signed with the IdP's
   * key (same kid). Pass undefined to stop.
   */
  tamperIdToken(edit: IdTokenEdit | undefined): void;
  close(): Promise<void>;
}

// oidc-provider ships no types: these cover the part of its API used here.
interface Grant {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(resource: string, scope: string): void;
  save(): Promise<string>;
}

interface Interaction {
  uid: string;
  params: Record<string, unknown>;
  prompt: { name: string; details: Record<string, unknown> };
  session?: { accountId: string };
  grantId?: string;
}

type InteractionResult =
  | { login: { accountId: string }; consent: { grantId: string } }
  | { error: string; error_description: string };

interface KoaContext {
  path: string;
  body: unknown;
}

interface Provider {
  Grant: {
    new (init: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  };
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: InteractionResult,
    options: { mergeWithLastSubmission: boolean },
  ): Promise<void>;
}

type ProviderClass = new (issuer: string, configuration: Record<string, unknown>) => Provider;

// A variable specifier keeps tsc from looking for the declarations oidc-provider does not have.
const OIDC_PROVIDER: string = 'oidc-provider';

const loadProvider = async () => ((await import(OIDC_PROVIDER)) as { default: ProviderClass }).default;

export async function startOidcIdp(options: OidcIdpOptions): Promise<OidcIdp> {
  const Provider = await loadProvider();
  const { privateKey, jwk } = await signingKey();
  const server = createServer();
  const issuer = await listen(server);
  const provider = new Provider(issuer, providerConfiguration(options, jwk));
  let tamper: IdTokenEdit | undefined;

  provider.use(async (ctx, next) => {
    await next();
    const body = ctx.body as { id_token?: unknown } | undefined;
    if (!tamper || ctx.path !== '/token' || typeof body?.id_token !== 'string') return;
    ctx.body = { ...body, id_token: await resign(body.id_token, tamper, privateKey) };
  });

  const providerCallback = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' && req.url?.startsWith('/interaction/')) {
      finishInteraction(provider, options.accounts, req, res).catch((error: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(String(error));
      });
      return;
    }
    providerCallback(req, res);
  });

  return {
    issuer,
    authorize: (authorizationUrl, sub) => playBrowser(issuer, authorizationUrl, sub),
    tamperIdToken: (edit) => {
      tamper = edit;
    },
    close: () => closeServer(server),
  };
}

async function signingKey() {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: randomUUID(), alg: 'RS256', use: 'sig' };
  return { privateKey, jwk };
}

function providerConfiguration(options: OidcIdpOptions, jwk: object): Record<string, unknown> {
  return {
    clients: options.clients.map((client) => ({
      token_endpoint_auth_method: 'client_secret_basic',
      ...client,
      response_types: ['code'],
      grant_types: ['authorization_code'],
    })),
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    scopes: ['openid', 'email', 'profile'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // Scope claims go into the ID token too, as the relying party reads email from it.
    conformIdTokenClaims: false,
    jwks: { keys: [jwk] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: Interaction) => `/interaction/${interaction.uid}` },
    ttl: {
      AuthorizationCode: options.codeTtlSeconds ?? 60,
      AccessToken: 600,
      IdToken: 600,
      Interaction: 600,
      Session: 600,
      Grant: 600,
    },
    adapter: createMemoryAdapter(),
    findAccount: (_ctx: unknown, sub: string) => findAccount(options.accounts, sub),
  };
}

async function findAccount(accounts: Record<string, OidcIdpAccount>, sub: string) {
  const account = accounts[sub];
  if (!account) return undefined;
  return {
    accountId: sub,
    claims: async () => ({ sub, ...account, email_verified: account.email_verified ?? true }),
  };
}

/** The login form's submission: logs in as the posted `sub` and grants what the client asked for. */
async function finishInteraction(
  provider: Provider,
  accounts: Record<string, OidcIdpAccount>,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const submitted = new URLSearchParams(await readBody(req)).get('sub') ?? '';
  const details = await provider.interactionDetails(req, res);
  const accountId = details.session?.accountId ?? submitted;
  const finish = (result: InteractionResult) =>
    provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
  if (!accounts[accountId]) {
    return finish({ error: 'access_denied', error_description: `no account ${accountId}` });
  }
  const grant =
    (details.grantId && (await provider.Grant.find(details.grantId))) ||
    new provider.Grant({ accountId, clientId: String(details.params.client_id) });
  grant.addOIDCScope(String(details.params.scope ?? 'openid'));
  const { missingOIDCClaims, missingResourceScopes } = details.prompt.details;
  if (Array.isArray(missingOIDCClaims)) grant.addOIDCClaims(missingOIDCClaims);
  for (const [resource, scopes] of Object.entries(missingResourceScopes ?? {})) {
    grant.addResourceScope(resource, (scopes as string[]).join(' '));
  }
  return finish({ login: { accountId }, consent: { grantId: await grant.save() } });
}

/** Follows the IdP's redirects with a cookie jar, submitting the login form as `sub` when shown it. */
async function playBrowser(issuer: string, authorizationUrl: string, sub: string): Promise<URL> {
  const origin = new URL(issuer).origin;
  const cookies = new Map<string, string>();
  let url = new URL(authorizationUrl);
  if (url.origin !== origin) throw new Error(`authorization URL ${url.href} is not on ${issuer}`);
  for (let hop = 0; hop < 10; hop++) {
    if (url.origin !== origin) return url;
    const login = url.pathname.startsWith('/interaction/');
    const response = await fetch(url, {
      method: login ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') },
      ...(login && { body: new URLSearchParams({ sub }) }),
    });
    keepCookies(cookies, response.headers.getSetCookie());
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      throw new Error(`IdP answered ${response.status} at ${url.pathname}: ${await response.text()}`);
    }
    url = new URL(location, url);
  }
  throw new Error('IdP redirected more than 10 times');
}

function keepCookies(jar: Map<string, string>, setCookies: string[]) {
  for (const setCookie of setCookies) {
    const [pair = '', ...attributes] = setCookie.split(';');
    const name = pair.slice(0, pair.indexOf('=')).trim();
    const value = pair.slice(pair.indexOf('=') + 1).trim();
    const expires = attributes.find((attribute) => attribute.trim().toLowerCase().startsWith('expires='));
    const expired = expires !== undefined && Date.parse(expires.split('=')[1] ?? '') <= Date.now();
    if (value === '' || expired) jar.delete(name);
    else jar.set(name, value);
  }
}

async function resign(idToken: string, edit: IdTokenEdit, key: CryptoKey) {
  const header = decodeProtectedHeader(idToken);
  const claims = edit({ ...decodeJwt(idToken) });
  return new SignJWT(claims).setProtectedHeader({ ...header, alg: 'RS256' }).sign(key);
}

/** Per-IdP storage, so IdPs in one process share nothing (oidc-provider's default store is global). */
function createMemoryAdapter() {
  type Payload = Record<string, unknown>;
  const records = new Map<string, Payload>();
  return (model: string) => {
    const key = (id: string) => `${model}:${id}`;
    const entries = () => [...records].filter(([stored]) => stored.startsWith(`${model}:`));
    return {
      upsert: async (id: string, payload: Payload) => void records.set(key(id), payload),
      find: async (id: string) => records.get(key(id)),
      findByUid: async (uid: string) => entries().find(([, payload]) => payload.uid === uid)?.[1],
      findByUserCode: async () => undefined,
      consume: async (id: string) => {
        const payload = records.get(key(id));
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id: string) => void records.delete(key(id)),
      revokeByGrantId: async (grantId: string) => {
        for (const [stored, payload] of records) if (payload.grantId === grantId) records.delete(stored);
      },
    };
  };
}

async function readBody(req: IncomingMessage) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

async function listen(server: Server) {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function closeServer(server: Server) {
  server.closeAllConnections();
  return new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
}
