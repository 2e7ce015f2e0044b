import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { requireAuth } from '../gateway/index.ts';
import { INCIDENT_ROLES } from '../incidents/index.ts';
import * as schemas from './schemas.ts';
import type { NotifyService } from './service.ts';

const doc = { tags: ['alerting'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;

/** /api/v1/alerting/notifications and /notification-settings: delivery outcomes and channel settings. */
export async function notifyRoutes(app: FastifyInstance, { notify }: { notify: NotifyService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: app.authenticate(INCIDENT_ROLES) };
  const Settings = Envelope(schemas.NotificationSettingsSchema);

  r.get(
    '/notifications',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The tenant’s alert notifications, newest first, each with every attempt’s outcome',
        querystring: schemas.NotificationListQuerySchema,
        response: { 200: PageEnvelope(schemas.NotificationSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { alert_id, status, channel, limit, cursor } = request.query;
      const page = await notify.list(
        tenant(request),
        { alertId: alert_id, status, channel },
        { limit, cursor },
      );
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.get(
    '/notifications/:notification_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One notification with every attempt’s outcome',
        params: schemas.NotificationParamsSchema,
        response: { 200: Envelope(schemas.NotificationSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await notify.get(tenant(request), request.params.notification_id)),
  );

  r.get(
    '/notification-settings',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The tenant’s notification settings (defaults until first saved)',
        response: { 200: Settings, ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, await notify.settings(tenant(request))),
  );

  r.put(
    '/notification-settings',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Replace the tenant’s notification settings',
        description:
          'Fields left out take their defaults: no team chat URL, the deployment’s sender, every channel enabled. The team chat URL must be a public http(s) address.',
        body: schemas.NotificationSettingsBodySchema,
        response: { 200: Settings, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request.id, await notify.saveSettings(tenant(request), request.body)),
  );
}
