import { type Static, Type } from '@sinclair/typebox';
import { Counter } from '../../shared/http/numbers.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Priority = Type.Union([Type.Literal('normal'), Type.Literal('rush')]);

export const StationSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  position: Type.Integer(),
  version: Type.Integer(),
  updated_at: Timestamp,
});

export const NewStationSchema = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
export type NewStation = Static<typeof NewStationSchema>;

export const RouteParamsSchema = Type.Object({ menu_item_id: Uuid });
export const RouteBodySchema = Type.Object({ station_id: Uuid }, { additionalProperties: false });
export const RouteSchema = Type.Object({ menu_item_id: Uuid, station_id: Uuid });

export const StationParamsSchema = Type.Object({ station_id: Uuid });
export const TicketParamsSchema = Type.Object({ ticket_id: Uuid });
export const TicketItemParamsSchema = Type.Object({ ticket_id: Uuid, order_item_id: Uuid });

export const PriorityBodySchema = Type.Object({ priority: Priority }, { additionalProperties: false });

const TicketItemSchema = Type.Object({
  order_item_id: Uuid,
  name: Type.String(),
  quantity: Type.Integer(),
  modifiers: Type.Array(Type.String()),
  notes: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('pending'), Type.Literal('done')]),
  bumped_at: Type.Union([Timestamp, Type.Null()]),
});

export const TicketSchema = Type.Object({
  id: Uuid,
  order_id: Uuid,
  order_number: Type.String(),
  station_id: Uuid,
  priority: Priority,
  status: Type.Union([Type.Literal('open'), Type.Literal('done')]),
  created_at: Timestamp,
  done_at: Type.Union([Timestamp, Type.Null()]),
  version: Type.Integer(),
  items: Type.Array(TicketItemSchema),
});

export const BoardTicketSchema = Type.Composite([
  TicketSchema,
  Type.Object({ elapsed_seconds: Type.Integer({ minimum: 0 }) }),
]);

export const FeedQuerySchema = Type.Object({
  access_token: Type.String({ minLength: 1 }),
  /** Resume: also send the events after this sequence number that are already committed. */
  after: Type.Optional(Counter()),
});
export type FeedQuery = Static<typeof FeedQuerySchema>;
