import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BILLING_ROLES } from '../../../cloud/billing/index.ts';
import { backends } from '../../support/stores.ts';
import {
  addonBody,
  type BillingCloud,
  billingCloud,
  type Call,
  caller,
  createSubscription,
  discountBody,
  eventBody,
  fails,
  invoiceBody,
  memberCall,
  noTenantCall,
  ok,
  refundBody,
  usageBody,
} from './billing-cloud.ts';

const OTHER_ROLES = ['manager', 'restaurant_manager', 'cockpit_operator', 'staff'];
const UUID = '0190c0de-0000-7000-8000-00000000abcd';

/** One call per billing route, each valid for a subscription id. */
const ROUTES = (
  id: string,
): Array<[method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown]> => [
  ['POST', '/v1/billing/subscriptions', undefined],
  ['GET', `/v1/billing/subscriptions/${id}`],
  ['PATCH', `/v1/billing/subscriptions/${id}`, {}],
  ['POST', `/v1/billing/subscriptions/${id}/pause`],
  ['POST', `/v1/billing/subscriptions/${id}/resume`],
  ['POST', '/v1/billing/addons', addonBody()],
  ['GET', '/v1/billing/addons'],
  ['GET', `/v1/billing/addons/${UUID}`],
  ['PATCH', `/v1/billing/addons/${UUID}`, {}],
  ['DELETE', `/v1/billing/addons/${UUID}`],
  ['POST', `/v1/billing/subscriptions/${id}/addons`, { addon_id: UUID, quantity: 1 }],
  ['GET', `/v1/billing/subscriptions/${id}/addons`],
  ['DELETE', `/v1/billing/subscriptions/${id}/addons/${UUID}`],
  ['POST', '/v1/billing/discounts', discountBody()],
  ['GET', '/v1/billing/discounts?active_only=true'],
  ['GET', `/v1/billing/discounts/${UUID}`],
  ['GET', '/v1/billing/discounts/by-code?code=NONE'],
  ['POST', '/v1/billing/discounts/validate', { code: 'NONE', cart_total_cents: 10 }],
  ['PATCH', `/v1/billing/discounts/${UUID}`, {}],
  ['DELETE', `/v1/billing/discounts/${UUID}`],
  ['POST', `/v1/billing/subscriptions/${id}/discount`, { discount_code: 'NONE' }],
  ['DELETE', `/v1/billing/subscriptions/${id}/discount`],
  ['POST', '/v1/billing/invoices', invoiceBody()],
  ['POST', '/v1/billing/invoices/record', invoiceBody()],
  ['GET', '/v1/billing/refunds?limit=5'],
  ['POST', '/v1/billing/refunds', refundBody()],
  ['GET', `/v1/billing/subscriptions/${id}/dunning`],
  ['POST', `/v1/billing/subscriptions/${id}/dunning/failure`, { processor_subscription_id: 'x' }],
  ['POST', `/v1/billing/subscriptions/${id}/dunning/recovered`],
  ['POST', '/v1/billing/usage', usageBody(id)],
  ['POST', '/v1/billing/usage/batch', { records: [usageBody(id)] }],
  [
    'GET',
    `/v1/billing/subscriptions/${id}/usage?metric_name=orders&start_time=2030-01-01T00:00:00Z&end_time=2030-02-01T00:00:00Z`,
  ],
  ['GET', '/v1/billing/events'],
  ['POST', '/v1/billing/events', eventBody(id)],
  ['GET', '/v1/billing/metrics/mrr?start=2030-01-01T00:00:00Z&end=2030-02-01T00:00:00Z'],
];

describe.each(backends)('billing access on %s', (backend) => {
  let c: BillingCloud;
  const byRole = new Map<string, Call>();
  beforeAll(async () => {
    c = await billingCloud(backend);
    for (const role of [...BILLING_ROLES, ...OTHER_ROLES])
      byRole.set(role, await memberCall(c.cloud, c.a.tenant.id, `${role}@alpha.test`, [role]));
  });
  afterAll(() => c.cloud.close());

  it('admits exactly the billing roles of spec 2', () => {
    expect([...BILLING_ROLES].sort()).toEqual(
      ['billing_admin', 'finance', 'tenant_admin', 'platform_admin', 'system_admin', 'super_admin'].sort(),
    );
  });

  it.each(BILLING_ROLES)('%s may use billing', async (role) => {
    const call = byRole.get(role)!;
    const sub = await createSubscription(call);
    ok(await call('GET', `/v1/billing/subscriptions/${sub.id}`));
    ok(await call('GET', '/v1/billing/addons'));
    ok(await call('POST', '/v1/billing/usage', usageBody(sub.id)), 201);
  });

  it.each(OTHER_ROLES)('%s is refused every billing route with 403 in the billing form', async (role) => {
    const call = byRole.get(role)!;
    for (const [method, path, body] of ROUTES(UUID)) {
      fails(await call(method, path, body ?? (method === 'POST' ? {} : undefined)), 403, 'forbidden');
    }
  });

  it('a token without tenant_id answers 401 missing_tenant everywhere', async () => {
    const call = await noTenantCall(c.cloud);
    for (const [method, path, body] of ROUTES(UUID)) {
      fails(await call(method, path, body), 401, 'missing_tenant');
    }
  });

  it('no token, or a bad one, answers 401 in the billing form', async () => {
    fails(await caller(c.cloud)('GET', '/v1/billing/addons'), 401, 'missing_token');
    fails(await caller(c.cloud, 'garbage')('GET', '/v1/billing/addons'), 401, 'invalid_token');
  });

  it('another tenant’s admin reaches nothing of A’s: 404s, empty lists, nothing changed', async () => {
    const sub = await createSubscription(c.adminA);
    const addon = ok(await c.adminA('POST', '/v1/billing/addons', addonBody()), 201);
    const discount = ok(await c.adminA('POST', '/v1/billing/discounts', discountBody()), 201);
    ok(
      await c.adminA('POST', `/v1/billing/subscriptions/${sub.id}/addons`, {
        addon_id: addon.id,
        quantity: 2,
      }),
      201,
    );
    const invoice = ok(
      await c.adminA('POST', '/v1/billing/invoices', invoiceBody({ subscription_id: sub.id })),
      201,
    );
    ok(await c.adminA('POST', '/v1/billing/refunds', refundBody({ invoice_id: invoice.id })), 201);
    ok(await c.adminA('POST', '/v1/billing/events', eventBody(sub.id, { to_mrr_cents: 4900 })), 201);
    const usage = usageBody(sub.id, { quantity: 5 });
    ok(await c.adminA('POST', '/v1/billing/usage', usage), 201);
    const before = ok(await c.adminA('GET', `/v1/billing/subscriptions/${sub.id}`));

    const b = c.adminB;
    const s = `/v1/billing/subscriptions/${sub.id}`;
    for (const [method, path, body] of [
      ['GET', s],
      ['PATCH', s, { status: 'canceled' }],
      ['POST', `${s}/pause`],
      ['POST', `${s}/resume`],
      ['GET', `${s}/addons`],
      ['POST', `${s}/addons`, { addon_id: addon.id, quantity: 1 }],
      ['DELETE', `${s}/addons/${addon.id}`],
      ['POST', `${s}/discount`, { discount_code: discount.code }],
      ['DELETE', `${s}/discount`],
      ['GET', `${s}/dunning`],
      ['POST', `${s}/dunning/failure`, { processor_subscription_id: sub.processor_subscription_id }],
      ['POST', `${s}/dunning/recovered`],
      ['GET', `${s}/usage?metric_name=orders&start_time=2030-01-01T00:00:00Z&end_time=2030-02-01T00:00:00Z`],
      ['GET', `/v1/billing/addons/${addon.id}`],
      ['PATCH', `/v1/billing/addons/${addon.id}`, { name: 'Mine now' }],
      ['DELETE', `/v1/billing/addons/${addon.id}`],
      ['GET', `/v1/billing/discounts/${discount.id}`],
      ['GET', `/v1/billing/discounts/by-code?code=${discount.code}`],
      ['PATCH', `/v1/billing/discounts/${discount.id}`, { name: 'Mine now' }],
      ['DELETE', `/v1/billing/discounts/${discount.id}`],
      ['POST', '/v1/billing/usage', usageBody(sub.id)],
      ['POST', '/v1/billing/events', eventBody(sub.id)],
      ['POST', '/v1/billing/invoices', invoiceBody({ subscription_id: sub.id })],
      ['POST', '/v1/billing/refunds', refundBody({ invoice_id: invoice.id })],
    ] as const) {
      fails(await b(method, path, body), 404, 'not_found');
    }
    expect(ok(await b('GET', '/v1/billing/addons')).items).toEqual([]);
    expect(ok(await b('GET', '/v1/billing/discounts')).items).toEqual([]);
    expect(ok(await b('GET', '/v1/billing/refunds')).items).toEqual([]);
    expect(ok(await b('GET', '/v1/billing/events')).items).toEqual([]);
    expect(ok(await b('GET', `/v1/billing/events?subscription_id=${sub.id}`)).items).toEqual([]);
    const validation = ok(
      await b('POST', '/v1/billing/discounts/validate', { code: discount.code, cart_total_cents: 100 }),
    );
    expect(validation).toMatchObject({ valid: false, reason: 'not_found', discount_cents: 0 });
    const mrr = ok(
      await b('GET', '/v1/billing/metrics/mrr?start=2029-01-01T00:00:00Z&end=2031-01-01T00:00:00Z'),
    );
    expect(mrr.end_mrr_cents).toBe(0);
    // The same idempotency key in B is B's own record, not a duplicate of A's.
    const subB = await createSubscription(b);
    const own = ok(await b('POST', '/v1/billing/usage', { ...usage, subscription_id: subB.id }), 201);
    expect(own).toMatchObject({ tenant_id: c.b.tenant.id, duplicate: false });
    // B's invoice may reuse A's processor id: uniqueness is per tenant.
    ok(
      await b(
        'POST',
        '/v1/billing/invoices',
        invoiceBody({ processor_invoice_id: invoice.processor_invoice_id }),
      ),
      201,
    );

    expect(ok(await c.adminA('GET', s))).toEqual(before);
    expect(ok(await c.adminA('GET', `/v1/billing/addons/${addon.id}`))).toEqual(addon);
    expect(ok(await c.adminA('GET', `/v1/billing/discounts/${discount.id}`))).toEqual(discount);
    expect(ok(await c.adminA('GET', `${s}/addons`)).items).toHaveLength(1);
    const summary = ok(
      await c.adminA(
        'GET',
        `${s}/usage?metric_name=orders&start_time=2030-01-01T00:00:00Z&end_time=2030-02-01T00:00:00Z`,
      ),
    );
    expect(summary).toMatchObject({ total_quantity: 5, record_count: 1 });
  });
});
