import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { requireAuth } from '../gateway/index.ts';
import { DEVICE_READER_ROLES } from './routes-devices.ts';
import * as schemas from './schemas.ts';
import type { DeviceService } from './service.ts';

/** /v1/iot: what devices report. */
export async function iotRoutes(app: FastifyInstance, { devices }: { devices: DeviceService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/devices/:device_id/telemetry',
    {
      onRequest: app.authenticate(DEVICE_READER_ROLES),
      schema: {
        tags: ['devices'],
        security: [{ bearer: [] }],
        summary: 'A device’s telemetry over a period: per-metric min, max, mean, last and points',
        params: schemas.DeviceParamsSchema,
        querystring: schemas.TelemetryQuerySchema,
        response: { 200: Envelope(schemas.TelemetrySchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await devices.telemetryFor(
          requireAuth(request).tenantId,
          request.params.device_id,
          request.query.period,
        ),
      ),
  );
}
