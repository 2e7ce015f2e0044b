import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { CloudConfig } from '../../../cloud/config.ts';
import { newId } from '../../../shared/ids.ts';
import { bearer, createTestCloud, loginTokens, seedTenant, type TestCloud } from '../../support/cloud.ts';

export const PASSWORD = 'correct-horse-battery';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type Call = (method: Method, path: string, payload?: unknown) => Promise<LightMyRequestResponse>;

export const caller =
  (cloud: TestCloud, token?: string): Call =>
  (method, path, payload) =>
    cloud.app.inject({
      method,
      url: path,
      ...(payload !== undefined ? { payload: payload as Record<string, unknown> } : {}),
      headers: token ? bearer(token) : {},
    });

/** Signs a new member of the tenant in; calls as them. */
export async function memberCall(cloud: TestCloud, tenantId: string, email: string, roles: string[]) {
  await cloud.services.tenancy.addUser(tenantId, { email, password: PASSWORD, roles });
  return caller(cloud, (await loginTokens(cloud.app, { email, password: PASSWORD })).access_token);
}

/** A genuinely signed access token whose claims lack tenant_id (a platform-level or broken issuer). */
export async function noTenantCall(cloud: TestCloud) {
  const claims = { sub: newId(), email: 'nobody@example.test', roles: ['super_admin'], session_id: newId() };
  const token = await cloud.services.identity.tokens.issueAccess(claims as never);
  return caller(cloud, token);
}

/** Two tenants, alpha and bravo, each with a tenant admin. */
export async function billingCloud(backend: 'sqlite' | 'pg', config: Partial<CloudConfig> = {}) {
  const cloud = await createTestCloud(backend, { config: { rateLimit: false, ...config } });
  const a = await seedTenant(cloud.services, 'alpha');
  const b = await seedTenant(cloud.services, 'bravo');
  return {
    cloud,
    a,
    b,
    adminA: await memberCall(cloud, a.tenant.id, 'admin@alpha.test', ['tenant_admin']),
    adminB: await memberCall(cloud, b.tenant.id, 'admin@bravo.test', ['tenant_admin']),
  };
}
export type BillingCloud = Awaited<ReturnType<typeof billingCloud>>;

export function ok(response: LightMyRequestResponse, status = 200) {
  expect(response.statusCode, response.body).toBe(status);
  return response.json();
}

/** The billing error form exactly: `{ error, message }`. */
export function fails(response: LightMyRequestResponse, status: number, error: string) {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json();
  expect(body).toEqual({ error, message: expect.any(String) });
  return body.message as string;
}

export const PLAN = '0190c0de-0000-7000-8000-000000000001';
export const OTHER_PLAN = '0190c0de-0000-7000-8000-000000000002';

export const subscriptionBody = (overrides: Record<string, unknown> = {}) => ({
  plan_id: PLAN,
  processor_subscription_id: `sub_${newId().slice(-12)}`,
  current_period_end: '2030-01-31T00:00:00Z',
  status: 'active',
  ...overrides,
});

export async function createSubscription(call: Call, overrides: Record<string, unknown> = {}) {
  return ok(await call('POST', '/v1/billing/subscriptions', subscriptionBody(overrides)), 201) as {
    id: string;
    status: string;
    processor_subscription_id: string;
    [field: string]: unknown;
  };
}

export const addonBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Extra kiosk',
  addon_type: 'per_location',
  price_cents: 1500,
  currency: 'USD',
  ...overrides,
});

export const discountBody = (overrides: Record<string, unknown> = {}) => ({
  code: `CODE${newId().slice(-8)}`,
  name: 'Launch offer',
  discount_type: 'percentage',
  discount_value: 20,
  duration: 'once',
  valid_from: '2020-01-01T00:00:00Z',
  ...overrides,
});

export const invoiceBody = (overrides: Record<string, unknown> = {}) => ({
  processor_invoice_id: `in_${newId().slice(-12)}`,
  amount_due: 4900,
  currency: 'USD',
  status: 'open',
  ...overrides,
});

export const refundBody = (overrides: Record<string, unknown> = {}) => ({
  processor_refund_id: `re_${newId().slice(-12)}`,
  processor_charge_id: 'ch_1',
  amount: 500,
  currency: 'USD',
  status: 'succeeded',
  ...overrides,
});

export const usageBody = (subscriptionId: string, overrides: Record<string, unknown> = {}) => ({
  subscription_id: subscriptionId,
  metric_name: 'orders',
  quantity: 1,
  timestamp: '2030-01-10T12:00:00Z',
  idempotency_key: newId(),
  ...overrides,
});

export const eventBody = (subscriptionId: string, overrides: Record<string, unknown> = {}) => ({
  subscription_id: subscriptionId,
  event_type: 'created',
  currency: 'USD',
  event_at: '2030-01-01T00:00:00Z',
  ...overrides,
});
