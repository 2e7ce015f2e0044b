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
import { PLATFORM_ADMIN_ROLES } from '../../shared/roles.ts';
import { requireAuth } from '../gateway/index.ts';
import type { CloudServices } from '../services.ts';
import * as schemas from './schemas.ts';
import type { GroupKind } from './store.ts';

const doc = { tags: ['platform'], security: [{ bearer: [] }] };

/** The caller's own tenant, and the operator's directory of all tenants. */
async function tenantRoutes(app: FastifyInstance, { tenancy, identity }: CloudServices) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const admins = { onRequest: app.authenticate(PLATFORM_ADMIN_ROLES) };
  // The platform operator's endpoints: the only ones that read or change a tenant other than the
  // caller's, so they admit system_admin alone.
  const operators = { onRequest: app.authenticate(['system_admin']) };

  r.get(
    '/tenant',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'The caller’s tenant',
        response: { 200: Envelope(schemas.TenantSchema), ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await tenancy.getTenant(requireAuth(request).tenantId)),
  );

  r.patch(
    '/tenant',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Rename the caller’s tenant',
        body: schemas.RenameTenantSchema,
        response: { 200: Envelope(schemas.TenantSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await tenancy.updateTenant(requireAuth(request).tenantId, { name: request.body.name }),
      ),
  );

  r.get(
    '/tenants',
    {
      ...operators,
      schema: {
        ...doc,
        summary: 'Every tenant (platform operator only)',
        querystring: schemas.PageQuerySchema,
        response: { 200: PageEnvelope(schemas.TenantSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await tenancy.listTenants(schemas.toPage(request.query));
      return pageEnvelope(request.id, page.items, request.query.limit, page.nextCursor);
    },
  );

  r.post(
    '/tenants',
    {
      ...operators,
      schema: {
        ...doc,
        summary: 'Create a tenant (platform operator only)',
        body: schemas.NewTenantSchema,
        response: { 201: Envelope(schemas.TenantSchema), ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, await tenancy.createTenant(request.body));
    },
  );

  r.patch(
    '/tenants/:tenant_id',
    {
      ...operators,
      schema: {
        ...doc,
        summary: 'Rename a tenant, change its tier or suspend it (platform operator only)',
        params: schemas.TenantParamsSchema,
        body: schemas.TenantPatchSchema,
        response: { 200: Envelope(schemas.TenantSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const tenant = await tenancy.updateTenant(request.params.tenant_id, request.body);
      // A suspended tenant's people are out now, not when their access tokens run out.
      if (tenant.status === 'suspended')
        await identity.sessions.endAllInTenant(tenant.id, 'tenant_suspended');
      return envelope(request.id, tenant);
    },
  );
}

/** Brands and regions have the same routes; only the path and the id parameter's name differ. */
async function groupRoutes(
  app: FastifyInstance,
  { tenancy }: CloudServices,
  kind: GroupKind,
  param: 'brand_id' | 'region_id',
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const admins = { onRequest: app.authenticate(PLATFORM_ADMIN_ROLES) };
  const noun = kind === 'brands' ? 'brand' : 'region';
  const params = Type.Object({ [param]: Type.String({ format: 'uuid' }) });
  // The params schema requires the parameter, so it is always there once validation passed.
  const idOf = (request: { params: Record<string, string> }) => request.params[param]!;

  r.get(
    `/${kind}`,
    {
      ...admins,
      schema: {
        ...doc,
        summary: `The tenant’s ${kind}`,
        querystring: schemas.PageQuerySchema,
        response: { 200: PageEnvelope(schemas.GroupSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await tenancy.listGroups(
        kind,
        requireAuth(request).tenantId,
        schemas.toPage(request.query),
      );
      return pageEnvelope(request.id, page.items, request.query.limit, page.nextCursor);
    },
  );

  r.post(
    `/${kind}`,
    {
      ...admins,
      schema: {
        ...doc,
        summary: `Create a ${noun}`,
        body: schemas.GroupBodySchema,
        response: { 201: Envelope(schemas.GroupSchema), ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(
        request.id,
        await tenancy.createGroup(kind, requireAuth(request).tenantId, request.body.name),
      );
    },
  );

  r.get(
    `/${kind}/:${param}`,
    {
      ...admins,
      schema: {
        ...doc,
        summary: `One ${noun}`,
        params,
        response: { 200: Envelope(schemas.GroupSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await tenancy.getGroup(kind, requireAuth(request).tenantId, idOf(request))),
  );

  r.patch(
    `/${kind}/:${param}`,
    {
      ...admins,
      schema: {
        ...doc,
        summary: `Rename a ${noun}`,
        params,
        body: schemas.GroupBodySchema,
        response: { 200: Envelope(schemas.GroupSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await tenancy.renameGroup(kind, requireAuth(request).tenantId, idOf(request), request.body.name),
      ),
  );

  r.delete(
    `/${kind}/:${param}`,
    {
      ...admins,
      schema: {
        ...doc,
        summary: `Delete a ${noun} no location uses`,
        params,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await tenancy.deleteGroup(kind, requireAuth(request).tenantId, idOf(request));
      reply.code(204);
    },
  );
}

async function locationRoutes(app: FastifyInstance, { tenancy }: CloudServices) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const admins = { onRequest: app.authenticate(PLATFORM_ADMIN_ROLES) };

  r.get(
    '/locations',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'The tenant’s locations, optionally of one brand or region',
        querystring: schemas.LocationQuerySchema,
        response: { 200: PageEnvelope(schemas.LocationSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { brand_id, region_id } = request.query;
      const page = await tenancy.listLocations(requireAuth(request).tenantId, schemas.toPage(request.query), {
        brandId: brand_id,
        regionId: region_id,
      });
      return pageEnvelope(request.id, page.items, request.query.limit, page.nextCursor);
    },
  );

  r.post(
    '/locations',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Create a location in one of the tenant’s brands and regions',
        body: schemas.NewLocationSchema,
        response: { 201: Envelope(schemas.LocationSchema), ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, await tenancy.createLocation(requireAuth(request).tenantId, request.body));
    },
  );

  r.get(
    '/locations/:location_id',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'One location',
        params: schemas.LocationParamsSchema,
        response: { 200: Envelope(schemas.LocationSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await tenancy.getLocation(requireAuth(request).tenantId, request.params.location_id),
      ),
  );

  r.patch(
    '/locations/:location_id',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Change a location: name, brand, region, time zone, address or status',
        params: schemas.LocationParamsSchema,
        body: schemas.LocationPatchSchema,
        response: { 200: Envelope(schemas.LocationSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await tenancy.updateLocation(requireAuth(request).tenantId, request.params.location_id, request.body),
      ),
  );
}

/** The tenant itself and its structure: brands, regions, locations. */
export async function structureRoutes(app: FastifyInstance, { services }: { services: CloudServices }) {
  await tenantRoutes(app, services);
  await groupRoutes(app, services, 'brands', 'brand_id');
  await groupRoutes(app, services, 'regions', 'region_id');
  await locationRoutes(app, services);
}
