import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { ConflictError, ForbiddenError } from '../../shared/http/errors.ts';
import { PLATFORM_ADMIN_ROLES } from '../../shared/roles.ts';
import { type AuthContext, requireAuth } from '../gateway/index.ts';
import type { CloudServices } from '../services.ts';
import * as schemas from './schemas.ts';
import type { MemberPatch } from './service.ts';

const doc = { tags: ['platform'], security: [{ bearer: [] }] };

/**
 * system_admin is the platform operator's role: whoever holds it reaches every tenant through
 * /tenants. A tenant's own admins must not be able to hand it out, or any tenant_admin could make
 * themselves the operator.
 */
function guardGrant(auth: AuthContext, roles: string[] | undefined) {
  if (roles?.includes('system_admin') && !auth.roles.includes('system_admin'))
    throw new ForbiddenError('Only a system_admin may grant the system_admin role');
}

const withdrawsAccess = (patch: MemberPatch) => patch.roles !== undefined || patch.status === 'suspended';

/** An admin who suspends or removes themselves may leave the tenant with nobody to administer it. */
function guardSelf(auth: AuthContext, userId: string, patch: MemberPatch | undefined) {
  if (auth.userId !== userId) return;
  if (patch && patch.status !== 'suspended' && patch.roles === undefined) return;
  throw new ConflictError(
    'Admins cannot suspend, remove or change the roles of their own account',
    'SELF_LOCKOUT',
  );
}

/** Users of the tenant (memberships and their roles) and the tenant's audit trail. */
export async function userRoutes(app: FastifyInstance, { services }: { services: CloudServices }) {
  const { tenancy, identity, audit } = services;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const admins = { onRequest: app.authenticate(PLATFORM_ADMIN_ROLES) };

  // Access tokens carry the roles and stay valid for an hour; ending the user's sessions in this
  // tenant makes a role change, suspension or removal bite at once: the guard refuses any token of
  // an ended session on its next request, and its refresh token no longer works either.
  const endAccess = (tenantId: string, userId: string) =>
    identity.sessions.endAllFor(tenantId, userId, 'access_changed');

  r.get(
    '/users',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'The tenant’s users and their roles',
        querystring: schemas.PageQuerySchema,
        response: { 200: PageEnvelope(schemas.MemberSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await tenancy.listMembers(requireAuth(request).tenantId, schemas.toPage(request.query));
      return pageEnvelope(request.id, page.items, request.query.limit, page.nextCursor);
    },
  );

  r.post(
    '/users',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Add a user to the tenant (a new account, or an existing one by email)',
        body: schemas.NewUserSchema,
        response: { 201: Envelope(schemas.MemberSchema), ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      guardGrant(auth, request.body.roles);
      reply.code(201);
      return envelope(request.id, await tenancy.addUser(auth.tenantId, request.body));
    },
  );

  r.get(
    '/users/:user_id',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'One user of the tenant',
        params: schemas.UserParamsSchema,
        response: { 200: Envelope(schemas.MemberSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await tenancy.getMember(requireAuth(request).tenantId, request.params.user_id)),
  );

  r.patch(
    '/users/:user_id',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Change a user’s roles, status, names or credentials',
        params: schemas.UserParamsSchema,
        body: schemas.UserPatchSchema,
        response: { 200: Envelope(schemas.MemberSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      guardGrant(auth, request.body.roles);
      guardSelf(auth, request.params.user_id, request.body);
      const member = await tenancy.updateMember(auth.tenantId, request.params.user_id, request.body);
      if (withdrawsAccess(request.body)) await endAccess(auth.tenantId, member.id);
      return envelope(request.id, member);
    },
  );

  r.delete(
    '/users/:user_id',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Remove a user from the tenant (the account stays for its other tenants)',
        params: schemas.UserParamsSchema,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const auth = requireAuth(request);
      guardSelf(auth, request.params.user_id, undefined);
      await tenancy.removeMember(auth.tenantId, request.params.user_id);
      await endAccess(auth.tenantId, request.params.user_id);
      reply.code(204);
    },
  );

  r.get(
    '/audit-events',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'The tenant’s audit trail, newest first',
        querystring: schemas.AuditQuerySchema,
        response: { 200: PageEnvelope(schemas.AuditEventSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await audit.page(requireAuth(request).tenantId, request.query);
      return pageEnvelope(request.id, page.items, request.query.limit, page.nextCursor);
    },
  );
}
