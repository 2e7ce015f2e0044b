import { type Static, Type } from '@sinclair/typebox';

const Uuid = Type.String({ format: 'uuid' });
const Money = Type.Number();
const Timestamp = Type.String({ format: 'date-time' });
const Modifiers = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 50 });
const Notes = Type.String({ maxLength: 500 });
const Quantity = Type.Integer({ minimum: 1, maximum: 999 });

const OrderType = Type.Union([
  Type.Literal('dine_in'),
  Type.Literal('takeout'),
  Type.Literal('drive_thru'),
  Type.Literal('delivery'),
]);

export const NewItemSchema = Type.Object(
  {
    menu_item_id: Uuid,
    quantity: Quantity,
    modifiers: Type.Optional(Modifiers),
    notes: Type.Optional(Notes),
  },
  { additionalProperties: false },
);

const Items = Type.Array(NewItemSchema, { minItems: 1, maxItems: 200 });

export const NewOrderSchema = Type.Object(
  {
    order_type: OrderType,
    table: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    items: Items,
  },
  { additionalProperties: false },
);
export type NewOrder = Static<typeof NewOrderSchema>;

export const NewOrderQuerySchema = Type.Object(
  {
    dry_run: Type.Boolean({
      default: false,
      description:
        'Take the order through the whole create path (numbering, outbox, events) and roll it back: answers 200 with the order that would have been created, and leaves nothing behind',
    }),
  },
  { additionalProperties: false },
);

export const AddItemsSchema = Type.Object({ items: Items }, { additionalProperties: false });

export const ItemPatchSchema = Type.Object(
  {
    quantity: Type.Optional(Quantity),
    modifiers: Type.Optional(Modifiers),
    notes: Type.Optional(Type.Union([Notes, Type.Null()])),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const OrderParamsSchema = Type.Object({ order_id: Uuid });
export const ItemParamsSchema = Type.Object({ order_id: Uuid, item_id: Uuid });

const OrderItemSchema = Type.Object({
  id: Uuid,
  menu_item_id: Uuid,
  name: Type.String(),
  quantity: Type.Integer(),
  unit_price: Money,
  total: Money,
  modifiers: Type.Array(Type.String()),
  notes: Type.Union([Type.String(), Type.Null()]),
  status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('complete')]),
});

const OrderStatus = Type.Union([
  Type.Literal('open'),
  Type.Literal('sent'),
  Type.Literal('ready'),
  Type.Literal('completed'),
  Type.Literal('cancelled'),
]);

// A page's last order as `<created_at>_<id>`; clients pass next_cursor back as they got it.
const CURSOR = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z_[0-9a-f-]{36}$';

export const OrderListQuerySchema = Type.Object(
  {
    status: Type.Optional(
      Type.Array(OrderStatus, {
        minItems: 1,
        maxItems: 5,
        description:
          'Only orders in these states; repeat the parameter for several (?status=open&status=sent)',
      }),
    ),
    business_day: Type.Optional(
      Type.String({ format: 'date', description: 'Only orders of this business day, YYYY-MM-DD' }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional(Type.String({ pattern: CURSOR, description: 'next_cursor of the previous page' })),
  },
  { additionalProperties: false },
);

export const OrderSchema = Type.Object({
  id: Uuid,
  number: Type.String(),
  business_day: Type.String(),
  order_type: OrderType,
  status: OrderStatus,
  table: Type.Union([Type.String(), Type.Null()]),
  server: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()]),
  items: Type.Array(OrderItemSchema),
  subtotal: Money,
  tax: Money,
  total: Money,
  created_at: Timestamp,
  updated_at: Timestamp,
  version: Type.Integer(),
});

export const DryRunOrderSchema = Type.Composite([
  OrderSchema,
  Type.Object({ dry_run: Type.Literal(true, { description: 'Nothing was written' }) }),
]);

export const OrderPageSchema = Type.Object({
  items: Type.Array(OrderSchema, { description: 'Newest first' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor for the next page; null on the last page',
  }),
});
