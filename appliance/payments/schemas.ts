import { type Static, Type } from '@sinclair/typebox';
import { CurrencyUnits, MAX_CURRENCY_UNITS } from '../../shared/http/numbers.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Money = Type.Number();
const Amount = Type.Number({
  exclusiveMinimum: 0,
  maximum: MAX_CURRENCY_UNITS,
  description: 'currency units, at most 2 decimals',
});
const Text = Type.String({ minLength: 1, maxLength: 200 });
const Method = Type.Union([Type.Literal('card'), Type.Literal('cash')]);

export const NewPaymentSchema = Type.Object(
  {
    method: Method,
    amount: Amount,
    tip: Type.Optional(CurrencyUnits({ description: 'currency units, at most 2 decimals' })),
    outcome: Type.Optional(Type.Union([Type.Literal('approved'), Type.Literal('declined')])),
    failure_reason: Type.Optional(Text),
    capture: Type.Optional(Type.Boolean()),
    card: Type.Optional(
      Type.Object(
        { brand: Type.String({ minLength: 1, maxLength: 50 }), last4: Type.String({ pattern: '^\\d{4}$' }) },
        { additionalProperties: false },
      ),
    ),
    transaction_id: Type.Optional(Text),
  },
  { additionalProperties: false },
);
export type NewPayment = Static<typeof NewPaymentSchema>;

export const RefundSchema = Type.Object({ amount: Amount }, { additionalProperties: false });

export const OrderParamsSchema = Type.Object({ order_id: Uuid });
export const PaymentParamsSchema = Type.Object({ payment_id: Uuid });

export const PaymentSchema = Type.Object({
  id: Uuid,
  order_id: Uuid,
  method: Method,
  status: Type.Union([
    Type.Literal('authorized'),
    Type.Literal('captured'),
    Type.Literal('voided'),
    Type.Literal('failed'),
  ]),
  amount: Money,
  tip: Money,
  total: Money,
  refunded: Money,
  card: Type.Union([Type.Object({ brand: Type.String(), last4: Type.String() }), Type.Null()]),
  transaction_id: Type.Union([Type.String(), Type.Null()]),
  failure_reason: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  version: Type.Integer(),
});

export { SalesTodaySchema } from '../../shared/commerce/sales.ts';
