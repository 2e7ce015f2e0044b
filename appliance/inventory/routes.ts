import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { MANAGER_ROLES } from '../../shared/roles.ts';
import * as schemas from './schemas.ts';
import type { InventoryService } from './service.ts';

/** What recipes need from the menu: that the menu item exists (it throws a 404 when not). */
export interface MenuItems {
  getItem(id: string): unknown;
}

export interface InventoryRoutesOptions {
  inventory: InventoryService;
  menu: MenuItems;
}

const doc = { tags: ['inventory'], security: [{ bearer: [] }] };
const item = Envelope(schemas.InventoryItemSchema);
const movementResponses = { 200: item, ...errorResponses(400, 401, 403, 404) };

/** Stock items, restocks and counts, and the recipes that tie menu items to stock. */
export async function inventoryRoutes(app: FastifyInstance, { inventory, menu }: InventoryRoutesOptions) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const staff = { onRequest: app.authenticate() };
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };

  r.get(
    '/inventory/items',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Stock items with their current quantities',
        response: { 200: Envelope(Type.Array(schemas.InventoryItemSchema)), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, inventory.list()),
  );

  r.post(
    '/inventory/items',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Add a stock item (managers only)',
        body: schemas.NewInventoryItemSchema,
        response: { 201: item, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const created = inventory.create(request.body);
      reply.code(201);
      return envelope(request.id, created);
    },
  );

  r.post(
    '/inventory/items/:id/restock',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Record a delivery',
        params: schemas.ItemParamsSchema,
        body: schemas.RestockSchema,
        response: movementResponses,
      },
    },
    async (request) => envelope(request.id, inventory.restock(request.params.id, request.body.quantity)),
  );

  r.post(
    '/inventory/items/:id/count',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Record a physical count',
        params: schemas.ItemParamsSchema,
        body: schemas.CountSchema,
        response: movementResponses,
      },
    },
    async (request) => envelope(request.id, inventory.count(request.params.id, request.body.quantity)),
  );

  r.put(
    '/menu/items/:menu_item_id/recipe',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Set what one portion of a menu item uses (managers only)',
        params: schemas.MenuItemParamsSchema,
        body: schemas.RecipeSchema,
        response: { 200: Envelope(schemas.RecipeResponseSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { menu_item_id } = request.params;
      menu.getItem(menu_item_id);
      const components = inventory.setRecipe(menu_item_id, request.body.components);
      return envelope(request.id, { menu_item_id, components });
    },
  );
}
