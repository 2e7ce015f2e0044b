import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import { type BillingCloud, billingCloud, createSubscription, fails, ok } from './billing-cloud.ts';

const DAY_MS = 86_400_000;

describe.each(backends)('dunning on %s', (backend) => {
  let c: BillingCloud;
  beforeAll(async () => {
    c = await billingCloud(backend);
  });
  afterAll(() => c.cloud.close());

  it('retries after 1, 3, 5 and 7 days, exhausts at the fifth failure, and recovers', async () => {
    const sub = await createSubscription(c.adminA);
    const path = `/v1/billing/subscriptions/${sub.id}/dunning`;
    expect(ok(await c.adminA('GET', path))).toEqual({
      subscription_id: sub.id,
      tenant_id: c.a.tenant.id,
      status: 'ok',
      subscription_status: 'active',
      failure_count: 0,
      max_failures: 5,
      retry_schedule_days: [1, 3, 5, 7],
      first_failure_at: null,
      last_failure_at: null,
      next_retry_at: null,
      last_failure_code: null,
      last_failure_message: null,
      recovered_at: null,
      updated_at: null,
    });
    fails(await c.adminA('POST', `${path}/recovered`), 409, 'invalid_state');
    const firstAt = c.cloud.clock.now();
    const fail = async (code: string) =>
      ok(
        await c.adminA('POST', `${path}/failure`, {
          processor_subscription_id: sub.processor_subscription_id,
          failure_code: code,
          failure_message: `card ${code}`,
        }),
      );
    for (const [n, days] of [
      [1, 1],
      [2, 3],
      [3, 5],
      [4, 7],
    ] as const) {
      const now = c.cloud.clock.now();
      const state = await fail(`declined_${n}`);
      expect(state).toMatchObject({
        status: 'retrying',
        subscription_status: 'past_due',
        failure_count: n,
        first_failure_at: firstAt.toISOString(),
        last_failure_at: now.toISOString(),
        next_retry_at: new Date(now.getTime() + days * DAY_MS).toISOString(),
        last_failure_code: `declined_${n}`,
        last_failure_message: `card declined_${n}`,
      });
      expect(ok(await c.adminA('GET', `/v1/billing/subscriptions/${sub.id}`)).status).toBe('past_due');
      c.cloud.clock.advance(60_000); // tokens live an hour: minutes stand in for the days between retries
    }
    const exhausted = await fail('declined_5');
    expect(exhausted).toMatchObject({
      status: 'exhausted',
      failure_count: 5,
      next_retry_at: null,
      subscription_status: 'unpaid',
    });
    expect(ok(await c.adminA('GET', `/v1/billing/subscriptions/${sub.id}`)).status).toBe('unpaid');
    expect(await fail('declined_6')).toMatchObject({ status: 'exhausted', failure_count: 6 });
    expect(ok(await c.adminA('GET', path))).toMatchObject({ status: 'exhausted', failure_count: 6 });

    const recovered = ok(await c.adminA('POST', `${path}/recovered`));
    expect(recovered).toMatchObject({
      status: 'recovered',
      subscription_status: 'active',
      next_retry_at: null,
      recovered_at: c.cloud.clock.now().toISOString(),
    });
    expect(ok(await c.adminA('GET', `/v1/billing/subscriptions/${sub.id}`)).status).toBe('active');
    const events = ok(await c.adminA('GET', `/v1/billing/events?subscription_id=${sub.id}`)).items;
    expect(events).toEqual([
      expect.objectContaining({ event_type: 'reactivated', reason: 'payment recovered' }),
    ]);
    fails(await c.adminA('POST', `${path}/recovered`), 409, 'invalid_state');

    // A failure after recovery starts a new episode.
    expect(await fail('expired_card')).toMatchObject({
      status: 'retrying',
      failure_count: 1,
      first_failure_at: c.cloud.clock.now().toISOString(),
      recovered_at: null,
    });
  });

  it('recovers from retrying too', async () => {
    const sub = await createSubscription(c.adminA);
    const path = `/v1/billing/subscriptions/${sub.id}/dunning`;
    ok(
      await c.adminA('POST', `${path}/failure`, { processor_subscription_id: sub.processor_subscription_id }),
    );
    expect(ok(await c.adminA('POST', `${path}/recovered`))).toMatchObject({
      status: 'recovered',
      failure_count: 1,
    });
  });

  it('counts concurrent failure reports one after the other', async () => {
    const sub = await createSubscription(c.adminA);
    const path = `/v1/billing/subscriptions/${sub.id}/dunning`;
    ok(
      await c.adminA('POST', `${path}/failure`, { processor_subscription_id: sub.processor_subscription_id }),
    );
    await Promise.all(
      Array.from({ length: 4 }, () =>
        c.adminA('POST', `${path}/failure`, { processor_subscription_id: sub.processor_subscription_id }),
      ),
    );
    expect(ok(await c.adminA('GET', path))).toMatchObject({ status: 'exhausted', failure_count: 5 });
  });
});
