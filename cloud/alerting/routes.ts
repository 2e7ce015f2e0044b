import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { requireAuth } from '../gateway/index.ts';
import { INCIDENT_ROLES } from '../incidents/index.ts';
import { settingsRoutes } from './routes-settings.ts';
import { voiceRoutes } from './routes-voice.ts';
import * as schemas from './schemas.ts';
import type { AlertingService } from './service.ts';

const doc = { tags: ['alerting'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;

/** Under /api/v1: the alerts and the alerting settings (policies, maintenance windows). */
export async function alertingRoutes(app: FastifyInstance, { alerting }: { alerting: AlertingService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: app.authenticate(INCIDENT_ROLES) };
  const params = schemas.AlertParamsSchema;
  const Alert = Envelope(schemas.AlertSchema);

  r.post(
    '/alerts/ingest',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Ingest an alert from any source',
        description:
          'Opens an alert (201) and notifies level 1 of its policy on the severity’s channels. A repeat of the fingerprint (source, service, title, labels) while the alert is firing or acknowledged updates it instead (200: occurrences, last_seen_at, description). After resolution the next ingest opens a new alert.',
        body: schemas.IngestSchema,
        response: { 200: Alert, 201: Alert, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const result = await alerting.ingest(tenant(request), request.body);
      reply.code(result.created ? 201 : 200);
      return envelope(request.id, result.alert);
    },
  );

  r.get(
    '/alerts',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The tenant’s alerts, newest first',
        description:
          'status: active (firing, the default), acknowledged, resolved or all. Keyset pages: pass next_cursor as cursor.',
        querystring: schemas.AlertListQuerySchema,
        response: { 200: Envelope(schemas.AlertListSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { status, limit, cursor } = request.query;
      return envelope(request.id, await alerting.list(tenant(request), status, { limit, cursor }));
    },
  );

  r.get(
    '/alerts/:alert_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One alert',
        params,
        response: { 200: Alert, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await alerting.require(tenant(request), request.params.alert_id)),
  );

  r.post(
    '/alerts/:alert_id/acknowledge',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Acknowledge a firing alert',
        description:
          'firing → acknowledged: sets acknowledged_by, stores the note, stops escalation. 409 INVALID_ALERT_TRANSITION otherwise.',
        params,
        body: schemas.AcknowledgeSchema,
        response: { 200: Alert, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await alerting.acknowledge(
          tenant(request),
          request.params.alert_id,
          request.body.user_id,
          request.body.note,
        ),
      ),
  );

  r.post(
    '/alerts/:alert_id/resolve',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Resolve an alert',
        description:
          'firing or acknowledged → resolved, for good: escalation stops, and the next ingest of the fingerprint opens a new alert. resolved_by is user_id, else the caller. 409 INVALID_ALERT_TRANSITION when already resolved.',
        params,
        body: schemas.ResolveSchema,
        response: { 200: Alert, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      const by = body.user_id ?? requireAuth(request).userId;
      return envelope(
        request.id,
        await alerting.resolve(tenant(request), request.params.alert_id, by, body.note),
      );
    },
  );

  await settingsRoutes(app, { settings: alerting.settings });
  await voiceRoutes(app, { keypress: alerting.voiceKeypress });
}
