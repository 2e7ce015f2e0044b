import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BillingCloud, billingCloud, caller } from './billing-cloud.ts';

const ROUTES: Array<[string, string]> = [
  ['/v1/billing/subscriptions', 'post'],
  ['/v1/billing/subscriptions/{subscription_id}', 'get'],
  ['/v1/billing/subscriptions/{subscription_id}', 'patch'],
  ['/v1/billing/subscriptions/{subscription_id}/pause', 'post'],
  ['/v1/billing/subscriptions/{subscription_id}/resume', 'post'],
  ['/v1/billing/addons', 'post'],
  ['/v1/billing/addons', 'get'],
  ['/v1/billing/addons/{addon_id}', 'get'],
  ['/v1/billing/addons/{addon_id}', 'patch'],
  ['/v1/billing/addons/{addon_id}', 'delete'],
  ['/v1/billing/subscriptions/{subscription_id}/addons', 'post'],
  ['/v1/billing/subscriptions/{subscription_id}/addons', 'get'],
  ['/v1/billing/subscriptions/{subscription_id}/addons/{addon_id}', 'delete'],
  ['/v1/billing/discounts', 'post'],
  ['/v1/billing/discounts', 'get'],
  ['/v1/billing/discounts/{discount_id}', 'get'],
  ['/v1/billing/discounts/by-code', 'get'],
  ['/v1/billing/discounts/validate', 'post'],
  ['/v1/billing/discounts/{discount_id}', 'patch'],
  ['/v1/billing/discounts/{discount_id}', 'delete'],
  ['/v1/billing/subscriptions/{subscription_id}/discount', 'post'],
  ['/v1/billing/subscriptions/{subscription_id}/discount', 'delete'],
  ['/v1/billing/invoices', 'post'],
  ['/v1/billing/invoices/record', 'post'],
  ['/v1/billing/refunds', 'get'],
  ['/v1/billing/refunds', 'post'],
  ['/v1/billing/subscriptions/{subscription_id}/dunning', 'get'],
  ['/v1/billing/subscriptions/{subscription_id}/dunning/failure', 'post'],
  ['/v1/billing/subscriptions/{subscription_id}/dunning/recovered', 'post'],
  ['/v1/billing/usage', 'post'],
  ['/v1/billing/usage/batch', 'post'],
  ['/v1/billing/subscriptions/{subscription_id}/usage', 'get'],
  ['/v1/billing/events', 'get'],
  ['/v1/billing/events', 'post'],
  ['/v1/billing/metrics/mrr', 'get'],
];

describe('billing in the OpenAPI document', () => {
  let c: BillingCloud;
  beforeAll(async () => {
    c = await billingCloud('sqlite');
  });
  afterAll(() => c.cloud.close());

  it('describes every billing route with its responses', async () => {
    const response = await caller(c.cloud)('GET', '/openapi.json');
    expect(response.statusCode).toBe(200);
    const paths = response.json().paths as Record<
      string,
      Record<string, { summary?: string; tags?: string[]; responses?: Record<string, unknown> }>
    >;
    for (const [path, method] of ROUTES) {
      const operation = paths[path]?.[method];
      expect(operation, `${method} ${path}`).toMatchObject({
        summary: expect.any(String),
        tags: ['billing'],
      });
      expect(Object.keys(operation!.responses ?? {}), `${method} ${path}`).toEqual(
        expect.arrayContaining(['400', '401', '403']),
      );
    }
    expect(Object.keys(paths).filter((path) => path.startsWith('/v1/billing')).length).toBe(
      new Set(ROUTES.map(([path]) => path)).size,
    );
  });
});
