import { describe, expect, it } from 'vitest';
import { checkDiscount, discountCents } from '../../../cloud/billing/discount-math.ts';
import { afterFailure, afterRecovery } from '../../../cloud/billing/dunning.ts';
import { mrrMetrics } from '../../../cloud/billing/mrr.ts';
import type { DiscountRow, SubscriptionEventRow } from '../../../cloud/billing/tables.ts';

const discount = (overrides: Partial<DiscountRow> = {}): DiscountRow => ({
  id: 'd1',
  tenant_id: 't1',
  code: 'C',
  name: 'n',
  description: null,
  discount_type: 'percentage',
  discount_value: 10,
  duration: 'once',
  duration_months: null,
  max_redemptions: null,
  times_redeemed: 0,
  valid_from: '2030-01-01T00:00:00.000Z',
  valid_to: '2030-02-01T00:00:00.000Z',
  applies_to_plan_ids: null,
  processor_coupon_id: null,
  is_active: 1,
  created_at: '',
  updated_at: '',
  ...overrides,
});

describe('discount math', () => {
  it('never takes off more than the cart, nor less than nothing', () => {
    expect(discountCents('percentage', 100, 1234)).toBe(1234);
    expect(discountCents('percentage', 150, 1234)).toBe(1234);
    expect(discountCents('percentage', 10, 5)).toBe(0);
    expect(discountCents('fixed_amount', 10_000, 1234)).toBe(1234);
    expect(discountCents('fixed_amount', 1, 0)).toBe(0);
  });

  it('honours the validity window at its edges', () => {
    expect(checkDiscount(discount(), new Date('2029-12-31T23:59:59.999Z'))).toMatchObject({
      reason: 'not_yet_valid',
    });
    expect(checkDiscount(discount(), new Date('2030-01-01T00:00:00.000Z'))).toMatchObject({ valid: true });
    expect(checkDiscount(discount(), new Date('2030-01-31T23:59:59.999Z'))).toMatchObject({ valid: true });
    expect(checkDiscount(discount(), new Date('2030-02-01T00:00:00.000Z'))).toMatchObject({
      reason: 'expired',
    });
    expect(checkDiscount(discount({ valid_to: null }), new Date('2099-01-01T00:00:00Z'))).toMatchObject({
      valid: true,
    });
  });

  it('checks redemptions, activity and plans', () => {
    const at = new Date('2030-01-15T00:00:00Z');
    expect(checkDiscount(discount({ max_redemptions: 2, times_redeemed: 1 }), at)).toMatchObject({
      valid: true,
    });
    expect(checkDiscount(discount({ max_redemptions: 2, times_redeemed: 2 }), at)).toMatchObject({
      reason: 'max_redemptions_reached',
    });
    expect(checkDiscount(discount({ is_active: 0 }), at)).toMatchObject({ reason: 'inactive' });
    const planned = discount({ applies_to_plan_ids: JSON.stringify(['p1']) });
    expect(checkDiscount(planned, at, 'p1')).toMatchObject({ valid: true });
    expect(checkDiscount(planned, at, 'p2')).toMatchObject({ reason: 'plan_not_eligible' });
    expect(checkDiscount(undefined, at)).toMatchObject({ reason: 'not_found' });
  });
});

describe('dunning transitions', () => {
  const base = { id: 'x', tenant_id: 't', subscription_id: 's', created_at: 'c', updated_at: 'u' };
  const facts = { code: null, message: null };

  it('walks the schedule and exhausts', () => {
    let at = new Date('2030-01-01T00:00:00Z');
    let state = afterFailure(undefined, base, facts, at);
    expect(state.row).toMatchObject({
      status: 'retrying',
      failure_count: 1,
      next_retry_at: '2030-01-02T00:00:00.000Z',
    });
    for (const next of ['2030-01-05T00:00:00.000Z', '2030-01-10T00:00:00.000Z', '2030-01-17T00:00:00.000Z']) {
      at = new Date(state.row.next_retry_at!);
      state = afterFailure(state.row, base, facts, at);
      expect(state.row.next_retry_at).toBe(next);
      expect(state.subscriptionStatus).toBe('past_due');
    }
    state = afterFailure(state.row, base, facts, new Date(state.row.next_retry_at!));
    expect(state).toMatchObject({
      subscriptionStatus: 'unpaid',
      row: { status: 'exhausted', next_retry_at: null },
    });
    expect(afterRecovery(state.row, at)).toMatchObject({ status: 'recovered' });
    expect(afterRecovery(undefined, at)).toBeUndefined();
    expect(afterRecovery(afterRecovery(state.row, at), at)).toBeUndefined();
  });
});

const event = (
  subscription: string,
  type: SubscriptionEventRow['event_type'],
  at: string,
  mrr: { from?: number; to?: number } = {},
): SubscriptionEventRow => ({
  id: `${subscription}-${at}`,
  tenant_id: 't',
  subscription_id: subscription,
  event_type: type,
  from_plan_id: null,
  to_plan_id: null,
  from_mrr_cents: mrr.from ?? null,
  to_mrr_cents: mrr.to ?? null,
  currency: 'USD',
  reason: null,
  event_at: at,
  created_at: at,
});

describe('MRR movement', () => {
  const start = '2030-03-01T00:00:00.000Z';
  const end = '2030-04-01T00:00:00.000Z';

  it('counts an event at start inside the range and one at end outside it', () => {
    const result = mrrMetrics(
      [event('a', 'created', start, { to: 1000 }), event('b', 'created', end, { to: 5000 })],
      start,
      end,
    );
    expect(result).toMatchObject({
      start_mrr_cents: 0,
      end_mrr_cents: 1000,
      new_mrr_cents: 1000,
      customers_end: 1,
    });
  });

  it('knows a subscription with no events in the range only by its MRR', () => {
    const result = mrrMetrics([event('a', 'created', '2030-01-01T00:00:00.000Z', { to: 700 })], start, end);
    expect(result).toMatchObject({
      start_mrr_cents: 700,
      end_mrr_cents: 700,
      net_new_mrr_cents: 0,
      churn_rate_pct: 0,
    });
  });

  it('takes an event without figures as no change, except a cancellation', () => {
    const result = mrrMetrics(
      [
        event('a', 'created', '2030-01-01T00:00:00.000Z', { to: 900 }),
        event('a', 'paused', '2030-03-02T00:00:00.000Z'),
        event('a', 'resumed', '2030-03-03T00:00:00.000Z'),
        event('a', 'canceled', '2030-03-04T00:00:00.000Z'),
        event('a', 'reactivated', '2030-03-05T00:00:00.000Z', { to: 900 }),
      ],
      start,
      end,
    );
    expect(result).toMatchObject({
      start_mrr_cents: 900,
      end_mrr_cents: 900,
      churned_mrr_cents: 900,
      reactivation_mrr_cents: 900,
      net_new_mrr_cents: 0,
      churned_customers: 1,
      churn_rate_pct: 100,
    });
  });
});
