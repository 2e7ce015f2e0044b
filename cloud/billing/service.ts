import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import { checkDiscount, discountCents } from './discount-math.ts';
import {
  addonInactive,
  conflict,
  discountNotApplicable,
  invalidState,
  notFound,
  validationError,
} from './errors.ts';
import type { PlatformAction, PlatformService } from './platform.ts';
import { createRecordService } from './records.ts';
import type {
  AddonPatch,
  DiscountPatch,
  NewAddon,
  NewDiscount,
  NewSubscription,
  SubscriptionPatch,
  ValidateDiscountBody,
} from './schemas.ts';
import * as store from './store.ts';
import type { SubscriptionStatus } from './tables.ts';
import { createUsageIngest } from './usage.ts';
import { toAddon, toDiscount, toSubscription } from './views.ts';

export interface BillingDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  platform: PlatformService;
}

export const iso = (value: string) => new Date(value).toISOString();
const flag = (value: boolean) => (value ? 1 : 0);
const defined = <T extends object>(patch: T) =>
  Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;

function checkJson(text: string | undefined) {
  if (text === undefined) return;
  try {
    JSON.parse(text);
  } catch {
    throw validationError('body.metadata_json must be JSON text');
  }
}

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

/**
 * Subscriptions, add-ons and discounts; invoices, refunds, dunning, usage and events live in
 * records.ts and are merged in. Every method takes the tenant of the verified token first.
 */
export function createBillingService(deps: BillingDeps) {
  const db = deps.store.db;
  const log = deps.log.child({ module: 'billing' });
  const now = () => deps.clock.now().toISOString();

  async function subscriptionRow(tenantId: string, id: string) {
    const row = await store.byId(db, 'billing_subscriptions', tenantId, id);
    if (!row) throw notFound('Subscription');
    return row;
  }
  async function addonRow(tenantId: string, id: string) {
    const row = await store.byId(db, 'billing_addons', tenantId, id);
    if (!row) throw notFound('Add-on');
    return row;
  }
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

  const usage = createUsageIngest(
    { db, clock: deps.clock, newId: deps.newId, isTransientConflict: deps.store.isTransientConflict },
    { maxBatch: 1000, lanes: deps.store.dialect === 'pg' ? 2 : 1 },
  );
  const records = createRecordService({ ...deps, subscriptionRow, usage });

  /** Forwards first: when the platform fails, nothing here has changed (no status, no event). */
  async function forwardAndMove(tenantId: string, id: string, action: PlatformAction) {
    const row = await subscriptionRow(tenantId, id);
    if (action === 'pause' && row.status === 'paused')
      throw invalidState('The subscription is already paused');
    if (action === 'resume' && row.status !== 'paused')
      throw invalidState(`The subscription is ${row.status}; only a paused subscription resumes`);
    await deps.platform.forward(action, tenantId, id);
    const status: SubscriptionStatus = action === 'pause' ? 'paused' : 'active';
    const moved = await db.transaction().execute(async (trx) => {
      const updated = await store.update(trx, 'billing_subscriptions', tenantId, id, {
        status,
        updated_at: now(),
      });
      await records.recordEvent(trx, tenantId, id, action === 'pause' ? 'paused' : 'resumed');
      return updated!;
    });
    log.info({ tenant_id: tenantId, subscription_id: id, action }, 'subscription forwarded and moved');
    return toSubscription(moved);
  }

  return {
    ...records.api,
    usage,

    async createSubscription(tenantId: string, input: NewSubscription) {
      const at = now();
      const row = await store.insert(db, 'billing_subscriptions', {
        id: deps.newId(),
        tenant_id: tenantId,
        plan_id: input.plan_id,
        processor_subscription_id: input.processor_subscription_id,
        status: input.status,
        current_period_end: iso(input.current_period_end),
        cancel_at_period_end: flag(input.cancel_at_period_end ?? false),
        discount_id: null,
        discount_applied_at: null,
        created_at: at,
        updated_at: at,
      });
      return toSubscription(row);
    },
    getSubscription: async (tenantId: string, id: string) =>
      toSubscription(await subscriptionRow(tenantId, id)),

    async updateSubscription(tenantId: string, id: string, patch: SubscriptionPatch) {
      const row = await store.update(db, 'billing_subscriptions', tenantId, id, {
        ...defined({
          status: patch.status,
          plan_id: patch.plan_id,
          current_period_end:
            patch.current_period_end === undefined ? undefined : iso(patch.current_period_end),
          cancel_at_period_end:
            patch.cancel_at_period_end === undefined ? undefined : flag(patch.cancel_at_period_end),
        }),
        updated_at: now(),
      });
      if (!row) throw notFound('Subscription');
      return toSubscription(row);
    },
    pause: (tenantId: string, id: string) => forwardAndMove(tenantId, id, 'pause'),
    resume: (tenantId: string, id: string) => forwardAndMove(tenantId, id, 'resume'),

    async createAddon(tenantId: string, input: NewAddon) {
      checkJson(input.metadata_json);
      const at = now();
      const row = await store.insert(db, 'billing_addons', {
        id: deps.newId(),
        tenant_id: tenantId,
        name: input.name,
        description: input.description ?? null,
        addon_type: input.addon_type,
        price_cents: input.price_cents,
        currency: input.currency,
        processor_price_id: input.processor_price_id ?? null,
        metadata_json: input.metadata_json ?? null,
        is_active: 1,
        created_at: at,
        updated_at: at,
      });
      return toAddon(row);
    },
    listAddons: async (tenantId: string, activeOnly: boolean) =>
      (await store.addons(db, tenantId, activeOnly)).map(toAddon),
    getAddon: async (tenantId: string, id: string) => toAddon(await addonRow(tenantId, id)),

    async updateAddon(tenantId: string, id: string, patch: AddonPatch) {
      checkJson(patch.metadata_json);
      const { is_active, ...rest } = patch;
      const row = await store.update(db, 'billing_addons', tenantId, id, {
        ...defined(rest),
        ...(is_active === undefined ? {} : { is_active: flag(is_active) }),
        updated_at: now(),
      });
      if (!row) throw notFound('Add-on');
      return toAddon(row);
    },
    async deleteAddon(tenantId: string, id: string) {
      const row = await store.update(db, 'billing_addons', tenantId, id, { is_active: 0, updated_at: now() });
      if (!row) throw notFound('Add-on');
    },

    /** 201 when the subscription did not have the add-on, 200 when its quantity was set again. */
    async addSubscriptionAddon(
      tenantId: string,
      subscriptionId: string,
      input: { addon_id: string; quantity: number },
    ) {
      await subscriptionRow(tenantId, subscriptionId);
      const addon = await addonRow(tenantId, input.addon_id);
      if (Number(addon.is_active) !== 1) throw addonInactive();
      const at = now();
      const id = deps.newId();
      const row = await store.upsertSubscriptionAddon(db, {
        id,
        tenant_id: tenantId,
        subscription_id: subscriptionId,
        addon_id: addon.id,
        quantity: input.quantity,
        created_at: at,
        updated_at: at,
      });
      return { created: row.id === id, item: records.subscriptionAddon(row, addon) };
    },
    async listSubscriptionAddons(tenantId: string, subscriptionId: string) {
      await subscriptionRow(tenantId, subscriptionId);
      return records.subscriptionAddons(tenantId, subscriptionId);
    },
    async removeSubscriptionAddon(tenantId: string, subscriptionId: string, addonId: string) {
      await subscriptionRow(tenantId, subscriptionId);
      if (!(await store.removeSubscriptionAddon(db, tenantId, subscriptionId, addonId)))
        throw notFound('Subscription add-on');
    },

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

export type BillingService = ReturnType<typeof createBillingService>;
