import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { MANAGER_ROLES } from '../../shared/roles.ts';
import { BRAND_ROLES, published, tenantOf, viewerOf } from './access.ts';
import { IdParamsSchema } from './menu-schemas.ts';
import type { StockService } from './stock.ts';
import * as k from './stock-schemas.ts';

/** A brand's stock items and recipes, and the stores' stock levels, under /v1/commerce. */
export function stockRoutes(app: FastifyInstance, stock: StockService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };
  const brandAdmins = { onRequest: app.authenticate(BRAND_ROLES) };
  const doc = { tags: ['commerce-stock'], security: [{ bearer: [] }] };

  r.post(
    '/stock/items',
    {
      ...brandAdmins,
      schema: {
        ...doc,
        summary: 'Add a stock item to a brand',
        description: published(
          'Every store of the brand gets it as an inventory item under an id derived from its own; ' +
            'its quantity stays the store’s, the sum of its movements. A name the brand has already ' +
            '(whatever its case) is 409.',
        ),
        body: k.NewStockItemSchema,
        response: { 201: Envelope(k.PublishedStockItemSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(envelope(request.id, await stock.createItem(tenantOf(request), request.body))),
  );

  r.patch(
    '/stock/items/:id',
    {
      ...brandAdmins,
      schema: {
        ...doc,
        summary: 'Rename a brand’s stock item or change its unit or reorder level',
        description: published('A store’s own change of the same item is replaced.'),
        params: IdParamsSchema,
        body: k.StockItemPatchSchema,
        response: { 200: Envelope(k.PublishedStockItemSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(request.id, await stock.updateItem(tenantOf(request), request.params.id, request.body)),
  );

  r.get(
    '/stock/items',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'A brand’s stock items',
        querystring: k.StockItemListQuerySchema,
        response: { 200: Envelope(k.StockItemPageSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await stock.listItems(tenantOf(request), request.query.brand_id, request.query)),
  );

  r.get(
    '/stock/items/:id',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'One stock item of a brand',
        params: IdParamsSchema,
        response: { 200: Envelope(k.StockItemSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await stock.getItem(tenantOf(request), request.params.id)),
  );

  r.put(
    '/menu/items/:id/recipe',
    {
      ...brandAdmins,
      schema: {
        ...doc,
        summary: 'Set what one portion of a brand item uses of the brand’s stock items',
        description: published(
          'Replaces the item’s recipe at every store of the brand, naming each store’s own inventory ' +
            'items; each sale at the store deducts it. A stock item of another brand is 400.',
        ),
        params: IdParamsSchema,
        body: k.RecipeBodySchema,
        response: { 200: Envelope(k.PublishedRecipeSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await stock.setRecipe(tenantOf(request), request.params.id, request.body.components),
      ),
  );

  r.get(
    '/menu/items/:id/recipe',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'What one portion of a brand item uses',
        params: IdParamsSchema,
        response: { 200: Envelope(k.RecipeSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await stock.getRecipe(tenantOf(request), request.params.id)),
  );

  r.get(
    '/stock/levels',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'One store’s stock, item by item',
        description:
          'Each item’s quantity is the sum of the stock movements the store has pushed (sales, ' +
          'restocks, counts), each counted once however often it is pushed.',
        querystring: k.LevelListQuerySchema,
        response: { 200: Envelope(k.LevelPageSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await stock.levels(viewerOf(request), request.query.location_id, request.query)),
  );

  r.get(
    '/stock/low',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Items at or below their reorder level, across the stores',
        description: 'Store by store; every store the asker sees unless a brand or a store is named.',
        querystring: k.LowStockQuerySchema,
        response: { 200: Envelope(k.LevelPageSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await stock.low(viewerOf(request), request.query)),
  );
}
