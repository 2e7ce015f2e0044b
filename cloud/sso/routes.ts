import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { authStatus, Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { assertNoNul } from '../../shared/http/validation.ts';
import {
  type ClientContext,
  createRefreshTransport,
  LoginResultSchema,
  RefreshTransportHeadersSchema,
} from '../identity/index.ts';
import type { SignInFlow } from './flow.ts';
import { samlEndpoints } from './providers.ts';
import * as schemas from './schemas.ts';
import { spMetadata } from './sp-metadata.ts';

const tags = ['auth'];
const FORM_LIMIT_BYTES = 1024 * 1024;

export const baseUrlOf = (request: FastifyRequest, publicUrl: string | undefined) =>
  (publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');

const client = (
  request: FastifyRequest,
  device: { device_id?: string; device_fingerprint?: string },
): ClientContext => ({
  ipAddress: request.ip ?? null,
  userAgent: request.headers['user-agent'] ?? null,
  deviceId: device.device_id,
  deviceFingerprint: device.device_fingerprint,
});

/**
 * /v1/auth: social login, SSO provider discovery, the start of an SSO sign-in, its callback, and
 * our SAML service-provider endpoints (ACS and metadata).
 */
export async function ssoRoutes(
  app: FastifyInstance,
  opts: { flow: SignInFlow; publicUrl: string | undefined; refreshTtlSeconds: number },
) {
  const { flow } = opts;
  const transport = createRefreshTransport(opts.refreshTtlSeconds);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  // The IdP's browser POST to the ACS is a form; nothing else in this scope takes one.
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES },
    (_request, body, done) => {
      const fields = Object.fromEntries(new URLSearchParams(body as string));
      try {
        for (const value of Object.values(fields)) assertNoNul(value);
      } catch (error) {
        return done(error as Error);
      }
      done(null, fields);
    },
  );

  r.get(
    '/oauth/:provider',
    {
      schema: {
        tags,
        summary: 'Social login: redirects to the identity provider',
        description:
          'Providers come from OAUTH_PROVIDERS; redirect_uri must be one of OAUTH_REDIRECT_URIS. The provider sends the browser back to redirect_uri with code, state (and iss), which the client posts to POST /v1/auth/sso/callback. Only existing accounts with a verified e-mail sign in; tenant_slug picks the tenant when the account has several.',
        params: schemas.OauthParamsSchema,
        querystring: schemas.OauthQuerySchema,
        response: {
          302: Type.Null({ description: 'Location: the identity provider' }),
          ...errorResponses(400, 404, 502),
        },
      },
    },
    async (request, reply) => {
      const { redirect_uri, tenant_slug, shell } = request.query;
      const url = await flow.startSocial({
        providerId: request.params.provider,
        redirectUri: redirect_uri,
        tenantSlug: tenant_slug,
        shell,
      });
      return reply.header('cache-control', 'no-store').redirect(url, 302);
    },
  );

  r.get(
    '/sso/providers',
    {
      schema: {
        tags,
        summary: "A tenant's SSO providers, for its login page",
        description:
          'Enabled providers only; an unknown tenant has none. sso_required: passwords are refused.',
        querystring: schemas.ProvidersQuerySchema,
        response: { 200: Envelope(schemas.PublicProvidersSchema), ...errorResponses(400) },
      },
    },
    async (request) => envelope(request.id, await flow.providersFor(request.query.tenant_slug)),
  );

  r.post(
    '/sso/init',
    {
      schema: {
        tags,
        summary: 'Start an SSO sign-in',
        description:
          'Answers authorization_url: send the user there. OpenID Connect: the IdP returns the browser to redirect_uri with code, state and iss. SAML: the IdP posts to our ACS, which redirects to redirect_uri with code and state (or error). Either way the client then calls POST /v1/auth/sso/callback. redirect_uri must be registered on the provider.',
        body: schemas.InitSchema,
        response: { 200: Envelope(schemas.InitResultSchema), ...errorResponses(400, 403, 404, 502) },
      },
    },
    async (request) => {
      const { provider_id, shell, redirect_uri } = request.body;
      const baseUrl = baseUrlOf(request, opts.publicUrl);
      return envelope(
        request.id,
        await flow.start({ providerId: provider_id, shell, redirectUri: redirect_uri, baseUrl }),
      );
    },
  );

  r.post(
    '/sso/callback',
    {
      schema: {
        tags,
        summary: 'Finish an SSO or social sign-in: code and state for our token pair',
        description:
          'The login result, as POST /v1/auth/login answers it (mfa_required when the user has MFA). A state is good once and for SSO_LOGIN_TTL_SECONDS; PKCE, nonce, audience, issuer and signature are checked.',
        headers: RefreshTransportHeadersSchema,
        body: schemas.CallbackSchema,
        response: { 200: LoginResultSchema, ...errorResponses(400, 401, 403, 409, 429, 502) },
      },
    },
    async (request, reply) => {
      const { state, code, iss } = request.body;
      const result = await flow.complete({ state, code, iss }, client(request, request.body));
      return authStatus(request.id, transport.deliver(request, reply, result));
    },
  );

  r.post(
    '/sso/saml/:provider_id/acs',
    {
      schema: {
        tags,
        summary: 'SAML assertion consumer service (the IdP posts here)',
        description:
          'HTTP-POST binding. Checks the signed assertion (signature, audience, recipient, issuer, validity window, InResponseTo) and redirects (303) to the sign-in redirect_uri with code and state, or error=access_denied.',
        params: schemas.ProviderParamsSchema,
        body: schemas.AcsBodySchema,
        consumes: ['application/x-www-form-urlencoded'],
        response: {
          303: Type.Null({ description: 'Location: the client page' }),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const location = await flow.acceptSamlResponse({
        providerId: request.params.provider_id,
        samlResponse: request.body.SAMLResponse,
        relayState: request.body.RelayState,
        baseUrl: baseUrlOf(request, opts.publicUrl),
      });
      return reply.header('cache-control', 'no-store').redirect(location, 303);
    },
  );

  r.get(
    '/sso/saml/:provider_id/metadata',
    {
      schema: {
        tags,
        summary: 'Our SAML service-provider metadata for this provider (entity id, ACS)',
        params: schemas.ProviderParamsSchema,
        response: { 200: Type.String({ description: 'SAML metadata XML' }), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const endpoints = samlEndpoints(
        baseUrlOf(request, opts.publicUrl),
        await flow.samlProviderId(request.params.provider_id),
      );
      return reply.type('application/samlmetadata+xml').send(spMetadata(endpoints));
    },
  );
}
