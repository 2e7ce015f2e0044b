import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { authStatus, Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import {
  JwksSchema,
  LoginResultSchema,
  PinLoginSchema,
  pinCredentials,
} from '../../shared/identity/schemas.ts';
import { requireAuth } from './plugin.ts';
import type { StaffAuth } from './service.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });

/** The cloud's session fields that mean something on the appliance. */
export const ApplianceSessionSchema = Type.Object({
  session_id: Type.String({ format: 'uuid' }),
  user_id: Type.String(),
  tenant_id: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('ended')]),
  location_id: Nullable(Type.String()),
  created_at: Timestamp,
  expires_at: Timestamp,
  ended_at: Nullable(Timestamp),
});

export const StaffProfileSchema = Type.Object({
  id: Type.String(),
  tenant_id: Type.String(),
  email: Type.String(),
  username: Nullable(Type.String()),
  display_name: Type.String(),
  roles: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('active'), Type.Literal('disabled')]),
});

export const SignInStaffSchema = Type.Object(
  {
    items: Type.Array(
      Type.Object({
        id: Type.String(),
        display_name: Type.String(),
        identifier: Type.String({ description: 'what POST /v1/auth/login/pin takes as identifier' }),
        initials: Type.String(),
      }),
    ),
  },
  {
    description:
      'Active staff of this store who have a PIN, by display name. The identifier is the username, or the email when there is none.',
  },
);

const tags = ['auth'];

/** Staff login and sessions under /v1/auth, with the cloud's request and response shapes. */
export async function applianceAuthRoutes(app: FastifyInstance, { auth }: { auth: StaffAuth }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const signedIn = { onRequest: app.authenticate(), schema: { security: [{ bearer: [] }] } };

  r.get(
    '/staff',
    {
      schema: {
        tags,
        summary: 'The sign-in screen’s staff tiles; no token needed',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Envelope(SignInStaffSchema), ...errorResponses(400) },
      },
    },
    async (request) => envelope(request.id, { items: auth.signInStaff() }),
  );

  r.post(
    '/login/pin',
    {
      schema: {
        tags,
        summary: 'Staff PIN login for terminals, working with the cloud unreachable',
        body: PinLoginSchema,
        response: { 200: LoginResultSchema, ...errorResponses(400, 401, 403, 423, 429) },
      },
    },
    async (request) => {
      const { identifier, pin } = pinCredentials(request.body);
      const result = await auth.pinLogin({ identifier, pin, client: { ipAddress: request.ip ?? null } });
      return authStatus(request.id, result);
    },
  );

  r.delete(
    '/session',
    {
      ...signedIn,
      schema: {
        ...signedIn.schema,
        tags,
        summary: 'End the current session (log out)',
        response: { 200: Envelope(ApplianceSessionSchema), ...errorResponses(401, 409) },
      },
    },
    async (request) => envelope(request.id, auth.endSession(requireAuth(request).sessionId)),
  );

  r.get(
    '/me',
    {
      ...signedIn,
      schema: {
        ...signedIn.schema,
        tags,
        summary: 'The signed-in staff member',
        response: { 200: Envelope(StaffProfileSchema), ...errorResponses(401) },
      },
    },
    async (request) => envelope(request.id, auth.profile(requireAuth(request).userId)),
  );
}

/** The appliance's public key at the well-known path, outside /v1/auth. */
export async function applianceJwksRoutes(app: FastifyInstance, { auth }: { auth: StaffAuth }) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/.well-known/jwks.json',
    {
      schema: {
        tags,
        summary: 'Public key that verifies the appliance’s access tokens',
        response: { 200: JwksSchema },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=300');
      return auth.jwks();
    },
  );
}
