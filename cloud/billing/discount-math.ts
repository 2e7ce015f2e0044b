/** Whether a discount applies to a cart, and how much it takes off. Pure: no I/O, no clock. */
import type { InvalidReason } from './schemas.ts';
import type { DiscountRow } from './tables.ts';
import { planIdsOf } from './views.ts';

export interface DiscountCheck {
  valid: boolean;
  reason: InvalidReason | null;
  message: string;
}

const MESSAGES: Record<InvalidReason, string> = {
  not_found: 'No discount has this code',
  inactive: 'The discount is no longer active',
  not_yet_valid: 'The discount is not valid yet',
  expired: 'The discount has expired',
  max_redemptions_reached: 'The discount has been redeemed as many times as it may be',
  plan_not_eligible: 'The discount does not apply to this plan',
};

const invalid = (reason: InvalidReason): DiscountCheck => ({
  valid: false,
  reason,
  message: MESSAGES[reason],
});

/**
 * Active, inside [valid_from, valid_to), redemptions left, and for one of its plans when it names
 * plans (a check without a plan passes the plan rule: there is nothing to refuse yet).
 */
export function checkDiscount(row: DiscountRow | undefined, at: Date, planId?: string): DiscountCheck {
  if (!row) return invalid('not_found');
  if (Number(row.is_active) !== 1) return invalid('inactive');
  if (at.getTime() < Date.parse(row.valid_from)) return invalid('not_yet_valid');
  if (row.valid_to !== null && at.getTime() >= Date.parse(row.valid_to)) return invalid('expired');
  if (row.max_redemptions !== null && Number(row.times_redeemed) >= Number(row.max_redemptions))
    return invalid('max_redemptions_reached');
  const plans = planIdsOf(row);
  if (plans !== null && planId !== undefined && !plans.includes(planId)) return invalid('plan_not_eligible');
  return { valid: true, reason: null, message: 'The discount applies' };
}

/**
 * Cents off the cart: a percentage rounds down to the cent (the customer is never charged a
 * fraction, the merchant never gives more than stated), a fixed amount is capped at the cart.
 */
export function discountCents(type: DiscountRow['discount_type'], value: number, cartCents: number): number {
  const off = type === 'percentage' ? Math.floor((cartCents * Math.min(value, 100)) / 100) : value;
  return Math.max(0, Math.min(off, cartCents));
}
