import { type Static, Type } from '@sinclair/typebox';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Quantity = Type.Number({ minimum: 0, maximum: 1_000_000 });
const PositiveQuantity = Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000 });

const Unit = Type.Union([
  Type.Literal('each'),
  Type.Literal('g'),
  Type.Literal('kg'),
  Type.Literal('ml'),
  Type.Literal('l'),
  Type.Literal('oz'),
  Type.Literal('lb'),
]);

export const NewInventoryItemSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    unit: Unit,
    quantity: Type.Optional(Quantity),
    reorder_level: Type.Optional(Quantity),
    reorder_quantity: Type.Optional(Quantity),
  },
  { additionalProperties: false },
);

export const RestockSchema = Type.Object({ quantity: PositiveQuantity }, { additionalProperties: false });
export const CountSchema = Type.Object({ quantity: Quantity }, { additionalProperties: false });

const ComponentSchema = Type.Object(
  { inventory_item_id: Uuid, quantity: PositiveQuantity },
  { additionalProperties: false },
);
export const RecipeSchema = Type.Object(
  { components: Type.Array(ComponentSchema, { maxItems: 100 }) },
  { additionalProperties: false },
);
export type Recipe = Static<typeof RecipeSchema>;

export const ItemParamsSchema = Type.Object({ id: Uuid });
export const MenuItemParamsSchema = Type.Object({ menu_item_id: Uuid });

export const InventoryItemSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  unit: Type.String(),
  current_quantity: Type.Number(),
  reorder_level: Type.Number(),
  reorder_quantity: Type.Number(),
  version: Type.Integer(),
  updated_at: Timestamp,
});

export const RecipeResponseSchema = Type.Object({
  menu_item_id: Uuid,
  components: Type.Array(Type.Object({ inventory_item_id: Uuid, quantity: Type.Number() })),
});
