import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { requireAuth } from '../gateway/index.ts';
import * as schemas from './schemas.ts';
import type { Webhooks } from './service.ts';
import * as views from './views.ts';

const doc = { tags: ['webhooks'], security: [{ bearer: [] }] };
/** The spec names no roles here: a tenant's administrators manage its integrations. */
export const WEBHOOK_SUBSCRIBER_ROLES = [
  'tenant_admin',
  'platform_admin',
  'system_admin',
  'super_admin',
] as const;

/** A page's cursor is its number; no cursor is the first page. */
const pageOf = (cursor: string | undefined) => (cursor === undefined ? 1 : Number(cursor));

/** Spec document 1's subscription interface, under /v1/webhooks, in the general envelope. */
export async function subscriptionWebhookRoutes(app: FastifyInstance, { webhooks }: { webhooks: Webhooks }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { subscriptions, actions, reports } = webhooks;
  const guard = { onRequest: app.authenticate(WEBHOOK_SUBSCRIBER_ROLES) };
  const params = schemas.WebhookIdParamsSchema;
  const tenant = (request: { auth: unknown }) => requireAuth(request as never).tenantId;
  const Subscription = Envelope(schemas.SubscriptionSchema);

  r.get(
    '',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Subscriptions',
        querystring: schemas.CursorQuerySchema,
        response: { 200: PageEnvelope(schemas.SubscriptionSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit } = request.query;
      const page = pageOf(request.query.cursor);
      const { rows, total } = await subscriptions.list(tenant(request), 'subscription', {
        limit,
        offset: (page - 1) * limit,
      });
      const next = page * limit < total ? String(page + 1) : null;
      return pageEnvelope(request.id, rows.map(views.subscription), limit, next);
    },
  );

  r.post(
    '',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Subscribe a URL to events (form A envelope and signature)',
        body: schemas.SubscriptionCreateSchema,
        response: { 201: Subscription, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const row = await subscriptions.create(tenant(request), 'subscription', request.body);
      return reply.code(201).send(envelope(request.id, views.subscription(row)));
    },
  );

  r.get(
    '/:webhook_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One subscription',
        params,
        response: { 200: Subscription, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        views.subscription(
          await subscriptions.get(tenant(request), 'subscription', request.params.webhook_id),
        ),
      ),
  );

  r.patch(
    '/:webhook_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Change the URL or the events',
        params,
        body: schemas.SubscriptionUpdateSchema,
        response: { 200: Subscription, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const row = await subscriptions.update(
        tenant(request),
        'subscription',
        request.params.webhook_id,
        request.body,
      );
      return envelope(request.id, views.subscription(row));
    },
  );

  r.delete(
    '/:webhook_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Unsubscribe',
        params,
        response: { 204: { type: 'null' }, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await subscriptions.remove(tenant(request), 'subscription', request.params.webhook_id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/:webhook_id/test',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Send a sample event of this type now; answers with the endpoint’s response',
        params,
        body: schemas.SubscriptionTestSchema,
        response: { 200: Envelope(schemas.TestResultSchema), ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await actions.test(tenant(request), 'subscription', request.params.webhook_id, {
          event: request.body.event_type,
        }),
      ),
  );

  r.post(
    '/:webhook_id/enable',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Re-enable a disabled subscription, replaying what it missed when asked',
        params,
        body: schemas.EnableSchema,
        response: { 200: Envelope(schemas.EnabledSchema), ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await actions.enable(
          tenant(request),
          'subscription',
          request.params.webhook_id,
          request.body.replay ?? false,
        ),
      ),
  );

  r.post(
    '/:webhook_id/rotate-secret',
    {
      ...guard,
      schema: {
        ...doc,
        summary:
          'New secret; the old one keeps signing (a second v1 in the header) until old_secret_valid_until',
        params,
        response: { 200: Envelope(schemas.RotatedSchema), ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await subscriptions.rotateSecret(tenant(request), 'subscription', request.params.webhook_id),
      ),
  );

  r.get(
    '/:webhook_id/deliveries',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Deliveries, newest first',
        params,
        querystring: schemas.CursorQuerySchema,
        response: {
          200: PageEnvelope(schemas.SubscriptionDeliverySchema),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => {
      const { limit } = request.query;
      const page = pageOf(request.query.cursor);
      const { rows, total } = await reports.deliveries(
        tenant(request),
        'subscription',
        request.params.webhook_id,
        {},
        {
          page,
          limit,
        },
      );
      const next = page * limit < total ? String(page + 1) : null;
      return pageEnvelope(request.id, rows.map(views.subscriptionDelivery), limit, next);
    },
  );
}
