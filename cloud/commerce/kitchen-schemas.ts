import { Type } from '@sinclair/typebox';
import { PublicationRefSchema } from './menu-schemas.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
// The store's own limits, so whatever head office writes fits the store's kitchen.
const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'Not blank' });
const Position = Type.Integer({ minimum: 0, maximum: 10_000, description: 'display order, 0 first' });
const Limit = Type.Integer({ minimum: 1, maximum: 200, default: 50 });
const Cursor = Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' });

export const NewStationSchema = Type.Object(
  { brand_id: Uuid, name: Name, position: Type.Optional(Position) },
  { additionalProperties: false },
);
export const StationPatchSchema = Type.Object(
  { name: Type.Optional(Name), position: Type.Optional(Position) },
  { additionalProperties: false, minProperties: 1 },
);
const stationFields = {
  id: { ...Uuid, description: 'The catalog id: each store holds the station under an id derived from it' },
  brand_id: Uuid,
  name: Type.String(),
  position: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
};
export const StationSchema = Type.Object(stationFields);
export const PublishedStationSchema = Type.Object({ ...stationFields, publication: PublicationRefSchema });
export const StationListQuerySchema = Type.Object(
  { brand_id: Uuid, limit: Limit, cursor: Cursor },
  { additionalProperties: false },
);
export const StationPageSchema = Type.Object({
  items: Type.Array(StationSchema),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
});

export const RoutingParamsSchema = Type.Object({ menu_item_id: Uuid });
export const RoutingBodySchema = Type.Object(
  {
    station_id: Uuid,
    location_ids: Type.Optional(
      Type.Array(Uuid, {
        minItems: 1,
        maxItems: 1000,
        description:
          'Only these stores of the brand, each keeping the route as its own; omitted: every store of the brand',
      }),
    ),
  },
  { additionalProperties: false },
);
const routingFields = {
  menu_item_id: Uuid,
  station_id: Type.Union([Uuid, Type.Null()], { description: 'The brand’s station; null: not routed' }),
  overrides: Type.Array(Type.Object({ location_id: Uuid, station_id: Uuid }), {
    description: 'Stores with a station of their own for the item',
  }),
};
export const RoutingSchema = Type.Object(routingFields);
export const PublishedRoutingSchema = Type.Object({ ...routingFields, publication: PublicationRefSchema });
