import { type Static, Type } from '@sinclair/typebox';
import { MinorUnits } from '../../shared/http/numbers.ts';
import { MENU_LIMITS } from './service.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const PriceMinor = MinorUnits({ description: 'minor currency units: 349 is 3.49' });

export const CategorySchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  position: Type.Integer(),
  version: Type.Integer(),
  updated_at: Timestamp,
});

export const ItemSchema = Type.Object({
  id: Uuid,
  category_id: Uuid,
  name: Type.String(),
  description: Type.String(),
  price_minor: Type.Integer(),
  available: Type.Boolean(),
  version: Type.Integer(),
  updated_at: Timestamp,
});

const CategoryName = Type.String({ minLength: 1, maxLength: MENU_LIMITS.nameLength });
const Position = Type.Integer({ minimum: 0, maximum: 10_000, description: 'display order, 0 first' });

export const NewCategorySchema = Type.Object(
  { name: CategoryName, position: Type.Optional(Position) },
  { additionalProperties: false },
);

export const CategoryPatchSchema = Type.Object(
  { name: Type.Optional(CategoryName), position: Type.Optional(Position) },
  { additionalProperties: false, minProperties: 1 },
);

export const CategoryParamsSchema = Type.Object({ id: Uuid });

export const ItemQuerySchema = Type.Object(
  { category_id: Type.Optional(Uuid) },
  { additionalProperties: false },
);

export const NewItemSchema = Type.Object(
  {
    category_id: Uuid,
    name: Type.String({ minLength: 1, maxLength: MENU_LIMITS.nameLength }),
    description: Type.Optional(Type.String({ maxLength: MENU_LIMITS.descriptionLength })),
    price_minor: PriceMinor,
    available: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type NewItem = Static<typeof NewItemSchema>;

export const PriceSchema = Type.Object({ price_minor: PriceMinor }, { additionalProperties: false });
export const AvailabilitySchema = Type.Object({ available: Type.Boolean() }, { additionalProperties: false });

export const ItemParamsSchema = Type.Object({ id: Uuid });
