import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type BillingCloud,
  billingCloud,
  createSubscription,
  discountBody,
  fails,
  OTHER_PLAN,
  ok,
  PLAN,
} from './billing-cloud.ts';

const UUID = '0190c0de-0000-7000-8000-00000000abcd';

describe.each(backends)('discounts on %s', (backend) => {
  let c: BillingCloud;
  beforeAll(async () => {
    c = await billingCloud(backend);
  });
  afterAll(() => c.cloud.close());

  const create = async (overrides: Record<string, unknown> = {}) =>
    ok(await c.adminA('POST', '/v1/billing/discounts', discountBody(overrides)), 201);
  const validate = async (code: string, cart: number, planId?: string) =>
    ok(
      await c.adminA('POST', '/v1/billing/discounts/validate', {
        code,
        cart_total_cents: cart,
        ...(planId ? { plan_id: planId } : {}),
      }),
    );

  it('creates, lists, reads by id and code, changes and soft-deletes a discount', async () => {
    const at = c.cloud.clock.now().toISOString();
    const discount = await create({
      code: 'SPRING',
      description: 'Spring offer',
      duration: 'repeating',
      duration_months: 3,
      max_redemptions: 10,
      valid_to: '2099-01-01T00:00:00Z',
      applies_to_plan_ids: [PLAN],
      processor_coupon_id: 'co_1',
    });
    expect(discount).toEqual({
      id: expect.any(String),
      tenant_id: c.a.tenant.id,
      code: 'SPRING',
      name: 'Launch offer',
      description: 'Spring offer',
      discount_type: 'percentage',
      discount_value: 20,
      duration: 'repeating',
      duration_months: 3,
      max_redemptions: 10,
      times_redeemed: 0,
      valid_from: '2020-01-01T00:00:00.000Z',
      valid_to: '2099-01-01T00:00:00.000Z',
      applies_to_plan_ids: [PLAN],
      processor_coupon_id: 'co_1',
      is_active: true,
      created_at: at,
      updated_at: at,
    });
    fails(await c.adminA('POST', '/v1/billing/discounts', discountBody({ code: 'SPRING' })), 409, 'conflict');
    expect(ok(await c.adminA('GET', `/v1/billing/discounts/${discount.id}`))).toEqual(discount);
    expect(ok(await c.adminA('GET', '/v1/billing/discounts/by-code?code=SPRING'))).toEqual(discount);
    fails(await c.adminA('GET', '/v1/billing/discounts/by-code?code=NOPE'), 404, 'not_found');
    const changed = ok(
      await c.adminA('PATCH', `/v1/billing/discounts/${discount.id}`, {
        name: 'Spring',
        max_redemptions: 2,
        valid_to: '2098-01-01T00:00:00Z',
      }),
    );
    expect(changed).toMatchObject({
      name: 'Spring',
      max_redemptions: 2,
      valid_to: '2098-01-01T00:00:00.000Z',
    });
    const other = await create();
    expect((await c.adminA('DELETE', `/v1/billing/discounts/${other.id}`)).statusCode).toBe(204);
    expect(ok(await c.adminA('GET', `/v1/billing/discounts/${other.id}`)).is_active).toBe(false);
    const active = ok(await c.adminA('GET', '/v1/billing/discounts?active_only=true')).items.map(
      (d: { id: string }) => d.id,
    );
    const all = ok(await c.adminA('GET', '/v1/billing/discounts')).items.map((d: { id: string }) => d.id);
    expect(active).toContain(discount.id);
    expect(active).not.toContain(other.id);
    expect(all).toContain(other.id);
    fails(await c.adminA('DELETE', `/v1/billing/discounts/${UUID}`), 404, 'not_found');
    fails(await c.adminA('GET', `/v1/billing/discounts/${UUID}`), 404, 'not_found');
    fails(await c.adminA('PATCH', `/v1/billing/discounts/${UUID}`, { name: 'x' }), 404, 'not_found');
  });

  it.each([
    ['percentage', 20, 10_000, 2000],
    ['percentage', 100, 4999, 4999],
    ['percentage', 33, 1000, 330],
    ['percentage', 15, 999, 149],
    ['percentage', 1, 50, 0],
    ['percentage', 50, 0, 0],
    ['fixed_amount', 500, 10_000, 500],
    ['fixed_amount', 500, 300, 300],
    ['fixed_amount', 500, 0, 0],
  ] as const)('%s %i off a %i-cent cart takes %i', async (type, value, cart, off) => {
    const discount = await create({ discount_type: type, discount_value: value });
    expect(await validate(discount.code, cart)).toEqual({
      valid: true,
      reason: null,
      message: expect.any(String),
      code: discount.code,
      discount_id: discount.id,
      discount_type: type,
      discount_value: value,
      cart_total_cents: cart,
      discount_cents: off,
      final_total_cents: cart - off,
    });
  });

  it('says why a code does not apply, and takes nothing off', async () => {
    const now = c.cloud.clock.now().getTime();
    const later = new Date(now + 86_400_000).toISOString();
    const earlier = new Date(now - 86_400_000).toISOString();
    const cases = [
      ['not_found', { code: 'NO-SUCH-CODE' }],
      ['inactive', await create()],
      ['not_yet_valid', await create({ valid_from: later })],
      ['expired', await create({ valid_from: '2020-01-01T00:00:00Z', valid_to: earlier })],
      ['plan_not_eligible', await create({ applies_to_plan_ids: [OTHER_PLAN] })],
    ] as const;
    await c.adminA('DELETE', `/v1/billing/discounts/${(cases[1][1] as { id: string }).id}`);
    for (const [reason, discount] of cases) {
      const result = await validate(discount.code, 1000, PLAN);
      expect(result, reason).toMatchObject({
        valid: false,
        reason,
        discount_cents: 0,
        final_total_cents: 1000,
      });
    }
    const forPlan = await create({ applies_to_plan_ids: [PLAN] });
    expect(await validate(forPlan.code, 1000, PLAN)).toMatchObject({ valid: true, discount_cents: 200 });
    expect(await validate(forPlan.code, 1000)).toMatchObject({ valid: true });
  });

  it('attaches to a subscription once per redemption, up to max_redemptions, and detaches', async () => {
    const discount = await create({ max_redemptions: 2 });
    const attach = (id: string, code = discount.code) =>
      c.adminA('POST', `/v1/billing/subscriptions/${id}/discount`, { discount_code: code });
    const [s1, s2, s3] = [
      await createSubscription(c.adminA),
      await createSubscription(c.adminA),
      await createSubscription(c.adminA),
    ];
    const attached = ok(await attach(s1.id));
    expect(attached).toMatchObject({ discount_id: discount.id, discount_applied_at: expect.any(String) });
    ok(await attach(s1.id)); // the same discount again: no second redemption
    ok(await attach(s2.id));
    expect(ok(await c.adminA('GET', `/v1/billing/discounts/${discount.id}`)).times_redeemed).toBe(2);
    fails(await attach(s3.id), 409, 'discount_not_applicable');
    expect(await validate(discount.code, 1000)).toMatchObject({
      valid: false,
      reason: 'max_redemptions_reached',
    });

    expect((await c.adminA('DELETE', `/v1/billing/subscriptions/${s1.id}/discount`)).statusCode).toBe(204);
    expect(ok(await c.adminA('GET', `/v1/billing/subscriptions/${s1.id}`))).toMatchObject({
      discount_id: null,
    });
    fails(await c.adminA('DELETE', `/v1/billing/subscriptions/${s1.id}/discount`), 404, 'not_found');
    fails(await attach(s1.id, 'NO-SUCH-CODE'), 404, 'not_found');
    const other = await create({ applies_to_plan_ids: [OTHER_PLAN] });
    fails(await attach(s1.id, other.code), 409, 'discount_not_applicable');
  });

  it('takes a single last redemption once when attached concurrently', async () => {
    const discount = await create({ max_redemptions: 1 });
    const subs = await Promise.all(Array.from({ length: 5 }, () => createSubscription(c.adminA)));
    const answers = await Promise.all(
      subs.map((sub) =>
        c.adminA('POST', `/v1/billing/subscriptions/${sub.id}/discount`, { discount_code: discount.code }),
      ),
    );
    expect(answers.filter((answer) => answer.statusCode === 200)).toHaveLength(1);
    expect(ok(await c.adminA('GET', `/v1/billing/discounts/${discount.id}`)).times_redeemed).toBe(1);
  });
});
