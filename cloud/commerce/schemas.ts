import { Type } from '@sinclair/typebox';
import { MinorUnits } from '../../shared/http/numbers.ts';
import { SYNC_TABLES } from '../../shared/sync/registry.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Day = (description: string) => Type.String({ format: 'date', description });
const Money = Type.Number({ description: 'In currency units, e.g. 12.5' });
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const Literals = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });

const OrderStatus = Literals(SYNC_TABLES.orders.enums.status);
const OrderType = Literals(SYNC_TABLES.orders.enums.order_type);

// A page's last order as `<created_at>_<id>`; clients pass next_cursor back as they got it.
const CURSOR = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z_[0-9a-f-]{36}$';

export const OrderListQuerySchema = Type.Object(
  {
    location_id: Type.Optional({ ...Uuid, description: 'Only this store’s orders' }),
    business_day: Type.Optional(Day('Only orders of this business day, YYYY-MM-DD')),
    business_day_from: Type.Optional(Day('Only orders of this business day or later')),
    business_day_to: Type.Optional(Day('Only orders of this business day or earlier')),
    status: Type.Optional(
      Type.Array(OrderStatus, {
        minItems: 1,
        maxItems: 5,
        description: 'Only orders in these states; repeat the parameter for several',
      }),
    ),
    order_type: Type.Optional(
      Type.Array(OrderType, { minItems: 1, maxItems: 4, description: 'Only orders of these types' }),
    ),
    number: Type.Optional(
      Type.String({ minLength: 1, maxLength: 32, description: 'The number the store gave the order' }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional(Type.String({ pattern: CURSOR, description: 'next_cursor of the previous page' })),
  },
  { additionalProperties: false },
);

const OrderItemSchema = Type.Object({
  id: Uuid,
  menu_item_id: Type.String(),
  catalog_id: Type.Union([Type.String(), Type.Null()], {
    description:
      'The brand item this line’s menu item stands for at every store; null for an item the store made itself',
  }),
  name: Type.String(),
  quantity: Type.Integer(),
  unit_price: Money,
  total: Money,
  modifiers: Type.Array(Type.String()),
  notes: Nullable(Type.String()),
  status: Literals(SYNC_TABLES.order_items.enums.status),
});

const orderFields = {
  id: { ...Uuid, description: 'The store’s own order id' },
  location_id: Uuid,
  number: Type.String(),
  business_day: Type.String(),
  order_type: OrderType,
  status: OrderStatus,
  table: Nullable(Type.String()),
  server: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()]),
  items: Type.Array(OrderItemSchema),
  subtotal: Money,
  tax: Money,
  total: Money,
  created_at: Timestamp,
  updated_at: Timestamp,
  version: Type.Integer({ description: 'The row’s version, as the store counts it' }),
};

export const OrderSchema = Type.Object(orderFields);

export const PaymentSchema = Type.Object({
  id: Uuid,
  location_id: Uuid,
  order_id: Uuid,
  method: Literals(SYNC_TABLES.payments.enums.method),
  status: Literals(SYNC_TABLES.payments.enums.status),
  amount: Money,
  tip: Money,
  total: Money,
  refunded: Money,
  card: Type.Union([Type.Object({ brand: Type.String(), last4: Type.String() }), Type.Null()]),
  transaction_id: Nullable(Type.String()),
  failure_reason: Nullable(Type.String()),
  created_at: Timestamp,
  version: Type.Integer(),
});

export const OrderDetailSchema = Type.Object({ ...orderFields, payments: Type.Array(PaymentSchema) });

export const OrderPageSchema = Type.Object({
  items: Type.Array(OrderSchema, { description: 'Newest first' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], {
    description: 'Pass as cursor for the next page; null on the last page',
  }),
});

export const OrderParamsSchema = Type.Object({ id: Uuid });
export const PaymentParamsSchema = Type.Object({ id: Uuid });

export const RefundBodySchema = Type.Object(
  {
    amount_minor: Type.Optional(
      MinorUnits({
        minimum: 1,
        description: 'How much to give back, in minor units; omitted: all that is left to refund',
      }),
    ),
  },
  { additionalProperties: false },
);
