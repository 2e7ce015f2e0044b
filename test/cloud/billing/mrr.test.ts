import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import { type BillingCloud, billingCloud, createSubscription, eventBody, ok } from './billing-cloud.ts';

describe.each(backends)('MRR from subscription events on %s', (backend) => {
  let c: BillingCloud;
  beforeAll(async () => {
    c = await billingCloud(backend);
  });
  afterAll(() => c.cloud.close());

  it('computes the movement of a known event set', async () => {
    const [s1, s2, s3, s4, s5] = await Promise.all(
      Array.from({ length: 5 }, () => createSubscription(c.adminA)),
    );
    const post = (id: string, overrides: Record<string, unknown>) =>
      c.adminA('POST', '/v1/billing/events', eventBody(id, overrides));
    // Before March: s1 10000, s2 5000, s3 3000, s4 2000 → 20000 from 4 customers.
    await post(s1!.id, { event_type: 'created', to_mrr_cents: 10_000, event_at: '2030-01-05T00:00:00Z' });
    await post(s2!.id, { event_type: 'created', to_mrr_cents: 5000, event_at: '2030-01-06T00:00:00Z' });
    await post(s3!.id, { event_type: 'activated', to_mrr_cents: 3000, event_at: '2030-02-01T00:00:00Z' });
    await post(s4!.id, { event_type: 'created', to_mrr_cents: 2000, event_at: '2030-02-10T00:00:00Z' });
    // s4 churned in February and comes back in March.
    await post(s4!.id, {
      event_type: 'churned',
      from_mrr_cents: 2000,
      to_mrr_cents: 0,
      event_at: '2030-02-20T00:00:00Z',
    });
    // March: s1 upgrades +5000, s2 downgrades −1000, s3 cancels (−3000), s5 new 4000, s4 reactivates 2500.
    await post(s1!.id, {
      event_type: 'upgraded',
      from_mrr_cents: 10_000,
      to_mrr_cents: 15_000,
      event_at: '2030-03-02T00:00:00Z',
    });
    await post(s2!.id, {
      event_type: 'downgraded',
      from_mrr_cents: 5000,
      to_mrr_cents: 4000,
      event_at: '2030-03-03T00:00:00Z',
    });
    await post(s3!.id, { event_type: 'canceled', event_at: '2030-03-04T00:00:00Z' });
    await post(s5!.id, { event_type: 'created', to_mrr_cents: 4000, event_at: '2030-03-05T00:00:00Z' });
    await post(s4!.id, { event_type: 'reactivated', to_mrr_cents: 2500, event_at: '2030-03-06T00:00:00Z' });
    // After the range: ignored.
    await post(s5!.id, { event_type: 'churned', to_mrr_cents: 0, event_at: '2030-04-01T00:00:00Z' });

    const march = ok(
      await c.adminA('GET', '/v1/billing/metrics/mrr?start=2030-03-01T00:00:00Z&end=2030-04-01T00:00:00Z'),
    );
    expect(march).toEqual({
      start: '2030-03-01T00:00:00.000Z',
      end: '2030-04-01T00:00:00.000Z',
      currency: null,
      start_mrr_cents: 18_000,
      end_mrr_cents: 25_500,
      new_mrr_cents: 4000,
      expansion_mrr_cents: 5000,
      contraction_mrr_cents: 1000,
      churned_mrr_cents: 3000,
      reactivation_mrr_cents: 2500,
      net_new_mrr_cents: 7500,
      churn_rate_pct: 33.33,
      customers_start: 3,
      customers_end: 4,
      churned_customers: 1,
    });
    expect(march.end_mrr_cents - march.start_mrr_cents).toBe(march.net_new_mrr_cents);
    const february = ok(
      await c.adminA(
        'GET',
        '/v1/billing/metrics/mrr?start=2030-02-01T00:00:00Z&end=2030-03-01T00:00:00Z&currency=USD',
      ),
    );
    expect(february).toMatchObject({
      start_mrr_cents: 15_000,
      end_mrr_cents: 18_000,
      new_mrr_cents: 5000,
      churned_mrr_cents: 2000,
      net_new_mrr_cents: 3000,
      customers_start: 2,
      customers_end: 3,
      churned_customers: 1,
      churn_rate_pct: 50,
    });
    const inEuros = ok(
      await c.adminA(
        'GET',
        '/v1/billing/metrics/mrr?start=2030-02-01T00:00:00Z&end=2030-03-01T00:00:00Z&currency=EUR',
      ),
    );
    expect(inEuros).toMatchObject({ start_mrr_cents: 0, end_mrr_cents: 0, churn_rate_pct: 0 });
  });
});
