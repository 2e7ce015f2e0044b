import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { requireAuth } from '../gateway/index.ts';
import { INCIDENT_ROLES } from './routes.ts';
import { runbookRoutes } from './routes-runbooks.ts';
import * as schemas from './schemas.ts';
import type { Actor, IncidentService } from './service.ts';

const doc = { tags: ['incidents'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;
const actor = (request: FastifyRequest): Actor => ({
  userId: requireAuth(request).userId,
  ipAddress: request.ip,
});

/** /api/v1/incidents: the title form, the full record, its timeline and the runbook catalog. */
export async function incidentApiRoutes(app: FastifyInstance, { incidents }: { incidents: IncidentService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: app.authenticate(INCIDENT_ROLES) };
  const params = schemas.IncidentParamsSchema;
  const Incident = Envelope(schemas.IncidentRecordSchema);

  await app.register(runbookRoutes, { prefix: '/runbooks', runbooks: incidents.runbooks });

  r.post(
    '',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Open an incident',
        description:
          'Opens an incident (201) and starts its timeline. Without a runbook_url the best runbook of the tenant’s catalog for the service is attached.',
        body: schemas.NewIncidentSchema,
        response: { 201: Incident, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, await incidents.create(tenant(request), request.body, actor(request)));
    },
  );

  r.get(
    '',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The tenant’s incidents, newest first',
        querystring: schemas.IncidentApiListQuerySchema,
        response: { 200: PageEnvelope(schemas.IncidentRecordSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { status, severity, service, limit, cursor } = request.query;
      const page = await incidents.list(tenant(request), { status, severity, service }, { limit, cursor });
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

  r.get(
    '/:incident_id/timeline',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The incident’s timeline, oldest first',
        params,
        querystring: schemas.TimelineQuerySchema,
        response: { 200: PageEnvelope(schemas.TimelineEntrySchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const page = await incidents.timeline(tenant(request), request.params.incident_id, { limit, cursor });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.post(
    '/:incident_id/timeline',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Add a note to the timeline',
        params,
        body: schemas.NoteSchema,
        response: { 201: Envelope(schemas.TimelineEntrySchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { incident_id } = request.params;
      const entry = await incidents.addNote(tenant(request), incident_id, request.body.text, actor(request));
      reply.code(201);
      return envelope(request.id, entry);
    },
  );

  for (const action of ['acknowledge', 'resolve'] as const) {
    r.post(
      `/:incident_id/${action}`,
      {
        ...guard,
        schema: {
          ...doc,
          summary: action === 'acknowledge' ? 'Acknowledge an open incident' : 'Resolve an incident',
          description:
            action === 'acknowledge'
              ? 'open → acknowledged; 409 INVALID_INCIDENT_TRANSITION when it is not open. The note goes on the timeline.'
              : 'open or acknowledged → resolved, for good; 409 INVALID_INCIDENT_TRANSITION when already resolved.',
          params,
          body: Type.Optional(schemas.TransitionBodySchema),
          response: { 200: Incident, ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request) => {
        const { incident_id } = request.params;
        const note = request.body?.note;
        return envelope(
          request.id,
          await incidents[action](tenant(request), incident_id, actor(request), note),
        );
      },
    );
  }
}
