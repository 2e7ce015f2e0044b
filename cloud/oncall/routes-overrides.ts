import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, onRequestHookHandler } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { requireAuth } from '../gateway/index.ts';
import { doc, NoContent, tenant } from './routes-support.ts';
import * as schemas from './schemas.ts';
import type { OncallService } from './service.ts';

/** /schedules/{id}/overrides: who covers a slot for a date range instead of the rotation. */
export async function overrideRoutes(
  app: FastifyInstance,
  { oncall, guard }: { oncall: OncallService; guard: { onRequest: onRequestHookHandler } },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const Override = Envelope(schemas.OverrideSchema);

  r.post(
    '/schedules/:schedule_id/overrides',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Override the rotation for a date range',
        description:
          'PTO coverage, a swap, an emergency or holiday cover: `person` takes `slot` from starts_at (inclusive) to ends_at (exclusive). Where overrides of a slot overlap, the latest created wins. 201 when created; 200 with the existing one when an identical override is already there (a retry).',
        params: schemas.ScheduleParamsSchema,
        body: schemas.NewOverrideSchema,
        response: { 200: Override, 201: Override, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { userId } = requireAuth(request);
      const result = await oncall.createOverride(
        tenant(request),
        request.params.schedule_id,
        request.body,
        userId,
      );
      reply.code(result.created ? 201 : 200);
      return envelope(request.id, result.override);
    },
  );

  r.get(
    '/schedules/:schedule_id/overrides',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'A schedule’s overrides, newest first',
        description: 'Those not yet over, unless include_ended=true.',
        params: schemas.ScheduleParamsSchema,
        querystring: schemas.OverrideListQuerySchema,
        response: { 200: PageEnvelope(schemas.OverrideSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { include_ended, limit, cursor } = request.query;
      const query = { includeEnded: include_ended, limit, cursor };
      const page = await oncall.listOverrides(tenant(request), request.params.schedule_id, query);
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.get(
    '/schedules/:schedule_id/overrides/:override_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One override',
        params: schemas.OverrideParamsSchema,
        response: { 200: Override, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { schedule_id, override_id } = request.params;
      return envelope(request.id, await oncall.getOverride(tenant(request), schedule_id, override_id));
    },
  );

  r.delete(
    '/schedules/:schedule_id/overrides/:override_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Remove an override',
        description: 'The rotation (or an older overlapping override) covers the range again.',
        params: schemas.OverrideParamsSchema,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { schedule_id, override_id } = request.params;
      await oncall.deleteOverride(tenant(request), schedule_id, override_id);
      return reply.code(204).send();
    },
  );
}
