import { describe, expect, it } from 'vitest';
import { checkDiscount, discountCents } from '../../../cloud/billing/discount-math.ts';
import { afterFailure, afterRecovery } from '../../../cloud/billing/dunning.ts';
import type { DiscountRow } from '../../../cloud/billing/tables.ts';

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
