import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { MANAGER_ROLES } from '../../shared/roles.ts';
import * as schemas from './schemas.ts';
import type { MenuService } from './service.ts';

const doc = { tags: ['menu'], security: [{ bearer: [] }] };
const item = Envelope(schemas.ItemSchema);
const category = Envelope(schemas.CategorySchema);

/** The store's menu: any staff member reads it and marks items sold out; managers add, arrange and price. */
export async function menuRoutes(app: FastifyInstance, { menu }: { menu: MenuService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const staff = { onRequest: app.authenticate() };
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };

  r.get(
    '/menu/categories',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'The menu’s categories in display order',
        response: { 200: Envelope(Type.Array(schemas.CategorySchema)), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, menu.listCategories()),
  );

  r.post(
    '/menu/categories',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Add a category to the store’s menu (managers only)',
        description:
          'Placed after the last category unless `position` says otherwise. The store’s own category ' +
          'stands until head office changes the same row.',
        body: schemas.NewCategorySchema,
        response: { 201: category, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, menu.createCategory(request.body));
    },
  );

  r.patch(
    '/menu/categories/:id',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Rename or move a category (managers only)',
        params: schemas.CategoryParamsSchema,
        body: schemas.CategoryPatchSchema,
        response: { 200: category, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => envelope(request.id, menu.updateCategory(request.params.id, request.body)),
  );

  r.get(
    '/menu/items',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'The menu’s items, optionally of one category',
        querystring: schemas.ItemQuerySchema,
        response: { 200: Envelope(Type.Array(schemas.ItemSchema)), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request.id, menu.listItems(request.query)),
  );

  r.post(
    '/menu/items',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Add an item to the menu (managers only)',
        body: schemas.NewItemSchema,
        response: { 201: item, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, menu.createItem(request.body));
    },
  );

  r.put(
    '/menu/items/:id/price',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Change an item’s price (managers only)',
        params: schemas.ItemParamsSchema,
        body: schemas.PriceSchema,
        response: { 200: item, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, menu.changePrice(request.params.id, request.body.price_minor)),
  );

  r.put(
    '/menu/items/:id/availability',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Mark an item available or sold out',
        params: schemas.ItemParamsSchema,
        body: schemas.AvailabilitySchema,
        response: { 200: item, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, menu.setAvailability(request.params.id, request.body.available)),
  );
}
