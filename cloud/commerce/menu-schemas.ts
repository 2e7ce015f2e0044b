import { Type } from '@sinclair/typebox';
import { MinorUnits } from '../../shared/http/numbers.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
// The store's own limits, so whatever head office writes fits the store's menu.
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'Not blank' });
const Description = Type.String({ maxLength: 1000 });
const Position = Type.Integer({ minimum: 0, maximum: 10_000, description: 'display order, 0 first' });
const PriceMinor = MinorUnits({ description: 'minor currency units: 349 is 3.49' });
const Stores = Type.Array(Uuid, {
  minItems: 1,
  maxItems: 1000,
  description:
    'Only these stores of the brand, each keeping the value as its own; omitted: every store of the brand',
});
const Limit = Type.Integer({ minimum: 1, maximum: 200, default: 50 });
const Cursor = Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' });

export const PublicationRefSchema = Type.Object({
  id: Uuid,
  state: Type.Literal('publishing'),
  stores_total: Type.Integer({ description: 'Stores the change goes to' }),
});

export const NewCategorySchema = Type.Object(
  { brand_id: Uuid, name: Name, position: Type.Optional(Position) },
  { additionalProperties: false },
);
export const CategoryPatchSchema = Type.Object(
  { name: Type.Optional(Name), position: Type.Optional(Position) },
  { additionalProperties: false, minProperties: 1 },
);

const categoryFields = {
  id: { ...Uuid, description: 'The catalog id: each store holds the category under an id derived from it' },
  brand_id: Uuid,
  name: Type.String(),
  position: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
};
export const CategorySchema = Type.Object(categoryFields);
export const PublishedCategorySchema = Type.Object({ ...categoryFields, publication: PublicationRefSchema });

export const NewItemSchema = Type.Object(
  {
    brand_id: Uuid,
    category_id: Uuid,
    name: Name,
    description: Type.Optional(Description),
    price_minor: PriceMinor,
    available: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
export const ItemPatchSchema = Type.Object(
  { name: Type.Optional(Name), description: Type.Optional(Description), category_id: Type.Optional(Uuid) },
  { additionalProperties: false, minProperties: 1 },
);
export const PriceBodySchema = Type.Object(
  { price_minor: PriceMinor, location_ids: Type.Optional(Stores) },
  { additionalProperties: false },
);
/** The most prices one change may carry: a brand's whole menu, several times over. */
export const MAX_PRICES = 1000;

export const PricesBodySchema = Type.Object(
  {
    brand_id: Uuid,
    prices: Type.Array(
      Type.Object({ item_id: Uuid, price_minor: PriceMinor }, { additionalProperties: false }),
      { minItems: 1, maxItems: MAX_PRICES, description: 'Each item of the brand once' },
    ),
    location_ids: Type.Optional(Stores),
  },
  { additionalProperties: false },
);

export const PricesChangedSchema = Type.Object({
  brand_id: Uuid,
  items: Type.Integer({ description: 'Items whose price was set' }),
  publication: PublicationRefSchema,
});

export const AvailabilityBodySchema = Type.Object(
  { available: Type.Boolean(), location_ids: Type.Optional(Stores) },
  { additionalProperties: false },
);

const itemFields = {
  id: { ...Uuid, description: 'The catalog id reports group every store’s sales of the item by' },
  brand_id: Uuid,
  category_id: Uuid,
  name: Type.String(),
  description: Type.String(),
  price_minor: Type.Integer({ description: 'The brand’s price' }),
  available: Type.Boolean({ description: 'The brand’s availability' }),
  overrides: Type.Array(
    Type.Object({
      location_id: Uuid,
      price_minor: Type.Union([Type.Integer(), Type.Null()]),
      available: Type.Union([Type.Boolean(), Type.Null()]),
    }),
    { description: 'Stores with a price or availability of their own (null: the brand’s)' },
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
};
export const ItemSchema = Type.Object(itemFields);
export const PublishedItemSchema = Type.Object({ ...itemFields, publication: PublicationRefSchema });

export const IdParamsSchema = Type.Object({ id: Uuid });

export const CategoryListQuerySchema = Type.Object(
  { brand_id: Uuid, limit: Limit, cursor: Cursor },
  { additionalProperties: false },
);
export const ItemListQuerySchema = Type.Object(
  { brand_id: Uuid, category_id: Type.Optional(Uuid), limit: Limit, cursor: Cursor },
  { additionalProperties: false },
);
const page = <T extends ReturnType<typeof Type.Object>>(item: T) =>
  Type.Object({ items: Type.Array(item), next_cursor: Type.Union([Type.String(), Type.Null()]) });
export const CategoryPageSchema = page(CategorySchema);
export const ItemPageSchema = page(ItemSchema);

const StoreState = Type.Unsafe<'queued' | 'pending' | 'applied'>({
  type: 'string',
  enum: ['queued', 'pending', 'applied'],
  description:
    'queued: not written for the store yet; pending: written, the store has not pulled it; applied: pulled',
});
export const PublicationSchema = Type.Object({
  id: Uuid,
  brand_id: Uuid,
  change: Type.String({
    description: 'category, item, price, availability, stock_item, recipe, station or routing',
  }),
  state: Type.Unsafe<'publishing' | 'pending' | 'applied'>({
    type: 'string',
    enum: ['publishing', 'pending', 'applied'],
    description:
      'publishing: stores still being written; pending: some store has not pulled it; applied: every store has',
  }),
  created_at: Timestamp,
  published_at: Type.Union([Timestamp, Type.Null()]),
  stores_total: Type.Integer(),
  stores_written: Type.Integer(),
  stores_applied: Type.Integer(),
  stores: Type.Array(
    Type.Object({
      location_id: Uuid,
      state: StoreState,
      feed_seq: Type.Union([Type.Integer(), Type.Null()], {
        description: 'The feed entry the store must pull past',
      }),
      pulled_cursor: Type.Integer({ description: 'How far the store has pulled' }),
    }),
  ),
});
