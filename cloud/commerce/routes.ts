import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { MANAGER_ROLES, PLATFORM_ADMIN_ROLES } from '../../shared/roles.ts';
import { requireAuth } from '../gateway/index.ts';
import * as s from './schemas.ts';
import type { CommerceService, Viewer } from './service.ts';

const doc = { tags: ['commerce'], security: [{ bearer: [] }] };

/**
 * The asker's tenant, and the one store a store-bound session may see; admins of the tenant
 * see every store whatever their session names.
 */
function viewerOf(request: FastifyRequest): Viewer {
  const auth = requireAuth(request);
  const admin = auth.roles.some((role) => PLATFORM_ADMIN_ROLES.includes(role as never));
  return { tenantId: auth.tenantId, locationId: admin ? undefined : (auth.locationId ?? undefined) };
}

/** Head office's window onto the stores' orders and payments, under /v1/commerce. */
export async function commerceRoutes(app: FastifyInstance, { commerce }: { commerce: CommerceService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };

  r.get(
    '/orders',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Orders across the tenant’s stores, newest first, with filters',
        querystring: s.OrderListQuerySchema,
        response: { 200: Envelope(s.OrderPageSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request.id, await commerce.listOrders(viewerOf(request), request.query)),
  );

  r.get(
    '/orders/:id',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'One order of any store of the tenant, with its items and payments',
        params: s.OrderParamsSchema,
        response: { 200: Envelope(s.OrderDetailSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await commerce.getOrder(viewerOf(request), request.params.id)),
  );

  r.post(
    '/orders/:id/cancel',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Void an order from head office; the store applies it at its next sync',
        description:
          'The store’s own rule applies: an order that is completed or already cancelled cannot be ' +
          'cancelled (409 INVALID_ORDER_STATE). The cloud’s row changes at once; the store follows on ' +
          'its next pull, closes the order’s kitchen tickets and sends order.cancelled. Payments are ' +
          'not refunded by a void: refund them with POST /v1/commerce/payments/{id}/refund.',
        params: s.OrderParamsSchema,
        response: { 200: Envelope(s.OrderDetailSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => envelope(request.id, await commerce.cancelOrder(viewerOf(request), request.params.id)),
  );

  r.post(
    '/payments/:id/refund',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Refund part or all of a captured payment from head office',
        description:
          'Never more than the payment has left (400); a payment not captured cannot be refunded ' +
          '(409 PAYMENT_NOT_REFUNDABLE). The store applies it at its next pull and sends payment.refunded.',
        params: s.PaymentParamsSchema,
        body: s.RefundBodySchema,
        response: { 200: Envelope(s.PaymentSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await commerce.refundPayment(viewerOf(request), request.params.id, request.body.amount_minor),
      ),
  );
}
