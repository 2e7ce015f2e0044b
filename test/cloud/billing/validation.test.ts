import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBSCRIPTION_STATUSES } from '../../../cloud/billing/tables.ts';
import { backends } from '../../support/stores.ts';
import {
  addonBody,
  type BillingCloud,
  billingCloud,
  createSubscription,
  discountBody,
  eventBody,
  fails,
  invoiceBody,
  refundBody,
  subscriptionBody,
  usageBody,
} from './billing-cloud.ts';

type Case = [field: string, value: unknown, accepted: boolean];
const text = (length: number) => 'x'.repeat(length);
const UUID = '0190c0de-0000-7000-8000-00000000abcd';

/** Each case changes one field of a valid body (undefined removes it); accepted or a 400 validation_error. */
const TABLES: Record<
  string,
  { path: string; body: (subscriptionId: string) => Record<string, unknown>; cases: Case[] }
> = {
  subscription: {
    path: '/v1/billing/subscriptions',
    body: () => subscriptionBody(),
    cases: [
      ['plan_id', 'not-a-uuid', false],
      ['plan_id', undefined, false],
      ['processor_subscription_id', '', false],
      ['processor_subscription_id', text(255), true],
      ['processor_subscription_id', text(256), false],
      ['processor_subscription_id', undefined, false],
      ['current_period_end', '2030-01-31', false],
      ['current_period_end', '31/01/2030', false],
      ['current_period_end', '2030-01-31T00:00:00+02:00', true],
      ['current_period_end', undefined, false],
      ['status', 'bogus', false],
      ['status', undefined, false],
      ...SUBSCRIPTION_STATUSES.map((status): Case => ['status', status, true]),
      ['cancel_at_period_end', 'maybe', false],
      ['cancel_at_period_end', true, true],
      ['surprise', 1, false],
    ],
  },
  addon: {
    path: '/v1/billing/addons',
    body: () => addonBody(),
    cases: [
      ['name', '', false],
      ['name', text(1), true],
      ['name', text(255), true],
      ['name', text(256), false],
      ['name', undefined, false],
      ['description', text(1000), true],
      ['description', text(1001), false],
      ['addon_type', 'monthly', false],
      ['addon_type', 'recurring', true],
      ['addon_type', 'one_time', true],
      ['addon_type', undefined, false],
      ['price_cents', -1, false],
      ['price_cents', 0, true],
      ['price_cents', 1.5, false],
      ['price_cents', undefined, false],
      ['currency', 'usd', false],
      ['currency', 'US', false],
      ['currency', 'USDD', false],
      ['currency', 'XYZ', false],
      ['currency', 'EUR', true],
      ['currency', 'JPY', true],
      ['currency', undefined, false],
      ['processor_price_id', 'price_1', true],
      ['metadata_json', '{"seats": 3}', true],
      ['metadata_json', '{seats: 3', false],
    ],
  },
  discount: {
    path: '/v1/billing/discounts',
    body: () => discountBody(),
    cases: [
      ['code', '', false],
      ['code', text(100), true],
      ['code', text(101), false],
      ['code', undefined, false],
      ['name', '', false],
      ['name', text(255), true],
      ['name', text(256), false],
      ['description', text(1000), true],
      ['description', text(1001), false],
      ['discount_type', 'bogo', false],
      ['discount_type', undefined, false],
      ['discount_value', 0, false],
      ['discount_value', 1, true],
      ['discount_value', 100, true],
      ['discount_value', 101, false],
      ['discount_value', undefined, false],
      ['duration', 'weekly', false],
      ['duration', 'forever', true],
      ['duration', undefined, false],
      ['duration_months', 3, false],
      ['max_redemptions', 0, false],
      ['max_redemptions', 1, true],
      ['valid_from', 'yesterday', false],
      ['valid_from', undefined, false],
      ['valid_to', '2019-12-31T00:00:00Z', false],
      ['valid_to', '2020-01-01T00:00:00Z', false],
      ['valid_to', '2031-01-01T00:00:00Z', true],
      ['applies_to_plan_ids', ['plan-a'], false],
      ['applies_to_plan_ids', [UUID], true],
      ['processor_coupon_id', 'co_1', true],
    ],
  },
  'repeating discount': {
    path: '/v1/billing/discounts',
    body: () => discountBody({ duration: 'repeating', duration_months: 3 }),
    cases: [
      ['duration_months', 0, false],
      ['duration_months', 1, true],
      ['duration_months', undefined, false],
    ],
  },
  'fixed discount': {
    path: '/v1/billing/discounts',
    body: () => discountBody({ discount_type: 'fixed_amount', discount_value: 500 }),
    cases: [
      ['discount_value', 101, true],
      ['discount_value', 0, false],
    ],
  },
  validate: {
    path: '/v1/billing/discounts/validate',
    body: () => ({ code: 'ANY', cart_total_cents: 1000 }),
    cases: [
      ['code', '', false],
      ['code', text(100), true],
      ['code', text(101), false],
      ['code', undefined, false],
      ['plan_id', 'plan', false],
      ['plan_id', UUID, true],
      ['cart_total_cents', -1, false],
      ['cart_total_cents', 0, true],
      ['cart_total_cents', undefined, false],
    ],
  },
  invoice: {
    path: '/v1/billing/invoices',
    body: () => invoiceBody(),
    cases: [
      ['processor_invoice_id', undefined, false],
      ['processor_invoice_id', '', false],
      ['subscription_id', 'sub', false],
      ['amount_due', -1, false],
      ['amount_due', 0, true],
      ['amount_due', undefined, false],
      ['amount_paid', -1, false],
      ['amount_paid', 0, true],
      ['currency', 'eur', false],
      ['currency', undefined, false],
      ['status', 'sent', false],
      ['status', 'uncollectible', true],
      ['status', undefined, false],
      ['invoice_pdf', 'not a url', false],
      ['invoice_pdf', 'ftp://files.example.test/in.pdf', false],
      ['invoice_pdf', 'https://files.example.test/in.pdf', true],
      ['hosted_invoice_url', 'https://pay.example.test/in', true],
    ],
  },
  refund: {
    path: '/v1/billing/refunds',
    body: () => refundBody(),
    cases: [
      ['processor_refund_id', undefined, false],
      ['processor_charge_id', undefined, false],
      ['invoice_id', 'in_1', false],
      ['amount', 0, false],
      ['amount', 1, true],
      ['amount', undefined, false],
      ['currency', 'EURO', false],
      ['status', 'done', false],
      ['status', 'canceled', true],
      ['status', undefined, false],
      ['reason', 'changed_mind', false],
      ['reason', 'requested_by_customer', true],
      ['description', text(1000), true],
      ['description', text(1001), false],
    ],
  },
  usage: {
    path: '/v1/billing/usage',
    body: (subscriptionId) => usageBody(subscriptionId),
    cases: [
      ['subscription_id', 'sub_1', false],
      ['subscription_id', undefined, false],
      ['metric_name', '', false],
      ['metric_name', text(100), true],
      ['metric_name', text(101), false],
      ['quantity', 0, false],
      ['quantity', 1, true],
      ['quantity', undefined, false],
      ['timestamp', '2030-01-10 12:00', false],
      ['timestamp', undefined, false],
      ['idempotency_key', '', false],
      ['idempotency_key', text(255), true],
      ['idempotency_key', text(256), false],
      ['idempotency_key', undefined, false],
    ],
  },
  event: {
    path: '/v1/billing/events',
    body: (subscriptionId) => eventBody(subscriptionId),
    cases: [
      ['subscription_id', 'nope', false],
      ['event_type', 'renewed', false],
      ['event_type', 'churned', true],
      ['event_type', undefined, false],
      ['currency', 'ABC', false],
      ['currency', undefined, false],
      ['from_mrr_cents', -1, false],
      ['to_mrr_cents', 0, true],
      ['reason', text(1000), true],
      ['reason', text(1001), false],
      ['event_at', 'now', false],
      ['event_at', undefined, false],
    ],
  },
};

describe.each(backends)('billing validation on %s', (backend) => {
  let c: BillingCloud;
  let subscriptionId: string;
  beforeAll(async () => {
    c = await billingCloud(backend);
    subscriptionId = (await createSubscription(c.adminA)).id;
  });
  afterAll(() => c.cloud.close());

  for (const [name, table] of Object.entries(TABLES)) {
    it.each(table.cases)(`${name}: %s = %j accepted: %s`, async (field, value, accepted) => {
      const body = { ...table.body(subscriptionId), [field]: value };
      if (value === undefined) delete body[field];
      const response = await c.adminA('POST', table.path, body);
      if (accepted) expect(response.statusCode, response.body).toBeLessThan(300);
      else fails(response, 400, 'validation_error');
    });
  }

  it('names the field that failed', async () => {
    const message = fails(
      await c.adminA('POST', '/v1/billing/usage', usageBody(subscriptionId, { quantity: 0 })),
      400,
      'validation_error',
    );
    expect(message).toContain('body.quantity');
  });

  it.each([
    ['GET', '/v1/billing/subscriptions/not-a-uuid'],
    ['GET', '/v1/billing/subscriptions/not-a-uuid/dunning'],
    ['GET', '/v1/billing/addons/42'],
    ['GET', '/v1/billing/discounts/42'],
    ['GET', '/v1/billing/refunds?limit=0'],
    ['GET', '/v1/billing/events?limit=0'],
    ['GET', '/v1/billing/events?subscription_id=abc'],
    ['GET', '/v1/billing/discounts/by-code'],
    ['GET', `/v1/billing/subscriptions/${UUID}/usage?metric_name=orders&start_time=2030-01-01T00:00:00Z`],
    [
      'GET',
      `/v1/billing/subscriptions/${UUID}/usage?metric_name=orders&start_time=x&end_time=2030-01-02T00:00:00Z`,
    ],
  ] as const)('%s %s answers 400 validation_error', async (method, path) => {
    fails(await c.adminA(method, path), 400, 'validation_error');
  });

  it('patch bodies keep to their fields and limits', async () => {
    const path = `/v1/billing/subscriptions/${subscriptionId}`;
    fails(await c.adminA('PATCH', path, { processor_subscription_id: 'x' }), 400, 'validation_error');
    fails(await c.adminA('PATCH', path, { status: 'frozen' }), 400, 'validation_error');
    fails(await c.adminA('PATCH', path, { plan_id: 'p' }), 400, 'validation_error');
    const addon = (await c.adminA('POST', '/v1/billing/addons', addonBody())).json();
    fails(
      await c.adminA('PATCH', `/v1/billing/addons/${addon.id}`, { price_cents: -1 }),
      400,
      'validation_error',
    );
    fails(
      await c.adminA('PATCH', `/v1/billing/addons/${addon.id}`, { currency: 'EUR' }),
      400,
      'validation_error',
    );
    fails(await c.adminA('PATCH', `/v1/billing/addons/${addon.id}`, { name: '' }), 400, 'validation_error');
    const discount = (await c.adminA('POST', '/v1/billing/discounts', discountBody())).json();
    const discountPath = `/v1/billing/discounts/${discount.id}`;
    fails(await c.adminA('PATCH', discountPath, { max_redemptions: 0 }), 400, 'validation_error');
    fails(await c.adminA('PATCH', discountPath, { discount_value: 5 }), 400, 'validation_error');
    fails(
      await c.adminA('PATCH', discountPath, { valid_to: '2019-01-01T00:00:00Z' }),
      400,
      'validation_error',
    );
    fails(await c.adminA('PATCH', discountPath, { description: text(1001) }), 400, 'validation_error');
  });

  it('subscription add-on quantity is at least 1', async () => {
    const addon = (await c.adminA('POST', '/v1/billing/addons', addonBody())).json();
    const path = `/v1/billing/subscriptions/${subscriptionId}/addons`;
    fails(await c.adminA('POST', path, { addon_id: addon.id, quantity: 0 }), 400, 'validation_error');
    fails(await c.adminA('POST', path, { addon_id: 'a', quantity: 1 }), 400, 'validation_error');
    expect((await c.adminA('POST', path, { addon_id: addon.id, quantity: 1 })).statusCode).toBe(201);
  });

  it('dunning failure needs the processor subscription id', async () => {
    const path = `/v1/billing/subscriptions/${subscriptionId}/dunning/failure`;
    fails(await c.adminA('POST', path, {}), 400, 'validation_error');
    fails(await c.adminA('POST', path, { processor_subscription_id: 'sub_other' }), 400, 'validation_error');
    fails(
      await c.adminA('POST', path, { processor_subscription_id: 'x', failure_message: text(1001) }),
      400,
      'validation_error',
    );
  });
});
