import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import { createDiscountService } from './discounts.ts';
import { addonInactive, invalidState, notFound, validationError } from './errors.ts';
import type { PlatformAction, PlatformService } from './platform.ts';
import { createRecordService } from './records.ts';
import type { AddonPatch, NewAddon, NewSubscription, SubscriptionPatch } from './schemas.ts';
import * as store from './store.ts';
import type { SubscriptionStatus } from './tables.ts';
import { createUsageIngest } from './usage.ts';
import { toAddon, toSubscription } from './views.ts';

export interface BillingDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  platform: PlatformService;
}

const iso = (value: string) => new Date(value).toISOString();
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

/**
 * Subscriptions and add-ons, with discounts (discounts.ts) and the processor's records (invoices,
 * refunds, dunning, usage, events: records.ts) merged in. Every method takes the tenant of the
 * verified token first.
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

  const usage = createUsageIngest(
    { store: deps.store, clock: deps.clock, newId: deps.newId },
    { maxBatch: 1000, lanes: deps.store.dialect === 'pg' ? 4 : 1 },
  );
  const records = createRecordService({ ...deps, subscriptionRow, usage });
  const discounts = createDiscountService({ ...deps, subscriptionRow });

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
    listSubscriptions: async (tenantId: string, limit: number) =>
      (await store.subscriptions(db, tenantId, limit)).map(toSubscription),
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

    ...discounts,
  };
}

export type BillingService = ReturnType<typeof createBillingService>;
