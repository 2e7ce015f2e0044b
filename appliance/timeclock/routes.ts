import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { MANAGER_ROLES } from '../../shared/roles.ts';
import { requireAuth } from '../auth/index.ts';
import type { DaySources } from './day.ts';
import * as schemas from './schemas.ts';
import type { TimeClockService } from './service.ts';

export interface TimeClockRoutesOptions {
  timeclock: TimeClockService;
  /** The store's business day, for a day's punches. */
  location: DaySources['calendar'];
  /** Staff names, for a day's punches: the auth module owns staff. */
  auth: DaySources['names'];
}

const doc = { tags: ['timeclock'], security: [{ bearer: [] }] };
const punch = Envelope(schemas.PunchSchema);

/** Staff punch for themselves; managers see everyone's day and correct punches. */
export async function timeClockRoutes(
  app: FastifyInstance,
  { timeclock, location, auth }: TimeClockRoutesOptions,
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const staff = { onRequest: app.authenticate() };
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };

  r.post(
    '/timeclock/punches',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Clock in or out, or start or end a break, as the signed-in staff member',
        body: schemas.NewPunchSchema,
        response: { 201: punch, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const { userId } = requireAuth(request);
      const created = timeclock.punch(userId, request.body.kind, request.body.note);
      reply.code(201);
      return envelope(request.id, created);
    },
  );

  r.get(
    '/timeclock/me',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'The signed-in staff member’s shift state and punches in force',
        response: { 200: Envelope(schemas.ShiftSchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => {
      const { userId } = requireAuth(request);
      return envelope(request.id, { state: timeclock.state(userId), punches: timeclock.punches(userId) });
    },
  );

  r.get(
    '/timeclock/punches',
    {
      ...managers,
      schema: {
        ...doc,
        summary:
          'Every staff member’s punches of a business day, with shift state and time worked (managers only)',
        querystring: schemas.DayQuerySchema,
        response: { 200: Envelope(schemas.StaffDaySchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) =>
      envelope(request.id, timeclock.day(request.query.business_day, { calendar: location, names: auth })),
  );

  r.post(
    '/timeclock/punches/:punch_id/correct',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Move a punch in time, saying why (managers only)',
        params: schemas.PunchParamsSchema,
        body: schemas.CorrectionSchema,
        response: { 200: punch, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { userId } = requireAuth(request);
      // An edit of the punch in place: the same id, its version one higher.
      return envelope(
        request.id,
        timeclock.correct(request.params.punch_id, { ...request.body, managerId: userId }),
      );
    },
  );
}
