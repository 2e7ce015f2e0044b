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
import type { RunbookCatalog } from './runbooks.ts';
import * as schemas from './schemas.ts';

const doc = { tags: ['incidents'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;

/** /api/v1/incidents/runbooks: the tenant's runbook catalog (the match rule is in runbooks.ts). */
export async function runbookRoutes(app: FastifyInstance, { runbooks }: { runbooks: RunbookCatalog }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: app.authenticate(INCIDENT_ROLES) };
  const params = schemas.RunbookParamsSchema;
  const Runbook = Envelope(schemas.RunbookSchema);

  r.post(
    '',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Add a runbook to the catalog',
        description:
          'An incident gets its alert’s own runbook_url, else the catalog entry whose criteria (service, type, labels) all hold and that sets the most of them; an entry without criteria is the default.',
        body: schemas.RunbookBodySchema,
        response: { 201: Runbook, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, await runbooks.create(tenant(request), request.body));
    },
  );

  r.get(
    '',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The runbook catalog, oldest first',
        querystring: schemas.PageQuerySchema,
        response: { 200: PageEnvelope(schemas.RunbookSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const page = await runbooks.list(tenant(request), { limit, cursor });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.get(
    '/:runbook_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One runbook',
        params,
        response: { 200: Runbook, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await runbooks.get(tenant(request), request.params.runbook_id)),
  );

  r.put(
    '/:runbook_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Replace a runbook',
        params,
        body: schemas.RunbookBodySchema,
        response: { 200: Runbook, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await runbooks.replace(tenant(request), request.params.runbook_id, request.body)),
  );

  r.delete(
    '/:runbook_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Remove a runbook (incidents keep the url they were given)',
        params,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await runbooks.remove(tenant(request), request.params.runbook_id);
      return reply.code(204).send(null);
    },
  );
}
