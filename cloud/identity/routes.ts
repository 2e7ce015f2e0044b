import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authStatus, Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { JwksSchema, PinLoginSchema, pinCredentials } from '../../shared/identity/schemas.ts';
import { requireAuth } from '../gateway/index.ts';
import { createRefreshTransport, RefreshTransportHeadersSchema as headers } from './cookie.ts';
import type { Identity } from './index.ts';
import * as schemas from './schemas.ts';
import type { ClientContext } from './sessions.ts';

const client = (
  request: FastifyRequest,
  device: { device_id?: string; device_name?: string; device_fingerprint?: string } = {},
): ClientContext => ({
  ipAddress: request.ip ?? null,
  userAgent: request.headers['user-agent'] ?? null,
  deviceId: device.device_id,
  deviceName: device.device_name,
  deviceFingerprint: device.device_fingerprint,
});

const tags = ['auth'];
const loginResponses = { 200: schemas.LoginResultSchema, ...errorResponses(400, 401, 403, 423, 429) };

export interface IdentityRoutesOptions {
  identity: Identity;
  /** How long a refresh token lives: the cookie that carries one lives as long. */
  refreshTtlSeconds: number;
}

export async function identityRoutes(app: FastifyInstance, opts: IdentityRoutesOptions) {
  const { identity } = opts;
  const transport = createRefreshTransport(opts.refreshTtlSeconds);
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const signedIn = { onRequest: app.authenticate(), schema: { security: [{ bearer: [] }] } };

  r.post(
    '/login',
    {
      schema: {
        tags,
        summary: 'Log in with email and password',
        headers,
        body: schemas.PasswordLoginSchema,
        response: loginResponses,
      },
    },
    async (request, reply) => {
      const { email, password, tenant_slug } = request.body;
      const result = await identity.login.login({
        method: 'password',
        identifier: email,
        secret: password,
        tenantSlug: tenant_slug,
        client: client(request, request.body),
      });
      return authStatus(request.id, transport.deliver(request, reply, result));
    },
  );

  r.post(
    '/login/pin',
    {
      schema: {
        tags,
        summary: 'Staff PIN login for terminals',
        headers,
        body: PinLoginSchema,
        response: loginResponses,
      },
    },
    async (request, reply) => {
      const { identifier, pin } = pinCredentials(request.body);
      const { tenant_slug, location_id } = request.body;
      const result = await identity.login.login({
        method: 'pin',
        identifier,
        secret: pin,
        tenantSlug: tenant_slug,
        locationId: location_id,
        client: client(request, request.body),
      });
      return authStatus(request.id, transport.deliver(request, reply, result));
    },
  );

  r.post(
    '/mfa/verify',
    {
      schema: {
        tags,
        summary: 'Answer an MFA challenge with a TOTP code',
        headers,
        body: schemas.MfaVerifySchema,
        response: { 200: schemas.TokensResultSchema, ...errorResponses(400, 401, 403, 423, 429) },
      },
    },
    async (request, reply) => {
      const result = await identity.login.verifyMfa(request.body.challenge_id, request.body.code, request.ip);
      return authStatus(request.id, transport.deliver(request, reply, result));
    },
  );

  r.post(
    '/refresh',
    {
      schema: {
        tags,
        summary: 'Exchange a refresh token for a new pair (rotation)',
        description:
          'With X-Refresh-Token-Transport: cookie the body may be left out: the refresh_token cookie is spent, and the new one is set in its place.',
        headers,
        body: schemas.RefreshSchema,
        response: { 200: schemas.TokensResultSchema, ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const token = transport.tokenOf(request, request.body.refresh_token);
      const result = await identity.sessions.refresh(token, request.ip);
      return authStatus(request.id, transport.deliver(request, reply, result));
    },
  );

  r.get(
    '/session',
    {
      ...signedIn,
      schema: {
        ...signedIn.schema,
        tags,
        summary: 'The current session',
        response: { 200: Envelope(schemas.SessionSchema), ...errorResponses(401) },
      },
    },
    async (request) => envelope(request.id, await identity.sessions.current(requireAuth(request).sessionId)),
  );

  r.post(
    '/session',
    {
      ...signedIn,
      schema: {
        ...signedIn.schema,
        tags,
        summary: 'Create another session for the caller (another device or tenant)',
        headers,
        body: Type.Optional(schemas.ForkSessionSchema),
        response: { 201: schemas.TokensResultSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const body = request.body ?? {};
      const result = await identity.sessions.fork(requireAuth(request).sessionId, {
        tenantSlug: body.tenant_slug,
        client: client(request, body),
      });
      reply.code(201);
      return authStatus(request.id, transport.deliver(request, reply, result));
    },
  );

  const endSession = async (request: FastifyRequest, reply: FastifyReply) => {
    const ended = await identity.sessions.end(requireAuth(request).sessionId, 'logout');
    transport.clear(request, reply);
    return envelope(request.id, ended);
  };
  const endSchema = {
    ...signedIn.schema,
    tags,
    headers,
    response: { 200: Envelope(schemas.SessionSchema), ...errorResponses(401) },
  };
  r.delete(
    '/session',
    { ...signedIn, schema: { ...endSchema, summary: 'End the current session' } },
    endSession,
  );
  r.post(
    '/logout',
    { ...signedIn, schema: { ...endSchema, summary: 'Log out: end the current session' } },
    endSession,
  );

  r.get(
    '/me',
    {
      ...signedIn,
      schema: {
        ...signedIn.schema,
        tags,
        summary: 'The caller’s profile in the current tenant',
        response: { 200: Envelope(schemas.ProfileSchema), ...errorResponses(401) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return envelope(request.id, await identity.profile(auth.tenantId, auth.userId));
    },
  );

  r.get(
    '/mfa/factors',
    {
      ...signedIn,
      schema: {
        ...signedIn.schema,
        tags,
        summary: 'The caller’s MFA factors',
        response: { 200: Envelope(Type.Array(schemas.FactorSchema)), ...errorResponses(401) },
      },
    },
    async (request) => envelope(request.id, await identity.mfa.list(requireAuth(request).userId)),
  );

  r.post(
    '/mfa/factors',
    {
      ...signedIn,
      schema: {
        ...signedIn.schema,
        tags,
        summary: 'Enroll a TOTP factor (enabled by its first code)',
        body: Type.Optional(schemas.EnrollSchema),
        response: { 201: Envelope(schemas.EnrolledFactorSchema), ...errorResponses(400, 401) },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      reply.code(201);
      return envelope(
        request.id,
        await identity.mfa.enroll(auth.userId, auth.email, request.body?.label ?? 'Authenticator app'),
      );
    },
  );

  r.post(
    '/mfa/factors/:factor_id/activate',
    {
      ...signedIn,
      schema: {
        ...signedIn.schema,
        tags,
        summary: 'Enable an enrolled factor with a current code',
        params: schemas.FactorParamsSchema,
        body: schemas.CodeBodySchema,
        response: { 200: Envelope(schemas.FactorSchema), ...errorResponses(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      return envelope(
        request.id,
        await identity.mfa.activate(auth.userId, auth.tenantId, request.params.factor_id, request.body.code),
      );
    },
  );

  r.delete(
    '/mfa/factors/:factor_id',
    {
      ...signedIn,
      schema: {
        ...signedIn.schema,
        tags,
        summary: 'Remove a factor (a current code is required when it is enabled)',
        params: schemas.FactorParamsSchema,
        body: Type.Optional(schemas.OptionalCodeBodySchema),
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      await identity.mfa.remove(auth.userId, auth.tenantId, request.params.factor_id, request.body?.code);
      reply.code(204);
    },
  );

  jwksRoute(app, '/jwks', identity);
}

/** The public key set, served at /.well-known/jwks.json and /v1/auth/jwks alike. */
function jwksRoute(app: FastifyInstance, url: string, identity: Identity) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    url,
    {
      schema: {
        tags,
        summary: 'Public keys that verify access tokens',
        response: { 200: JwksSchema },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return identity.keys.jwks();
    },
  );
}

/** The well-known JWKS path lives outside /v1/auth. */
export async function wellKnownRoutes(app: FastifyInstance, { identity }: { identity: Identity }) {
  jwksRoute(app, '/.well-known/jwks.json', identity);
}
