import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { MANAGER_ROLES } from '../../shared/roles.ts';
import { BRAND_ROLES, checkStores, published, tenantOf, viewerOf } from './access.ts';
import { kitchenRoutes } from './kitchen-routes.ts';
import type { MenuService } from './menu.ts';
import * as m from './menu-schemas.ts';
import * as s from './schemas.ts';
import type { CommerceService } from './service.ts';
import { stockRoutes } from './stock-routes.ts';

const doc = { tags: ['commerce'], security: [{ bearer: [] }] };

/** Head office's window onto the stores' orders and payments, under /v1/commerce. */
export async function commerceRoutes(
  app: FastifyInstance,
  { commerce, menu }: { commerce: CommerceService; menu: MenuService },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };
  const brandAdmins = { onRequest: app.authenticate(BRAND_ROLES) };
  app.addHook('onReady', async () => {
    void menu.resume();
  });
  app.addHook('onClose', async () => menu.settle());

  const tenant = tenantOf;
  const menuDoc = { tags: ['commerce-menu'], security: [{ bearer: [] }] };

  r.post(
    '/menu/categories',
    {
      ...brandAdmins,
      schema: {
        ...menuDoc,
        summary: 'Add a category to a brand’s menu',
        description: published('Every store of the brand gets it under an id derived from its own.'),
        body: m.NewCategorySchema,
        response: { 201: Envelope(m.PublishedCategorySchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(envelope(request.id, await menu.createCategory(tenant(request), request.body))),
  );

  r.patch(
    '/menu/categories/:id',
    {
      ...brandAdmins,
      schema: {
        ...menuDoc,
        summary: 'Rename or move a brand’s category',
        description: published('A store’s own change of the same category is replaced.'),
        params: m.IdParamsSchema,
        body: m.CategoryPatchSchema,
        response: { 200: Envelope(m.PublishedCategorySchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await menu.updateCategory(tenant(request), request.params.id, request.body)),
  );

  r.get(
    '/menu/categories',
    {
      ...managers,
      schema: {
        ...menuDoc,
        summary: 'A brand’s categories',
        querystring: m.CategoryListQuerySchema,
        response: { 200: Envelope(m.CategoryPageSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await menu.listCategories(tenant(request), request.query.brand_id, request.query)),
  );

  r.get(
    '/menu/categories/:id',
    {
      ...managers,
      schema: {
        ...menuDoc,
        summary: 'One category of a brand',
        params: m.IdParamsSchema,
        response: { 200: Envelope(m.CategorySchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await menu.getCategory(tenant(request), request.params.id)),
  );

  r.post(
    '/menu/items',
    {
      ...brandAdmins,
      schema: {
        ...menuDoc,
        summary: 'Add an item to a brand’s menu',
        description: published('Each store emits menu.item_updated (created) once it is written for it.'),
        body: m.NewItemSchema,
        response: { 201: Envelope(m.PublishedItemSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(envelope(request.id, await menu.createItem(tenant(request), request.body))),
  );

  r.patch(
    '/menu/items/:id',
    {
      ...brandAdmins,
      schema: {
        ...menuDoc,
        summary: 'Change a brand item’s name, description or category',
        description: published(''),
        params: m.IdParamsSchema,
        body: m.ItemPatchSchema,
        response: { 200: Envelope(m.PublishedItemSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await menu.updateItem(tenant(request), request.params.id, request.body)),
  );

  r.get(
    '/menu/items',
    {
      ...managers,
      schema: {
        ...menuDoc,
        summary: 'A brand’s items, with each store’s own price or availability',
        querystring: m.ItemListQuerySchema,
        response: { 200: Envelope(m.ItemPageSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await menu.listItems(tenant(request), request.query.brand_id, request.query, request.query),
      ),
  );

  r.get(
    '/menu/items/:id',
    {
      ...managers,
      schema: {
        ...menuDoc,
        summary: 'One brand item, with each store’s own price or availability',
        params: m.IdParamsSchema,
        response: { 200: Envelope(m.ItemSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await menu.getItem(tenant(request), request.params.id)),
  );

  r.put(
    '/menu/items/:id/price',
    {
      ...managers,
      schema: {
        ...menuDoc,
        summary: 'Set an item’s price for every store of the brand, or for the stores named',
        description: published(
          'Without location_ids (tenant admins only) the brand’s price changes and stores’ own prices ' +
            'are dropped; with them, those stores keep this price as their own. Each store whose price ' +
            'changes emits menu.price_changed once.',
        ),
        params: m.IdParamsSchema,
        body: m.PriceBodySchema,
        response: { 200: Envelope(m.PublishedItemSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const tenantId = checkStores(request, request.body.location_ids);
      return envelope(
        request.id,
        await menu.setPrice(tenantId, request.params.id, request.body.price_minor, request.body.location_ids),
      );
    },
  );

  r.put(
    '/menu/prices',
    {
      ...managers,
      schema: {
        ...menuDoc,
        summary: 'Set many prices of a brand in one change, for every store or for the stores named',
        description: published(
          'One publication for the whole list. Without location_ids (tenant admins only) these are the ' +
            'brand’s prices and stores’ own prices of these items are dropped; with them, those stores ' +
            'keep them as their own. An item priced twice is 400, an unknown one 404.',
        ),
        body: m.PricesBodySchema,
        response: { 200: Envelope(m.PricesChangedSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const tenantId = checkStores(request, request.body.location_ids);
      const { brand_id, prices, location_ids } = request.body;
      return envelope(request.id, await menu.setPrices(tenantId, brand_id, prices, location_ids));
    },
  );

  r.put(
    '/menu/items/:id/availability',
    {
      ...managers,
      schema: {
        ...menuDoc,
        summary: 'Make an item available or not, at every store of the brand or at the stores named',
        description: published('Each store whose availability changes emits menu.item_availability once.'),
        params: m.IdParamsSchema,
        body: m.AvailabilityBodySchema,
        response: { 200: Envelope(m.PublishedItemSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const tenantId = checkStores(request, request.body.location_ids);
      return envelope(
        request.id,
        await menu.setAvailability(
          tenantId,
          request.params.id,
          request.body.available,
          request.body.location_ids,
        ),
      );
    },
  );

  r.get(
    '/menu/publications/:id',
    {
      ...managers,
      schema: {
        ...menuDoc,
        summary: 'How far a menu change has reached the stores',
        params: m.IdParamsSchema,
        response: { 200: Envelope(m.PublicationSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await menu.publication(tenant(request), request.params.id)),
  );

  stockRoutes(app, menu.stock);
  kitchenRoutes(app, menu.kitchen);

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
