import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { MANAGER_ROLES, type Role } from '../../shared/roles.ts';
import { requireAuth } from '../gateway/index.ts';
import * as schemas from './schemas.ts';
import type { Actor, IncidentService } from './service.ts';

/**
 * The spec names no roles for alerting and incidents: the people who answer a store's alert (its
 * managers) and the tenant's administrators read, raise, acknowledge and resolve them.
 */
export const INCIDENT_ROLES: readonly Role[] = MANAGER_ROLES;

const doc = { tags: ['incidents'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;
const actor = (request: FastifyRequest): Actor => ({
  userId: requireAuth(request).userId,
  ipAddress: request.ip,
});

/** /v1/incidents: the device form of the API, the list, and an incident's transitions. */
export async function incidentRoutes(app: FastifyInstance, { incidents }: { incidents: IncidentService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: app.authenticate(INCIDENT_ROLES) };
  const params = schemas.IncidentParamsSchema;
  const Incident = Envelope(schemas.IncidentSchema);

  r.post(
    '',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Raise an incident for a device (device form)',
        description:
          'Opens an incident (201). When the device already has an unresolved incident of this type, the alert is folded into it instead (200: one more occurrence).',
        body: schemas.NewDeviceIncidentSchema,
        response: { 200: Incident, 201: Incident, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const result = await incidents.createFromDevice(tenant(request), request.body, actor(request));
      reply.code(result.created ? 201 : 200);
      return envelope(request.id, result.incident);
    },
  );

  r.get(
    '',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The tenant’s incidents, newest first',
        querystring: schemas.IncidentListQuerySchema,
        response: { 200: PageEnvelope(schemas.IncidentSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { status, type, location_id, device_id, limit, cursor } = request.query;
      const filter = { status, type, locationId: location_id, deviceId: device_id };
      const page = await incidents.list(tenant(request), filter, { limit, cursor });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.get(
    '/:incident_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One incident',
        params,
        response: { 200: Incident, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await incidents.get(tenant(request), request.params.incident_id)),
  );

  r.post(
    '/:incident_id/acknowledge',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Acknowledge an open incident',
        description: 'open → acknowledged; 409 INVALID_INCIDENT_TRANSITION when it is not open.',
        params,
        response: { 200: Incident, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await incidents.acknowledge(tenant(request), request.params.incident_id, actor(request)),
      ),
  );

  r.post(
    '/:incident_id/resolve',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Resolve an incident',
        description:
          'open or acknowledged → resolved, for good; 409 INVALID_INCIDENT_TRANSITION when already resolved.',
        params,
        response: { 200: Incident, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await incidents.resolve(tenant(request), request.params.incident_id, actor(request)),
      ),
  );
}
