import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../shared/clock.ts';
import { unixSeconds } from '../../shared/clock.ts';
import { errorResponses } from '../../shared/http/envelope.ts';
import { verifyFormB } from '../../shared/webhooks/signing.ts';
import { requireAuth } from '../gateway/index.ts';
import { CATALOGS } from './catalog.ts';
import * as schemas from './schemas.ts';
import type { Webhooks } from './service.ts';
import * as views from './views.ts';

const doc = { tags: ['webhooks (admin)'], security: [{ bearer: [] }] };
export const WEBHOOK_ADMIN_ROLES = ['platform_admin', 'system_admin', 'super_admin'] as const;
const DAY_MS = 86_400_000;

/** Spec document 1's admin webhook interface, under /api/v1/webhooks. */
export async function adminWebhookRoutes(
  app: FastifyInstance,
  { webhooks, clock }: { webhooks: Webhooks; clock: Clock },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { subscriptions, actions, reports } = webhooks;
  const admins = { onRequest: app.authenticate(WEBHOOK_ADMIN_ROLES) };
  const tenant = (request: { auth: unknown }) => requireAuth(request as never).tenantId;

  r.get(
    '',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Webhooks with their last 24 hours',
        querystring: schemas.PageQuerySchema,
        response: { 200: schemas.AdminListSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const tenantId = tenant(request);
      const { page, limit } = request.query;
      const { rows, total } = await subscriptions.list(tenantId, 'admin', {
        limit,
        offset: (page - 1) * limit,
      });
      const items = await Promise.all(
        rows.map(async (row) => views.adminListItem(row, await reports.summary(tenantId, row.id, DAY_MS))),
      );
      return { webhooks: items, total };
    },
  );

  r.post(
    '',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Create a webhook; its secret and signing key are shown this once',
        body: schemas.AdminCreateSchema,
        response: { 201: schemas.AdminCreatedSchema, ...errorResponses(400, 401, 403, 409, 429) },
      },
    },
    async (request, reply) => {
      const row = await subscriptions.create(tenant(request), 'admin', request.body);
      return reply.code(201).send(views.adminCreated(row));
    },
  );

  r.get(
    '/events',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'The admin event catalog',
        response: { 200: schemas.CatalogSchema, ...errorResponses(401, 403) },
      },
    },
    async () => ({
      events: CATALOGS.admin.map((category) => ({ ...category, events: [...category.events] })),
    }),
  );

  r.post(
    '/verify-signature',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Check a form B signature (sha256=<hex> over <timestamp>.<payload>, 300 s tolerance)',
        body: schemas.VerifySchema,
        response: { 200: schemas.VerifiedSchema, ...errorResponses(400, 401, 403, 429) },
      },
    },
    async (request) => verifyFormB({ ...request.body, nowSeconds: unixSeconds(clock.now()) }),
  );

  r.get(
    '/deliveries/:delivery_id',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'One delivery: its request, the endpoint’s response and timing (last attempt)',
        params: schemas.DeliveryIdParamsSchema,
        response: { 200: schemas.DeliveryDetailSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const { row, url, last } = await reports.delivery(tenant(request), request.params.delivery_id);
      return views.deliveryDetail(row, url, last);
    },
  );

  r.post(
    '/deliveries/:delivery_id/retry',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Send a failed delivery again, as a new pending delivery linked to it',
        params: schemas.DeliveryIdParamsSchema,
        response: { 202: schemas.RetriedSchema, ...errorResponses(401, 403, 404, 409, 429) },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await actions.retry(tenant(request), 'admin', request.params.delivery_id)),
  );

  await app.register(adminWebhookItemRoutes, { webhooks });
}

/** Routes of one webhook, /api/v1/webhooks/{webhook_id}/... */
async function adminWebhookItemRoutes(app: FastifyInstance, { webhooks }: { webhooks: Webhooks }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const { subscriptions, actions, reports } = webhooks;
  const admins = { onRequest: app.authenticate(WEBHOOK_ADMIN_ROLES) };
  const params = schemas.WebhookIdParamsSchema;
  const tenant = (request: { auth: unknown }) => requireAuth(request as never).tenantId;

  r.get(
    '/:webhook_id',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'One webhook with all-time stats',
        params,
        response: { 200: schemas.AdminDetailSchema, ...errorResponses(401, 403, 404) },
      },
    },
    async (request) => {
      const tenantId = tenant(request);
      const row = await subscriptions.get(tenantId, 'admin', request.params.webhook_id);
      return views.adminDetail(row, await reports.summary(tenantId, row.id));
    },
  );

  r.put(
    '/:webhook_id',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Change a webhook (settings are merged field by field)',
        params,
        body: schemas.AdminUpdateSchema,
        response: { 200: schemas.AdminDetailSchema, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const tenantId = tenant(request);
      const row = await subscriptions.update(tenantId, 'admin', request.params.webhook_id, request.body);
      return views.adminDetail(row, await reports.summary(tenantId, row.id));
    },
  );

  r.delete(
    '/:webhook_id',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Delete a webhook; what it still had to send is dropped',
        params,
        response: { 204: { type: 'null' }, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request, reply) => {
      await subscriptions.remove(tenant(request), 'admin', request.params.webhook_id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/:webhook_id/rotate-secret',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'New secret; the old one stays valid until old_secret_valid_until',
        description:
          'The new secret signs X-Service-Signature at once; until old_secret_valid_until the old one ' +
          'signs X-Service-Signature-Previous (the same sha256=<hex> form), so a receiver holding either verifies.',
        params,
        response: { 200: schemas.RotatedSchema, ...errorResponses(401, 403, 404, 429) },
      },
    },
    async (request) => subscriptions.rotateSecret(tenant(request), 'admin', request.params.webhook_id),
  );

  r.post(
    '/:webhook_id/enable',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Re-enable a disabled webhook, replaying what it missed when asked',
        params,
        body: schemas.EnableSchema,
        response: { 200: schemas.EnabledSchema, ...errorResponses(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) =>
      actions.enable(tenant(request), 'admin', request.params.webhook_id, request.body.replay ?? false),
  );

  r.get(
    '/:webhook_id/deliveries',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Deliveries, newest first',
        params,
        querystring: schemas.DeliveryQuerySchema,
        response: { 200: schemas.DeliveryPageSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { page, limit, ...filter } = request.query;
      const { rows, total } = await reports.deliveries(
        tenant(request),
        'admin',
        request.params.webhook_id,
        filter,
        {
          page,
          limit,
        },
      );
      return { deliveries: rows.map(views.deliveryListItem), pagination: { total, page, limit } };
    },
  );

  r.post(
    '/:webhook_id/test',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Send a sample event now and answer with the endpoint’s response',
        params,
        body: schemas.AdminTestSchema,
        response: { 200: schemas.TestResultSchema, ...errorResponses(400, 401, 403, 404, 429) },
      },
    },
    async (request) => actions.test(tenant(request), 'admin', request.params.webhook_id, request.body),
  );

  r.get(
    '/:webhook_id/logs',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'What happened to the webhook and each attempt, newest first',
        params,
        querystring: schemas.LogQuerySchema,
        response: { 200: schemas.LogsSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { lifecycle, attempts } = await reports.logs(
        tenant(request),
        request.params.webhook_id,
        request.query,
      );
      return { logs: views.logLines(lifecycle, attempts, request.query.limit) };
    },
  );

  r.get(
    '/:webhook_id/stats',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Delivery statistics over the last hour, day, week or month',
        params,
        querystring: schemas.StatsQuerySchema,
        response: { 200: schemas.StatsSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => reports.stats(tenant(request), request.params.webhook_id, request.query.period),
  );
}
