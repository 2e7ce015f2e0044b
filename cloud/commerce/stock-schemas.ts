import { Type } from '@sinclair/typebox';
import { PublicationRefSchema } from './menu-schemas.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
// The store's own limits, so whatever head office writes fits the store's stock.
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: 'Not blank' });
const UNITS = ['each', 'g', 'kg', 'ml', 'l', 'oz', 'lb'] as const;
const Unit = Type.Unsafe<(typeof UNITS)[number]>({ type: 'string', enum: [...UNITS] });
const Milli = (description: string) =>
  Type.Integer({
    minimum: 0,
    maximum: 1_000_000_000,
    description: `${description}, in thousandths of the unit`,
  });
const Limit = Type.Integer({ minimum: 1, maximum: 200, default: 50 });
const Cursor = Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' });

export const NewStockItemSchema = Type.Object(
  {
    brand_id: Uuid,
    name: Name,
    unit: Unit,
    reorder_level_milli: Type.Optional(Milli('At or below it the item is low')),
    reorder_quantity_milli: Type.Optional(Milli('How much to order')),
  },
  { additionalProperties: false },
);
export const StockItemPatchSchema = Type.Object(
  {
    name: Type.Optional(Name),
    unit: Type.Optional(Unit),
    reorder_level_milli: Type.Optional(Milli('At or below it the item is low')),
    reorder_quantity_milli: Type.Optional(Milli('How much to order')),
  },
  { additionalProperties: false, minProperties: 1 },
);

const stockItemFields = {
  id: { ...Uuid, description: 'The catalog id: each store holds the item under an id derived from it' },
  brand_id: Uuid,
  name: Type.String(),
  unit: Type.String(),
  reorder_level_milli: Type.Integer(),
  reorder_quantity_milli: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
};
export const StockItemSchema = Type.Object(stockItemFields);
export const PublishedStockItemSchema = Type.Object({
  ...stockItemFields,
  publication: PublicationRefSchema,
});

export const StockItemListQuerySchema = Type.Object(
  { brand_id: Uuid, limit: Limit, cursor: Cursor },
  { additionalProperties: false },
);
export const StockItemPageSchema = Type.Object({
  items: Type.Array(StockItemSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

const Component = Type.Object(
  {
    stock_item_id: Uuid,
    quantity_milli: Type.Integer({
      minimum: 1,
      maximum: 1_000_000_000,
      description: 'How much one portion uses, in thousandths of the stock item’s unit',
    }),
  },
  { additionalProperties: false },
);
export const RecipeBodySchema = Type.Object(
  {
    components: Type.Array(Component, {
      maxItems: 100,
      description: 'Each stock item of the item’s brand at most once; empty: the item uses no stock',
    }),
  },
  { additionalProperties: false },
);
const recipeFields = {
  menu_item_id: Uuid,
  components: Type.Array(Type.Object({ stock_item_id: Uuid, quantity_milli: Type.Integer() })),
};
export const RecipeSchema = Type.Object({
  ...recipeFields,
  updated_at: Type.Union([Timestamp, Type.Null()], { description: 'null: the item has no recipe' }),
});
export const PublishedRecipeSchema = Type.Object({
  ...recipeFields,
  updated_at: Timestamp,
  publication: PublicationRefSchema,
});

const Level = Type.Object({
  location_id: Uuid,
  inventory_item_id: { ...Uuid, description: 'The store’s inventory item' },
  name: Type.Union([Type.String(), Type.Null()], { description: 'null until the store’s item row arrives' }),
  unit: Type.Union([Type.String(), Type.Null()]),
  quantity_milli: Type.Integer({ description: 'The sum of the store’s movements of the item' }),
  reorder_level_milli: Type.Union([Type.Integer(), Type.Null()]),
  reorder_quantity_milli: Type.Union([Type.Integer(), Type.Null()]),
  low: Type.Boolean({ description: 'At or below its reorder level' }),
});
export const LevelListQuerySchema = Type.Object(
  { location_id: Uuid, limit: Limit, cursor: Cursor },
  { additionalProperties: false },
);
export const LowStockQuerySchema = Type.Object(
  {
    brand_id: Type.Optional({ ...Uuid, description: 'Only the stores of this brand' }),
    location_id: Type.Optional({ ...Uuid, description: 'Only this store' }),
    limit: Limit,
    cursor: Type.Optional(
      Type.String({
        pattern: '^[0-9a-fA-F-]{36}_[0-9a-fA-F-]{36}$',
        description: 'next_cursor of the previous page',
      }),
    ),
  },
  { additionalProperties: false },
);
export const LevelPageSchema = Type.Object({
  items: Type.Array(Level),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});
