import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { doc, tenant } from './routes-support.ts';
import { billingErrors, ListOf } from './schemas.ts';
import * as r2 from './schemas-records.ts';
import type { BillingService } from './service.ts';

/** Invoices, refunds, usage, subscription events and the MRR they add up to. */
export async function recordRoutes(app: FastifyInstance, billing: BillingService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.post(
    '/invoices',
    {
      schema: {
        ...doc('Record an invoice', '409 conflict when its processor_invoice_id is recorded already.'),
        body: r2.NewInvoiceSchema,
        response: { 201: r2.InvoiceSchema, ...billingErrors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await billing.createInvoice(tenant(request), request.body)),
  );

  r.post(
    '/invoices/record',
    {
      schema: {
        ...doc(
          'Record or update an invoice from a processor notification',
          'By processor_invoice_id: 201 when new, 200 when it updated the invoice (fields left out keep their value).',
        ),
        body: r2.NewInvoiceSchema,
        response: { 200: r2.InvoiceSchema, 201: r2.InvoiceSchema, ...billingErrors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      const result = await billing.recordInvoice(tenant(request), request.body);
      return reply.code(result.created ? 201 : 200).send(result.invoice);
    },
  );

  r.get(
    '/invoices',
    {
      schema: {
        ...doc(
          'Invoices, newest first',
          'As the payment processor reported them (POST /invoices, /invoices/record).',
        ),
        querystring: r2.LimitQuerySchema,
        response: { 200: ListOf(r2.InvoiceSchema), ...billingErrors(400, 401, 403) },
      },
    },
    async (request) => ({ items: await billing.listInvoices(tenant(request), request.query.limit) }),
  );

  r.get(
    '/refunds',
    {
      schema: {
        ...doc('Refunds, newest first'),
        querystring: r2.LimitQuerySchema,
        response: { 200: ListOf(r2.RefundSchema), ...billingErrors(400, 401, 403) },
      },
    },
    async (request) => ({ items: await billing.listRefunds(tenant(request), request.query.limit) }),
  );

  r.post(
    '/refunds',
    {
      schema: {
        ...doc('Record a refund', '409 conflict when its processor_refund_id is recorded already.'),
        body: r2.NewRefundSchema,
        response: { 201: r2.RefundSchema, ...billingErrors(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => reply.code(201).send(await billing.createRefund(tenant(request), request.body)),
  );

  r.post(
    '/usage',
    {
      schema: {
        ...doc(
          'Record usage',
          'Idempotent by idempotency_key per tenant: 201 with duplicate false when new; 200 with duplicate true and the record first stored when the key was seen before (never counted twice, even for concurrent posts).',
        ),
        body: r2.NewUsageSchema,
        response: {
          200: r2.UsageRecordSchema,
          201: r2.UsageRecordSchema,
          ...billingErrors(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const record = await billing.postUsage(tenant(request), request.body);
      return reply.code(record.duplicate ? 200 : 201).send(record);
    },
  );

  r.post(
    '/usage/batch',
    {
      schema: {
        ...doc(
          'Record up to 1000 usage records',
          'Each record idempotent as in POST /usage; one outcome per record, in order (created, duplicate, not_found for an unknown subscription). A bad record refuses the whole batch (400).',
        ),
        body: r2.UsageBatchSchema,
        response: { 200: r2.UsageBatchResultSchema, ...billingErrors(400, 401, 403) },
      },
    },
    async (request) => billing.postUsageBatch(tenant(request), request.body.records),
  );

  r.get(
    '/events',
    {
      schema: {
        ...doc('Subscription events, latest first'),
        querystring: r2.EventListQuerySchema,
        response: { 200: ListOf(r2.EventSchema), ...billingErrors(400, 401, 403) },
      },
    },
    async (request) => ({
      items: await billing.listEvents(tenant(request), {
        subscriptionId: request.query.subscription_id,
        limit: request.query.limit,
      }),
    }),
  );

  r.post(
    '/events',
    {
      schema: {
        ...doc('Record a subscription event'),
        body: r2.NewEventSchema,
        response: { 201: r2.EventSchema, ...billingErrors(400, 401, 403, 404) },
      },
    },
    async (request, reply) => reply.code(201).send(await billing.createEvent(tenant(request), request.body)),
  );

  r.get(
    '/metrics/mrr',
    {
      schema: {
        ...doc(
          'MRR movement over [start, end)',
          'Replayed from subscription events. MRR after an event: to_mrr_cents, else unchanged (canceled/churned: 0); before: from_mrr_cents, else the replayed MRR. Inside the range: new (0 → more, first time), reactivation (0 → more again, or reactivated/resumed), expansion/contraction (change while above 0), churned (more → 0). net_new = new + expansion + reactivation − contraction − churned; churn_rate_pct = churned customers / customers at start × 100. Optional currency filter; without it all currencies are summed.',
        ),
        querystring: r2.MrrQuerySchema,
        response: { 200: r2.MrrSchema, ...billingErrors(400, 401, 403) },
      },
    },
    async (request) => billing.mrr(tenant(request), request.query),
  );
}
