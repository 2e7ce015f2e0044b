import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type BillingCloud,
  billingCloud,
  createSubscription,
  eventBody,
  fails,
  invoiceBody,
  ok,
  refundBody,
} from './billing-cloud.ts';

const UUID = '0190c0de-0000-7000-8000-00000000abcd';

describe.each(backends)('invoices, refunds and events on %s', (backend) => {
  let c: BillingCloud;
  beforeAll(async () => {
    c = await billingCloud(backend);
  });
  afterAll(() => c.cloud.close());

  it('records an invoice, refuses its processor id twice, and /record updates it', async () => {
    const sub = await createSubscription(c.adminA);
    const at = c.cloud.clock.now().toISOString();
    const body = invoiceBody({ subscription_id: sub.id, invoice_pdf: 'https://files.example.test/in.pdf' });
    const invoice = ok(await c.adminA('POST', '/v1/billing/invoices', body), 201);
    expect(invoice).toEqual({
      id: expect.any(String),
      tenant_id: c.a.tenant.id,
      processor_invoice_id: body.processor_invoice_id,
      subscription_id: sub.id,
      amount_due: 4900,
      amount_paid: 0,
      currency: 'USD',
      status: 'open',
      invoice_pdf: 'https://files.example.test/in.pdf',
      hosted_invoice_url: null,
      created_at: at,
      updated_at: at,
    });
    fails(await c.adminA('POST', '/v1/billing/invoices', body), 409, 'conflict');
    c.cloud.clock.advance(1000);
    const paid = ok(
      await c.adminA('POST', '/v1/billing/invoices/record', {
        processor_invoice_id: body.processor_invoice_id,
        amount_due: 4900,
        amount_paid: 4900,
        currency: 'USD',
        status: 'paid',
      }),
      200,
    );
    expect(paid).toMatchObject({
      id: invoice.id,
      status: 'paid',
      amount_paid: 4900,
      subscription_id: sub.id,
      invoice_pdf: 'https://files.example.test/in.pdf',
      created_at: at,
      updated_at: c.cloud.clock.now().toISOString(),
    });
    const fresh = ok(
      await c.adminA('POST', '/v1/billing/invoices/record', invoiceBody({ status: 'draft' })),
      201,
    );
    expect(fresh).toMatchObject({ status: 'draft', subscription_id: null, amount_paid: 0 });
    fails(
      await c.adminA('POST', '/v1/billing/invoices', invoiceBody({ subscription_id: UUID })),
      404,
      'not_found',
    );
    fails(
      await c.adminA('POST', '/v1/billing/invoices/record', invoiceBody({ subscription_id: UUID })),
      404,
      'not_found',
    );
  });

  it('lists the tenant’s invoices and subscriptions newest first, and none of another tenant’s', async () => {
    const sub = await createSubscription(c.adminA);
    const first = ok(
      await c.adminA('POST', '/v1/billing/invoices', invoiceBody({ subscription_id: sub.id })),
      201,
    );
    const second = ok(await c.adminA('POST', '/v1/billing/invoices', invoiceBody()), 201);
    const invoices = ok(await c.adminA('GET', '/v1/billing/invoices?limit=2')).items;
    expect(invoices.map((i: { id: string }) => i.id)).toEqual([second.id, first.id]);
    const subscriptions = ok(await c.adminA('GET', '/v1/billing/subscriptions')).items;
    expect(subscriptions.map((s: { id: string }) => s.id)).toContain(sub.id);
    expect(ok(await c.adminB('GET', '/v1/billing/invoices')).items).toEqual([]);
    expect(ok(await c.adminB('GET', '/v1/billing/subscriptions')).items).toEqual([]);
    fails(await c.adminA('GET', '/v1/billing/invoices?limit=0'), 400, 'validation_error');
  });

  it('records refunds and lists them newest first with a limit', async () => {
    const invoice = ok(await c.adminA('POST', '/v1/billing/invoices', invoiceBody()), 201);
    const first = ok(
      await c.adminA(
        'POST',
        '/v1/billing/refunds',
        refundBody({ invoice_id: invoice.id, reason: 'duplicate', description: 'Charged twice' }),
      ),
      201,
    );
    expect(first).toEqual({
      id: expect.any(String),
      tenant_id: c.a.tenant.id,
      processor_refund_id: expect.any(String),
      processor_charge_id: 'ch_1',
      invoice_id: invoice.id,
      amount: 500,
      currency: 'USD',
      status: 'succeeded',
      reason: 'duplicate',
      description: 'Charged twice',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    fails(
      await c.adminA(
        'POST',
        '/v1/billing/refunds',
        refundBody({ processor_refund_id: first.processor_refund_id }),
      ),
      409,
      'conflict',
    );
    fails(await c.adminA('POST', '/v1/billing/refunds', refundBody({ invoice_id: UUID })), 404, 'not_found');
    const second = ok(await c.adminA('POST', '/v1/billing/refunds', refundBody()), 201);
    const third = ok(await c.adminA('POST', '/v1/billing/refunds', refundBody()), 201);
    const all = ok(await c.adminA('GET', '/v1/billing/refunds')).items;
    expect(all.map((r: { id: string }) => r.id)).toEqual([third.id, second.id, first.id]);
    expect(
      ok(await c.adminA('GET', '/v1/billing/refunds?limit=2')).items.map((r: { id: string }) => r.id),
    ).toEqual([third.id, second.id]);
  });

  it('records subscription events and lists them by subscription with a limit', async () => {
    const s1 = await createSubscription(c.adminA);
    const s2 = await createSubscription(c.adminA);
    const created = ok(
      await c.adminA(
        'POST',
        '/v1/billing/events',
        eventBody(s1.id, { to_plan_id: 'plan_basic', to_mrr_cents: 4900, reason: 'signed up' }),
      ),
      201,
    );
    expect(created).toEqual({
      id: expect.any(String),
      tenant_id: c.a.tenant.id,
      subscription_id: s1.id,
      event_type: 'created',
      from_plan_id: null,
      to_plan_id: 'plan_basic',
      from_mrr_cents: null,
      to_mrr_cents: 4900,
      currency: 'USD',
      reason: 'signed up',
      event_at: '2030-01-01T00:00:00.000Z',
      created_at: expect.any(String),
    });
    const upgraded = ok(
      await c.adminA(
        'POST',
        '/v1/billing/events',
        eventBody(s1.id, {
          event_type: 'upgraded',
          from_mrr_cents: 4900,
          to_mrr_cents: 9900,
          event_at: '2030-02-01T00:00:00Z',
        }),
      ),
      201,
    );
    ok(await c.adminA('POST', '/v1/billing/events', eventBody(s2.id)), 201);
    fails(await c.adminA('POST', '/v1/billing/events', eventBody(UUID)), 404, 'not_found');
    const forS1 = ok(await c.adminA('GET', `/v1/billing/events?subscription_id=${s1.id}`)).items;
    expect(forS1.map((e: { id: string }) => e.id)).toEqual([upgraded.id, created.id]);
    expect(ok(await c.adminA('GET', `/v1/billing/events?subscription_id=${s1.id}&limit=1`)).items).toEqual([
      upgraded,
    ]);
    expect(ok(await c.adminA('GET', '/v1/billing/events')).items.length).toBeGreaterThanOrEqual(3);
  });
});
