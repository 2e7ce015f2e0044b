import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { InvalidRequestError } from '../../shared/http/errors.ts';
import { MANAGER_ROLES } from '../../shared/roles.ts';
import type { SalesCalendar } from './sales.ts';
import * as schemas from './schemas.ts';
import type { PaymentInput, PaymentService } from './service.ts';

export interface PaymentRoutesOptions {
  payments: PaymentService;
  /** The store's location: its business day, time zone and currency for the sales figures. */
  location: SalesCalendar;
}

const doc = { tags: ['payments'], security: [{ bearer: [] }] };
const payment = Envelope(schemas.PaymentSchema);
const commandResponses = { 200: payment, ...errorResponses(400, 401, 403, 404, 409) };

/** Currency units to minor units, refusing fractions of a cent rather than rounding them away. */
function toMinor(field: string, value: number) {
  const minor = Math.round(value * 100);
  if (Math.abs(value * 100 - minor) > 1e-6)
    throw new InvalidRequestError('The request is invalid', [
      { field, message: 'must have at most 2 decimals' },
    ]);
  return minor;
}

function toInput({ amount, tip, ...rest }: schemas.NewPayment): PaymentInput {
  return {
    ...rest,
    amount_minor: toMinor('body.amount', amount),
    tip_minor: tip === undefined ? undefined : toMinor('body.tip', tip),
  };
}

/** Payments the terminals report for an order; captures, voids, and refunds by managers. */
export async function paymentRoutes(app: FastifyInstance, { payments, location }: PaymentRoutesOptions) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const staff = { onRequest: app.authenticate() };
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };

  r.post(
    '/orders/:order_id/payments',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Record a card or cash payment as the terminal reported it',
        params: schemas.OrderParamsSchema,
        body: schemas.NewPaymentSchema,
        response: { 201: payment, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const recorded = payments.record(request.params.order_id, toInput(request.body));
      reply.code(201);
      return envelope(request.id, recorded);
    },
  );

  r.get(
    '/orders/:order_id/payments',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'The payments of an order',
        params: schemas.OrderParamsSchema,
        response: { 200: Envelope(Type.Array(schemas.PaymentSchema)), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, payments.listForOrder(request.params.order_id)),
  );

  r.get(
    '/sales/today',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Today’s sales against the same weekday last week, in total and by hour',
        querystring: Type.Object({}, { additionalProperties: false }),
        response: { 200: Envelope(schemas.SalesTodaySchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request.id, payments.salesToday(location)),
  );

  r.post(
    '/payments/:payment_id/capture',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Capture an authorized card payment',
        params: schemas.PaymentParamsSchema,
        response: commandResponses,
      },
    },
    async (request) => envelope(request.id, payments.capture(request.params.payment_id)),
  );

  r.post(
    '/payments/:payment_id/void',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Release an authorization that was never captured',
        params: schemas.PaymentParamsSchema,
        response: commandResponses,
      },
    },
    async (request) => envelope(request.id, payments.void(request.params.payment_id)),
  );

  r.post(
    '/payments/:payment_id/refund',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Refund part or all of a captured payment (managers only)',
        params: schemas.PaymentParamsSchema,
        body: schemas.RefundSchema,
        response: commandResponses,
      },
    },
    async (request) =>
      envelope(
        request.id,
        payments.refund(request.params.payment_id, toMinor('body.amount', request.body.amount)),
      ),
  );
}
