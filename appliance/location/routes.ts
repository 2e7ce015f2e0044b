import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { MANAGER_ROLES } from '../../shared/roles.ts';
import * as schemas from './schemas.ts';
import type { LocationService } from './service.ts';

const doc = { tags: ['location'], security: [{ bearer: [] }] };
const settings = Envelope(schemas.LocationSchema);

/** This store's settings: any staff member reads them; managers change its status and hours. */
export async function locationRoutes(app: FastifyInstance, { location }: { location: LocationService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };

  r.get(
    '/location',
    {
      onRequest: app.authenticate(),
      schema: {
        ...doc,
        summary: 'This store’s settings, status and opening hours',
        response: { 200: settings, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, location.get()),
  );

  r.put(
    '/location/status',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Open or close the store (managers only)',
        body: schemas.StatusSchema,
        response: { 200: settings, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, location.setStatus(request.body.status)),
  );

  r.put(
    '/location/hours',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Replace the weekly opening hours; a day left out is closed (managers only)',
        body: schemas.HoursSchema,
        response: { 200: settings, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, location.setHours(request.body.hours)),
  );
}
