import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { INCIDENT_ROLES } from '../incidents/index.ts';
import { overrideRoutes } from './routes-overrides.ts';
import { doc, NoContent, tenant } from './routes-support.ts';
import * as schemas from './schemas.ts';
import type { OncallService } from './service.ts';

/**
 * /api/v1/oncall: GET /schedule/{team}, and the schedules and overrides behind it (the API
 * leaves their endpoints "not shown"; the console manages them). Managers and admins, as alerting.
 */
export async function oncallRoutes(app: FastifyInstance, { oncall }: { oncall: OncallService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: app.authenticate(INCIDENT_ROLES) };
  const Schedule = Envelope(schemas.ScheduleSchema);
  const params = schemas.ScheduleParamsSchema;

  r.get(
    '/schedule/:team',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Who is on call for a team',
        description:
          'Primary and secondary now (or at `at`), with overrides applied, and next_rotation: the next instant either changes. 404 TEAM_NOT_FOUND for a team without a schedule.',
        params: schemas.TeamParamsSchema,
        querystring: schemas.OnCallQuerySchema,
        response: { 200: Envelope(schemas.OnCallSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const at = request.query.at === undefined ? undefined : new Date(request.query.at);
      return envelope(request.id, await oncall.onCall(tenant(request), request.params.team, at));
    },
  );

  r.post(
    '/schedules',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Create a team’s on-call schedule',
        description:
          'weekly (7-day shifts), daily (24-hour), custom (shift_hours) rotate `participants` at handoff_time local; follow_the_sun hands over between `regions`. 409 TEAM_EXISTS when the team has one.',
        body: schemas.NewScheduleSchema,
        response: { 201: Schedule, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, await oncall.createSchedule(tenant(request), request.body));
    },
  );

  r.get(
    '/schedules',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The tenant’s on-call schedules, by team name',
        querystring: schemas.ScheduleListQuerySchema,
        response: { 200: PageEnvelope(schemas.ScheduleSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, cursor } = request.query;
      const page = await oncall.listSchedules(tenant(request), { limit, cursor });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.get(
    '/schedules/:schedule_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One on-call schedule',
        params,
        response: { 200: Schedule, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await oncall.getSchedule(tenant(request), request.params.schedule_id)),
  );

  r.patch(
    '/schedules/:schedule_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Change an on-call schedule',
        description:
          'Any subset of the create fields; the result is validated as a whole. Changing the type drops the fields the new type does not take. Overrides stay.',
        params,
        body: schemas.SchedulePatchSchema,
        response: { 200: Schedule, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await oncall.updateSchedule(tenant(request), request.params.schedule_id, request.body),
      ),
  );

  r.delete(
    '/schedules/:schedule_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Delete an on-call schedule and its overrides',
        params,
        response: { 204: NoContent, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await oncall.deleteSchedule(tenant(request), request.params.schedule_id);
      return reply.code(204).send();
    },
  );

  await app.register(overrideRoutes, { oncall, guard });
}
