import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/http/errors.ts';
import { backends } from '../../support/stores.ts';
import {
  type BillingCloud,
  billingCloud,
  createSubscription,
  fails,
  ok,
  usageBody,
} from './billing-cloud.ts';

const UNKNOWN_SUBSCRIPTION = '0190c0de-0000-7000-8000-00000000abcd';
const JANUARY = 'metric_name=orders&start_time=2030-01-01T00:00:00Z&end_time=2030-02-01T00:00:00Z';

/** A row the database itself refuses: a real constraint, as a column check or trigger would be. */
async function refuseMetric(c: BillingCloud, backend: 'sqlite' | 'pg', metric: string) {
  const db = c.cloud.store.db;
  if (backend === 'pg')
    await sql`alter table billing_usage_records add constraint usage_refused check (metric_name <> ${sql.lit(metric)})`.execute(
      db,
    );
  else
    await sql`create trigger usage_refused before insert on billing_usage_records
      when new.metric_name = ${sql.lit(metric)} begin select raise(abort, 'refused'); end`.execute(db);
  return () =>
    backend === 'pg'
      ? sql`alter table billing_usage_records drop constraint usage_refused`.execute(db)
      : sql`drop trigger usage_refused`.execute(db);
}

const shuffled = <T>(items: T[]) =>
  items
    .map((item) => ({ item, order: Math.random() }))
    .sort((a, b) => a.order - b.order)
    .map(({ item }) => item);

describe.each(backends)('usage group commit on %s', (backend) => {
  let c: BillingCloud;
  beforeAll(async () => {
    c = await billingCloud(backend);
  });
  afterAll(() => c.cloud.close());

  const summary = async (subscriptionId: string) =>
    ok(await c.adminA('GET', `/v1/billing/subscriptions/${subscriptionId}/usage?${JANUARY}`));

  it('answers 150 parallel posts of 60 keys, some sent up to four times, with one 201 per key', async () => {
    const sub = await createSubscription(c.adminA);
    const records = Array.from({ length: 60 }, (_, i) => usageBody(sub.id, { quantity: 1 + (i % 7) }));
    const posts = shuffled(records.flatMap((record, i) => Array.from({ length: 1 + (i % 4) }, () => record)));
    expect(posts).toHaveLength(150);
    const answers = await Promise.all(posts.map((body) => c.adminA('POST', '/v1/billing/usage', body)));
    for (const record of records) {
      const mine = answers.filter((a) => a.json().idempotency_key === record.idempotency_key);
      const created = mine.filter((a) => a.statusCode === 201);
      expect(created).toHaveLength(1);
      expect(mine.every((a) => a.statusCode === 201 || a.statusCode === 200)).toBe(true);
      expect(new Set(mine.map((a) => a.json().id))).toEqual(new Set([created[0]!.json().id]));
      expect(mine.every((a) => a.json().duplicate === (a.statusCode === 200))).toBe(true);
    }
    const total = records.reduce((sum, record) => sum + record.quantity, 0);
    expect(await summary(sub.id)).toMatchObject({ record_count: 60, total_quantity: total });
  });

  it('gives a record that fails inside a group its own answer and counts the others', async () => {
    const sub = await createSubscription(c.adminA);
    const subB = await createSubscription(c.adminB);
    const usage = c.cloud.services.billing.usage;
    const restore = await refuseMetric(c, backend, 'refused');
    try {
      const good = Array.from({ length: 10 }, (_, i) => usageBody(sub.id, { quantity: i + 1 }));
      const refused = usageBody(sub.id, { metric_name: 'refused' });
      const leapSecond = usageBody(sub.id, { timestamp: '2030-01-31T23:59:60Z' });
      const unknown = usageBody(UNKNOWN_SUBSCRIPTION);
      const otherTenant = usageBody(subB.id, { idempotency_key: good[0]!.idempotency_key });
      // Submitted in one turn, so they are written as one group.
      const outcomes = await Promise.allSettled([
        ...[...good, refused, leapSecond, unknown, good[0]!].map((r) => usage.submit(c.a.tenant.id, r)),
        usage.submit(c.b.tenant.id, otherTenant),
      ]);
      const value = (i: number) => (outcomes[i] as PromiseFulfilledResult<{ outcome: string }>).value;
      expect(good.map((_, i) => value(i).outcome)).toEqual(good.map(() => 'created'));
      expect(outcomes[10]!.status).toBe('rejected');
      const leap = (outcomes[11] as PromiseRejectedResult).reason;
      expect(leap).toBeInstanceOf(AppError);
      expect(leap.status).toBe(400);
      expect(value(12).outcome).toBe('not_found');
      expect(value(13).outcome).toBe('duplicate');
      expect(value(14).outcome).toBe('created');
    } finally {
      await restore();
    }
    expect(await summary(sub.id)).toMatchObject({ record_count: 10, total_quantity: 55 });
    const query = `metric_name=orders&start_time=2030-01-01T00:00:00Z&end_time=2030-02-01T00:00:00Z`;
    expect(ok(await c.adminB('GET', `/v1/billing/subscriptions/${subB.id}/usage?${query}`))).toMatchObject({
      record_count: 1,
    });
  });

  it('stores keys and metric names holding quotes, commas, braces and backslashes as sent', async () => {
    const sub = await createSubscription(c.adminA);
    const odd = ['a"b', 'c,d', '{e}', 'f\\g', 'NULL', ' h ', 'ü€😀'];
    const posts = odd.map((text, i) =>
      usageBody(sub.id, { idempotency_key: `k${text}`, metric_name: text, quantity: i + 1 }),
    );
    const answers = await Promise.all(posts.map((body) => c.adminA('POST', '/v1/billing/usage', body)));
    expect(answers.map((a) => [a.statusCode, a.json().idempotency_key, a.json().metric_name])).toEqual(
      odd.map((text) => [201, `k${text}`, text]),
    );
    for (const [i, text] of odd.entries()) {
      const range = `start_time=2030-01-01T00:00:00Z&end_time=2030-02-01T00:00:00Z`;
      const query = `metric_name=${encodeURIComponent(text)}&${range}`;
      const counted = ok(await c.adminA('GET', `/v1/billing/subscriptions/${sub.id}/usage?${query}`));
      expect(counted).toMatchObject({ record_count: 1, total_quantity: i + 1 });
    }
    const again = await c.adminA('POST', '/v1/billing/usage', posts[0]);
    expect(again.statusCode).toBe(200);
  });

  it('refuses a time no record can hold (a leap second) with a 400, alone or in a batch', async () => {
    const sub = await createSubscription(c.adminA);
    const leap = usageBody(sub.id, { timestamp: '2030-01-31T23:59:60Z' });
    fails(await c.adminA('POST', '/v1/billing/usage', leap), 400, 'validation_error');
    const batch = { records: [usageBody(sub.id), leap] };
    const message = fails(await c.adminA('POST', '/v1/billing/usage/batch', batch), 400, 'validation_error');
    expect(message).toContain('body.records.1.timestamp');
    expect(await summary(sub.id)).toMatchObject({ record_count: 0 });
    const range = 'metric_name=orders&start_time=2030-01-31T23:59:60Z&end_time=2030-02-01T00:00:00Z';
    fails(
      await c.adminA('GET', `/v1/billing/subscriptions/${sub.id}/usage?${range}`),
      400,
      'validation_error',
    );
  });
});
