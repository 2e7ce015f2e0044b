import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type BillingCloud,
  billingCloud,
  createSubscription,
  fails,
  ok,
  usageBody,
} from './billing-cloud.ts';

const UUID = '0190c0de-0000-7000-8000-00000000abcd';
const JANUARY = 'metric_name=orders&start_time=2030-01-01T00:00:00Z&end_time=2030-02-01T00:00:00Z';

describe.each(backends)('usage metering on %s', (backend) => {
  let c: BillingCloud;
  beforeAll(async () => {
    c = await billingCloud(backend);
  });
  afterAll(() => c.cloud.close());

  const summary = async (subscriptionId: string, query = JANUARY) =>
    ok(await c.adminA('GET', `/v1/billing/subscriptions/${subscriptionId}/usage?${query}`));

  it('records usage (201) and answers a repeated key with the first record (200, duplicate)', async () => {
    const sub = await createSubscription(c.adminA);
    const body = usageBody(sub.id, { quantity: 3, timestamp: '2030-01-10T13:00:00+01:00' });
    const first = ok(await c.adminA('POST', '/v1/billing/usage', body), 201);
    expect(first).toEqual({
      id: expect.any(String),
      tenant_id: c.a.tenant.id,
      subscription_id: sub.id,
      metric_name: 'orders',
      quantity: 3,
      timestamp: '2030-01-10T12:00:00.000Z',
      idempotency_key: body.idempotency_key,
      created_at: expect.any(String),
      duplicate: false,
    });
    const again = ok(await c.adminA('POST', '/v1/billing/usage', { ...body, quantity: 99 }), 200);
    expect(again).toEqual({ ...first, duplicate: true });
    expect(await summary(sub.id)).toMatchObject({ total_quantity: 3, record_count: 1 });
    fails(await c.adminA('POST', '/v1/billing/usage', usageBody(UUID)), 404, 'not_found');
  });

  it('counts 50 concurrent posts of one key once', async () => {
    const sub = await createSubscription(c.adminA);
    const body = usageBody(sub.id, { quantity: 7 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => c.adminA('POST', '/v1/billing/usage', body)),
    );
    expect(answers.filter((a) => a.statusCode === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.statusCode === 200)).toHaveLength(49);
    expect(new Set(answers.map((a) => a.json().id)).size).toBe(1);
    expect(answers.every((a) => a.json().duplicate === (a.statusCode === 200))).toBe(true);
    expect(await summary(sub.id)).toMatchObject({ total_quantity: 7, record_count: 1 });
  });

  it('counts concurrent duplicates across the single and batch endpoints once each', async () => {
    const sub = await createSubscription(c.adminA);
    const bodies = Array.from({ length: 20 }, (_, i) => usageBody(sub.id, { quantity: i + 1 }));
    await Promise.all([
      ...bodies.map((body) => c.adminA('POST', '/v1/billing/usage', body)),
      c.adminA('POST', '/v1/billing/usage/batch', { records: bodies }),
      c.adminA('POST', '/v1/billing/usage/batch', { records: [...bodies].reverse() }),
    ]);
    expect(await summary(sub.id)).toMatchObject({ total_quantity: 210, record_count: 20 });
  });

  it('batch: one outcome per record, duplicates within the batch counted once', async () => {
    const sub = await createSubscription(c.adminA);
    const a = usageBody(sub.id, { quantity: 2 });
    const b = usageBody(sub.id, { quantity: 3 });
    ok(await c.adminA('POST', '/v1/billing/usage', a), 201);
    const result = ok(
      await c.adminA('POST', '/v1/billing/usage/batch', { records: [a, b, b, usageBody(UUID)] }),
    );
    expect(result).toMatchObject({ accepted: 1, duplicates: 2, rejected: 1 });
    expect(result.results.map((r: { outcome: string }) => r.outcome)).toEqual([
      'duplicate',
      'created',
      'duplicate',
      'not_found',
    ]);
    expect(result.results[1].id).toBe(result.results[2].id);
    expect(await summary(sub.id)).toMatchObject({ total_quantity: 5, record_count: 2 });
    fails(await c.adminA('POST', '/v1/billing/usage/batch', { records: [] }), 400, 'validation_error');
    const tooMany = Array.from({ length: 1001 }, () => usageBody(sub.id));
    fails(await c.adminA('POST', '/v1/billing/usage/batch', { records: tooMany }), 400, 'validation_error');
  });

  it('summarises one metric over [start, end)', async () => {
    const sub = await createSubscription(c.adminA);
    const post = (timestamp: string, quantity: number, metric_name = 'orders') =>
      c.adminA('POST', '/v1/billing/usage', usageBody(sub.id, { timestamp, quantity, metric_name }));
    await post('2029-12-31T23:59:59.999Z', 100);
    await post('2030-01-01T00:00:00Z', 1);
    await post('2030-01-15T00:00:00Z', 4);
    await post('2030-01-31T23:59:59.999Z', 10);
    await post('2030-02-01T00:00:00Z', 1000);
    await post('2030-01-15T00:00:00Z', 50, 'scans');
    expect(await summary(sub.id)).toEqual({
      subscription_id: sub.id,
      metric_name: 'orders',
      start_time: '2030-01-01T00:00:00.000Z',
      end_time: '2030-02-01T00:00:00.000Z',
      total_quantity: 15,
      record_count: 3,
      min_quantity: 1,
      max_quantity: 10,
      average_quantity: 5,
      first_record_at: '2030-01-01T00:00:00.000Z',
      last_record_at: '2030-01-31T23:59:59.999Z',
    });
    expect(
      await summary(sub.id, 'metric_name=none&start_time=2030-01-01T00:00:00Z&end_time=2030-02-01T00:00:00Z'),
    ).toMatchObject({ total_quantity: 0, record_count: 0, min_quantity: null, average_quantity: null });
    fails(
      await c.adminA(
        'GET',
        `/v1/billing/subscriptions/${sub.id}/usage?metric_name=orders&start_time=2030-02-01T00:00:00Z&end_time=2030-01-01T00:00:00Z`,
      ),
      400,
      'validation_error',
    );
    fails(await c.adminA('GET', `/v1/billing/subscriptions/${UUID}/usage?${JANUARY}`), 404, 'not_found');
  });

  it('groups sharing keys in opposite orders all complete, each key counted once', async () => {
    const sub = await createSubscription(c.adminA);
    const usage = c.cloud.services.billing.usage;
    for (let round = 0; round < 5; round++) {
      const records = Array.from({ length: 1000 }, (_, i) =>
        usageBody(sub.id, { idempotency_key: `k-${round}-${i}` }),
      );
      const outcomes = (
        await Promise.all([
          usage.submitMany(c.a.tenant.id, records),
          usage.submitMany(c.a.tenant.id, [...records].reverse()),
          usage.submitMany(c.a.tenant.id, records),
          usage.submitMany(c.a.tenant.id, [...records].reverse()),
        ])
      ).flat();
      expect(outcomes.filter((r) => r.outcome === 'created')).toHaveLength(1000);
    }
    expect(await summary(sub.id)).toMatchObject({ total_quantity: 5000, record_count: 5000 });
  });
});
