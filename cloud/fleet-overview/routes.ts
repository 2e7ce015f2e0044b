import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
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
import * as schemas from './schemas.ts';
import type { FleetOverview } from './service.ts';

/** Those who may read both every store's sync status and the tenant's locations. */
export const FLEET_READER_ROLES = PLATFORM_ADMIN_ROLES;

const doc = { tags: ['fleet'], security: [{ bearer: [] }] };
const ROLES_NOTE = `Roles: ${FLEET_READER_ROLES.join(', ')}.`;

/** /v1/fleet: the tenant's stores with their live state, for a fleet console. */
export async function fleetOverviewRoutes(app: FastifyInstance, { overview }: { overview: FleetOverview }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const readers = { onRequest: app.authenticate(FLEET_READER_ROLES) };

  r.get(
    '/stores',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'Every store of the tenant with its live state, a page at a time',
        description: `Each store (location) of the caller's tenant with what the cloud knows of it now: sync contact, queue and lag, the day's changes and conflicts, devices and certificates in MDM, cameras, the appliance's version. Filters combine; pages run in creation order, up to ${schemas.MAX_PAGE} stores each. ${ROLES_NOTE}`,
        querystring: schemas.StoreQuerySchema,
        response: { 200: PageEnvelope(schemas.StoreSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await overview.list(requireAuth(request).tenantId, request.query);
      return pageEnvelope(request.id, page.items, request.query.limit, page.nextCursor);
    },
  );

  r.get(
    '/stores/:location_id',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'One store with its live state',
        description: `The list's fields for one store, with its address, its status in the tenant and how far it has pulled the cloud's changes. 404 LOCATION_NOT_FOUND for a store not in the caller's tenant. ${ROLES_NOTE}`,
        params: schemas.StoreParamsSchema,
        response: { 200: Envelope(schemas.StoreDetailSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await overview.get(requireAuth(request).tenantId, request.params.location_id)),
  );
}
