/** Discount codes: the catalog, a cart's check and a subscription's redemption. */
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import { checkDiscount, discountCents } from './discount-math.ts';
import { conflict, discountNotApplicable, notFound, validationError } from './errors.ts';
import type { DiscountPatch, NewDiscount, ValidateDiscountBody } from './schemas.ts';
import * as store from './store.ts';
import type { SubscriptionRow } from './tables.ts';
import { toDiscount, toSubscription } from './views.ts';

interface DiscountDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  subscriptionRow(tenantId: string, id: string): Promise<SubscriptionRow>;
}

const iso = (value: string) => new Date(value).toISOString();
const flag = (value: boolean) => (value ? 1 : 0);
const defined = <T extends object>(patch: T) =>
  Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;

function checkNewDiscount(input: NewDiscount) {
  if (input.discount_type === 'percentage' && input.discount_value > 100)
    throw validationError('body.discount_value must be <= 100 for a percentage discount');
  if (input.duration === 'repeating' && input.duration_months === undefined)
    throw validationError('body.duration_months is required when duration is repeating');
  if (input.duration !== 'repeating' && input.duration_months !== undefined)
    throw validationError('body.duration_months is only accepted when duration is repeating');
  if (input.valid_to !== undefined && Date.parse(input.valid_to) <= Date.parse(input.valid_from))
    throw validationError('body.valid_to must be later than body.valid_from');
}

export function createDiscountService(deps: DiscountDeps) {
  const db = deps.store.db;
  const now = () => deps.clock.now().toISOString();
  const subscriptionRow = deps.subscriptionRow;

  async function discountRow(tenantId: string, id: string) {
    const row = await store.byId(db, 'billing_discounts', tenantId, id);
    if (!row) throw notFound('Discount');
    return row;
  }
  async function uniqueOr<T>(work: Promise<T>, message: string) {
    try {
      return await work;
    } catch (error) {
      if (deps.store.isUniqueViolation(error)) throw conflict(message);
      throw error;
    }
  }

  return {
    async createDiscount(tenantId: string, input: NewDiscount) {
      checkNewDiscount(input);
      const at = now();
      const row = {
        id: deps.newId(),
        tenant_id: tenantId,
        code: input.code,
        name: input.name,
        description: input.description ?? null,
        discount_type: input.discount_type,
        discount_value: input.discount_value,
        duration: input.duration,
        duration_months: input.duration_months ?? null,
        max_redemptions: input.max_redemptions ?? null,
        times_redeemed: 0,
        valid_from: iso(input.valid_from),
        valid_to: input.valid_to === undefined ? null : iso(input.valid_to),
        applies_to_plan_ids:
          input.applies_to_plan_ids === undefined ? null : JSON.stringify(input.applies_to_plan_ids),
        processor_coupon_id: input.processor_coupon_id ?? null,
        is_active: 1,
        created_at: at,
        updated_at: at,
      };
      return toDiscount(
        await uniqueOr(store.insert(db, 'billing_discounts', row), 'A discount with this code exists'),
      );
    },
    listDiscounts: async (tenantId: string, activeOnly: boolean) =>
      (await store.discounts(db, tenantId, activeOnly)).map(toDiscount),
    getDiscount: async (tenantId: string, id: string) => toDiscount(await discountRow(tenantId, id)),
    async discountByCode(tenantId: string, code: string) {
      const row = await store.discountByCode(db, tenantId, code);
      if (!row) throw notFound('Discount');
      return toDiscount(row);
    },

    async updateDiscount(tenantId: string, id: string, patch: DiscountPatch) {
      const current = await discountRow(tenantId, id);
      if (patch.valid_to !== undefined && Date.parse(patch.valid_to) <= Date.parse(current.valid_from))
        throw validationError('body.valid_to must be later than the discount’s valid_from');
      const { is_active, valid_to, ...rest } = patch;
      const row = await store.update(db, 'billing_discounts', tenantId, id, {
        ...defined(rest),
        ...(valid_to === undefined ? {} : { valid_to: iso(valid_to) }),
        ...(is_active === undefined ? {} : { is_active: flag(is_active) }),
        updated_at: now(),
      });
      if (!row) throw notFound('Discount');
      return toDiscount(row);
    },
    async deleteDiscount(tenantId: string, id: string) {
      const row = await store.update(db, 'billing_discounts', tenantId, id, {
        is_active: 0,
        updated_at: now(),
      });
      if (!row) throw notFound('Discount');
    },

    async validateDiscount(tenantId: string, input: ValidateDiscountBody) {
      const row = await store.discountByCode(db, tenantId, input.code);
      const check = checkDiscount(row, deps.clock.now(), input.plan_id);
      const off =
        check.valid && row
          ? discountCents(row.discount_type, Number(row.discount_value), input.cart_total_cents)
          : 0;
      return {
        ...check,
        code: input.code,
        discount_id: row?.id ?? null,
        discount_type: row?.discount_type ?? null,
        discount_value: row ? Number(row.discount_value) : null,
        cart_total_cents: input.cart_total_cents,
        discount_cents: off,
        final_total_cents: input.cart_total_cents - off,
      };
    },

    /** The same checks as validate, for the subscription's plan; one redemption, taken atomically. */
    async attachDiscount(tenantId: string, subscriptionId: string, code: string) {
      const subscription = await subscriptionRow(tenantId, subscriptionId);
      const discount = await store.discountByCode(db, tenantId, code);
      if (!discount) throw notFound('Discount');
      if (subscription.discount_id === discount.id) return toSubscription(subscription);
      const check = checkDiscount(discount, deps.clock.now(), subscription.plan_id);
      if (!check.valid) throw discountNotApplicable(check.message);
      const at = now();
      const row = await db.transaction().execute(async (trx) => {
        if (!(await store.redeem(trx, tenantId, discount.id, at)))
          throw discountNotApplicable('The discount has been redeemed as many times as it may be');
        return store.update(trx, 'billing_subscriptions', tenantId, subscriptionId, {
          discount_id: discount.id,
          discount_applied_at: at,
          updated_at: at,
        });
      });
      return toSubscription(row!);
    },
    async detachDiscount(tenantId: string, subscriptionId: string) {
      const subscription = await subscriptionRow(tenantId, subscriptionId);
      if (subscription.discount_id === null) throw notFound('Discount on this subscription');
      await store.update(db, 'billing_subscriptions', tenantId, subscriptionId, {
        discount_id: null,
        discount_applied_at: null,
        updated_at: now(),
      });
    },
  };
}
