import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../../shared/http/envelope.ts';
import { ADMIN_ROLES, type ModelAccess, READER_ROLES } from './access.ts';
import * as schemas from './schemas.ts';
import type { FileUrl, VisionModelService } from './service.ts';

const doc = { tags: ['vision models'], security: [{ bearer: [] }] };

/** /v1/vision/edge/{edge_id}/models/sync: an edge appliance told which model versions to run. */
export async function syncRoutes(
  app: FastifyInstance,
  options: {
    models: VisionModelService;
    access: ModelAccess;
    /** The address appliances reach this cloud by; the request's own when unset. */
    publicUrl: string | undefined;
    /** Where the model routes live (the prefix both are registered under). */
    modelsPrefix: string;
  },
) {
  const { models, access } = options;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  const fileUrlFor =
    (request: FastifyRequest): FileUrl =>
    (modelId, version) => {
      // A public URL may carry a path (a proxy serving the cloud under /api): the routes go after it.
      const base = (options.publicUrl ?? `${request.protocol}://${request.host}`).replace(/\/+$/, '');
      const path = `${options.modelsPrefix}/models/${encodeURIComponent(modelId)}/versions/${encodeURIComponent(version)}/file`;
      return new URL(`${base}${path}`).href;
    };

  r.post(
    '/edge/:edge_id/models/sync',
    {
      onRequest: app.authenticate(ADMIN_ROLES),
      schema: {
        ...doc,
        summary: 'Send an edge appliance the model versions to install',
        description:
          'Queues a `models_sync` command for the appliance (its registry id), carried by the fleet link and kept while it is offline. Without a body every model with a deploy version is sent; `models` names some, a model without a version getting its deploy version. The appliance downloads each with its credential, checks its digest, loads it beside the running one and switches only when it runs, rolling back otherwise. 409 EDGE_NOT_MANAGED when the edge is not an enrolled appliance of the device registry.',
        params: schemas.EdgeParamsSchema,
        body: schemas.SyncBodySchema,
        response: {
          202: Envelope(schemas.SyncAcceptedSchema),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const accepted = await models.requestSync(
        access.tenantOf(request),
        request.params.edge_id,
        request.body,
        fileUrlFor(request),
      );
      reply.code(202);
      return envelope(request.id, accepted);
    },
  );

  r.get(
    '/edge/:edge_id/models/sync/:command_id',
    {
      onRequest: app.authenticate(READER_ROLES),
      schema: {
        ...doc,
        summary: 'A model sync’s state, download progress and per-model results',
        params: schemas.SyncParamsSchema,
        response: { 200: Envelope(schemas.SyncStateSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await models.syncState(access.tenantOf(request), request.params.edge_id, request.params.command_id),
      ),
  );
}
