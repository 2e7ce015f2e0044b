import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { MANAGER_ROLES } from '../../shared/roles.ts';
import { requireAuth, type StaffAuth } from '../auth/index.ts';
import * as schemas from './schemas.ts';
import type { Order, OrderService } from './service.ts';

export interface OrderRoutesOptions {
  orders: OrderService;
  auth: StaffAuth;
  /** Completion runs as a flow: it also deducts the sale from stock. */
  completeOrder: (orderId: string) => Order;
  /** Sending runs as a flow: it also opens the kitchen's tickets. */
  sendOrder: (orderId: string) => Order;
  /** Voiding runs as a flow: it also closes the kitchen's tickets. */
  cancelOrder: (orderId: string) => Order;
}

const doc = { tags: ['orders'], security: [{ bearer: [] }] };
const order = Envelope(schemas.OrderSchema);
const commandResponses = { 200: order, ...errorResponses(400, 401, 403, 404, 409) };

/** Orders at the till and in the kitchen: create, change while open, send, prepare, complete, void. */
export async function orderRoutes(
  app: FastifyInstance,
  { orders, auth, completeOrder, sendOrder, cancelOrder }: OrderRoutesOptions,
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const staff = { onRequest: app.authenticate() };
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };

  r.post(
    '/orders',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Open an order; the signed-in staff member is its server',
        description:
          'With `dry_run=true` nothing is written: the order goes through every step of its creation and is rolled back, and the answer (200, `dry_run: true`) is the order that would have been opened.',
        querystring: schemas.NewOrderQuerySchema,
        body: schemas.NewOrderSchema,
        response: {
          201: order,
          200: Envelope(schemas.DryRunOrderSchema),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request, reply) => {
      const { userId } = requireAuth(request);
      const server = { id: userId, name: auth.profile(userId).display_name };
      const dryRun = request.query.dry_run;
      const created = await orders.create({ ...request.body, server }, { dryRun });
      reply.code(dryRun ? 200 : 201);
      return envelope(request.id, dryRun ? { ...created, dry_run: true as const } : created);
    },
  );

  r.get(
    '/orders',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'This store’s orders with their items, newest first, a page at a time',
        querystring: schemas.OrderListQuerySchema,
        response: { 200: Envelope(schemas.OrderPageSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request.id, orders.list(request.query)),
  );

  r.get(
    '/orders/:order_id',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'An order with its items and totals',
        params: schemas.OrderParamsSchema,
        response: { 200: order, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, orders.get(request.params.order_id)),
  );

  r.post(
    '/orders/:order_id/items',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Add items to an open order',
        params: schemas.OrderParamsSchema,
        body: schemas.AddItemsSchema,
        response: commandResponses,
      },
    },
    async (request) =>
      envelope(request.id, await orders.addItems(request.params.order_id, request.body.items)),
  );

  r.patch(
    '/orders/:order_id/items/:item_id',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Change an item of an open order',
        params: schemas.ItemParamsSchema,
        body: schemas.ItemPatchSchema,
        response: commandResponses,
      },
    },
    async (request) => {
      const { order_id, item_id } = request.params;
      return envelope(request.id, orders.changeItem(order_id, item_id, request.body));
    },
  );

  r.delete(
    '/orders/:order_id/items/:item_id',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Remove an item from an open order',
        params: schemas.ItemParamsSchema,
        response: commandResponses,
      },
    },
    async (request) =>
      envelope(request.id, orders.removeItem(request.params.order_id, request.params.item_id)),
  );

  r.post(
    '/orders/:order_id/send',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Send the order’s new items to the kitchen',
        params: schemas.OrderParamsSchema,
        response: commandResponses,
      },
    },
    async (request) => envelope(request.id, sendOrder(request.params.order_id)),
  );

  r.post(
    '/orders/:order_id/items/:item_id/complete',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Mark an item prepared; the order is ready when all are',
        params: schemas.ItemParamsSchema,
        response: commandResponses,
      },
    },
    async (request) =>
      envelope(request.id, orders.completeItem(request.params.order_id, request.params.item_id)),
  );

  r.post(
    '/orders/:order_id/complete',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Complete a ready order',
        params: schemas.OrderParamsSchema,
        response: commandResponses,
      },
    },
    async (request) => envelope(request.id, completeOrder(request.params.order_id)),
  );

  r.post(
    '/orders/:order_id/cancel',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Void an order that is not completed (managers only)',
        params: schemas.OrderParamsSchema,
        response: commandResponses,
      },
    },
    async (request) => envelope(request.id, cancelOrder(request.params.order_id)),
  );
}
