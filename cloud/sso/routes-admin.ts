import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { PLATFORM_ADMIN_ROLES } from '../../shared/roles.ts';
import { requireAuth } from '../gateway/index.ts';
import type { Sso } from './index.ts';
import { baseUrlOf } from './routes.ts';
import * as schemas from './schemas.ts';

const NoContent = { type: 'null', description: 'No content' } as const;
const doc = { tags: ['sso'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;
const Provider = Envelope(schemas.ProviderSchema);

/** /v1/platform/sso: a tenant's identity providers and whether its users must use them. */
export async function ssoAdminRoutes(app: FastifyInstance, { sso }: { sso: Sso }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: app.authenticate(PLATFORM_ADMIN_ROLES) };
  const base = (request: FastifyRequest) => baseUrlOf(request, sso.publicUrl);

  r.get(
    '/providers',
    {
      ...guard,
      schema: {
        ...doc,
        summary: "The tenant's SSO providers",
        response: { 200: Envelope(Type.Array(schemas.ProviderSchema)), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, await sso.providers.list(tenant(request), base(request))),
  );

  r.post(
    '/providers',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Add an SSO provider',
        description:
          'google_workspace, azure_ad and okta take oidc {issuer, client_id, client_secret, scopes}; saml takes saml {entry_point, idp_issuer, idp_certificate} and answers the sp_entity_id and acs_url to register at the IdP. The client secret is write-only. 409 SSO_PROVIDER_EXISTS for a name in use.',
        body: schemas.NewProviderSchema,
        response: { 201: Provider, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, await sso.providers.create(tenant(request), request.body, base(request)));
    },
  );

  r.get(
    '/providers/:provider_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One SSO provider',
        params: schemas.ProviderParamsSchema,
        response: { 200: Provider, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await sso.providers.get(tenant(request), request.params.provider_id, base(request)),
      ),
  );

  r.patch(
    '/providers/:provider_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Change an SSO provider',
        description:
          'Any field but kind; oidc and saml take the fields to change. Sign-ins in flight finish with the settings they started with only if those still hold.',
        params: schemas.ProviderParamsSchema,
        body: schemas.ProviderPatchSchema,
        response: { 200: Provider, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await sso.providers.update(tenant(request), request.params.provider_id, request.body, base(request)),
      ),
  );

  r.delete(
    '/providers/:provider_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Remove an SSO provider',
        params: schemas.ProviderParamsSchema,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await sso.providers.remove(tenant(request), request.params.provider_id);
      return reply.code(204).send();
    },
  );

  r.get(
    '/policy',
    {
      ...guard,
      schema: {
        ...doc,
        summary: "The tenant's SSO policy",
        response: { 200: Envelope(schemas.PolicySchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, await sso.policies.get(tenant(request))),
  );

  r.put(
    '/policy',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Require SSO (or stop requiring it)',
        description:
          'require_sso: password and social logins are refused with 403 SSO_REQUIRED, except for bypass_roles (default tenant_admin, so a broken IdP cannot lock the tenant out). Staff PINs on store terminals keep working.',
        body: schemas.PolicyPatchSchema,
        response: { 200: Envelope(schemas.PolicySchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request.id, await sso.policies.set(tenant(request), request.body)),
  );
}
