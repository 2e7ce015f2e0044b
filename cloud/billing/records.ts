/** Invoices, refunds, dunning, usage and subscription events: the records a processor reports. */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db, Store } from '../db/index.ts';
import { afterFailure, afterRecovery, MAX_FAILURES, RETRY_SCHEDULE_DAYS } from './dunning.ts';
import { conflict, invalidState, notFound, validationError } from './errors.ts';
import { mrrMetrics } from './mrr.ts';
import type { DunningFailure, NewEvent, NewInvoice, NewRefund } from './schemas-records.ts';
import * as store from './store.ts';
import type {
  AddonRow,
  DunningRow,
  EventType,
  InvoiceRow,
  SubscriptionAddonRow,
  SubscriptionRow,
} from './tables.ts';
import type { UsageIngest } from './usage.ts';
import { createUsageApi } from './usage-api.ts';
import { toEvent, toInvoice, toRefund, toSubscriptionAddon } from './views.ts';

export interface RecordDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  usage: UsageIngest;
  subscriptionRow(tenantId: string, id: string): Promise<SubscriptionRow>;
}

const iso = (value: string) => new Date(value).toISOString();
const DEFAULT_CURRENCY = 'USD';

function dunningView(tenantId: string, subscription: SubscriptionRow, row: DunningRow | undefined) {
  return {
    subscription_id: subscription.id,
    tenant_id: tenantId,
    status: row?.status ?? 'ok',
    subscription_status: subscription.status,
    failure_count: row ? Number(row.failure_count) : 0,
    max_failures: MAX_FAILURES,
    retry_schedule_days: [...RETRY_SCHEDULE_DAYS],
    first_failure_at: row?.first_failure_at ?? null,
    last_failure_at: row?.last_failure_at ?? null,
    next_retry_at: row?.next_retry_at ?? null,
    last_failure_code: row?.last_failure_code ?? null,
    last_failure_message: row?.last_failure_message ?? null,
    recovered_at: row?.recovered_at ?? null,
    updated_at: row?.updated_at ?? null,
  };
}

function invoiceRow(tenantId: string, id: string, input: NewInvoice, at: string): InvoiceRow {
  return {
    id,
    tenant_id: tenantId,
    processor_invoice_id: input.processor_invoice_id,
    subscription_id: input.subscription_id ?? null,
    amount_due: input.amount_due,
    amount_paid: input.amount_paid ?? 0,
    currency: input.currency,
    status: input.status,
    invoice_pdf: input.invoice_pdf ?? null,
    hosted_invoice_url: input.hosted_invoice_url ?? null,
    created_at: at,
    updated_at: at,
  };
}

export function createRecordService(deps: RecordDeps) {
  const db = deps.store.db;
  const now = () => deps.clock.now().toISOString();
  const locking = deps.store.dialect === 'pg';

  async function uniqueOr<T>(work: Promise<T>, message: string) {
    try {
      return await work;
    } catch (error) {
      if (deps.store.isUniqueViolation(error)) throw conflict(message);
      throw error;
    }
  }

  /** An event billing itself writes: no MRR movement; the currency of the subscription's last event. */
  async function recordEvent(
    trx: Db,
    tenantId: string,
    subscriptionId: string,
    type: EventType,
    reason?: string,
  ) {
    const latest = await store.latestEvent(trx, tenantId, subscriptionId);
    const at = now();
    return store.insertEvent(trx, {
      id: deps.newId(),
      tenant_id: tenantId,
      subscription_id: subscriptionId,
      event_type: type,
      from_plan_id: null,
      to_plan_id: null,
      from_mrr_cents: null,
      to_mrr_cents: null,
      currency: latest?.currency ?? DEFAULT_CURRENCY,
      reason: reason ?? null,
      event_at: at,
      created_at: at,
    });
  }

  async function checkInvoiceTarget(tenantId: string, input: NewInvoice) {
    if (input.subscription_id !== undefined) await deps.subscriptionRow(tenantId, input.subscription_id);
  }

  const api = {
    async createInvoice(tenantId: string, input: NewInvoice) {
      await checkInvoiceTarget(tenantId, input);
      const row = invoiceRow(tenantId, deps.newId(), input, now());
      const created = await uniqueOr(
        store.insert(db, 'billing_invoices', row),
        'An invoice with this processor_invoice_id exists; POST /invoices/record updates it',
      );
      return toInvoice(created);
    },

    /** Creates or updates by processor_invoice_id; fields absent from the body keep their value. */
    async recordInvoice(tenantId: string, input: NewInvoice) {
      await checkInvoiceTarget(tenantId, input);
      const id = deps.newId();
      const present = (Object.keys(input) as Array<keyof NewInvoice>).filter(
        (key) => key !== 'processor_invoice_id' && input[key] !== undefined,
      );
      const row = await store.recordInvoice(db, invoiceRow(tenantId, id, input, now()), present);
      return { created: row.id === id, invoice: toInvoice(row) };
    },

    listInvoices: async (tenantId: string, limit: number) =>
      (await store.invoices(db, tenantId, limit)).map(toInvoice),
    listRefunds: async (tenantId: string, limit: number) =>
      (await store.refunds(db, tenantId, limit)).map(toRefund),
    async createRefund(tenantId: string, input: NewRefund) {
      if (
        input.invoice_id !== undefined &&
        !(await store.byId(db, 'billing_invoices', tenantId, input.invoice_id))
      )
        throw notFound('Invoice');
      const at = now();
      const row = await uniqueOr(
        store.insertRefund(db, {
          id: deps.newId(),
          tenant_id: tenantId,
          processor_refund_id: input.processor_refund_id,
          processor_charge_id: input.processor_charge_id,
          invoice_id: input.invoice_id ?? null,
          amount: input.amount,
          currency: input.currency,
          status: input.status,
          reason: input.reason ?? null,
          description: input.description ?? null,
          created_at: at,
          updated_at: at,
        }),
        'A refund with this processor_refund_id exists',
      );
      return toRefund(row);
    },

    async dunning(tenantId: string, subscriptionId: string) {
      const subscription = await deps.subscriptionRow(tenantId, subscriptionId);
      return dunningView(tenantId, subscription, await store.dunning(db, tenantId, subscriptionId));
    },

    async dunningFailure(tenantId: string, subscriptionId: string, failure: DunningFailure) {
      const subscription = await deps.subscriptionRow(tenantId, subscriptionId);
      if (subscription.processor_subscription_id !== failure.processor_subscription_id)
        throw validationError('body.processor_subscription_id is not this subscription’s');
      const at = deps.clock.now();
      return db.transaction().execute(async (trx) => {
        await store.lockSubscription(trx, tenantId, subscriptionId, locking);
        const current = await store.dunning(trx, tenantId, subscriptionId);
        const base = {
          id: current?.id ?? deps.newId(),
          tenant_id: tenantId,
          subscription_id: subscriptionId,
          created_at: current?.created_at ?? at.toISOString(),
          updated_at: at.toISOString(),
        };
        const facts = { code: failure.failure_code ?? null, message: failure.failure_message ?? null };
        const next = afterFailure(current, base, facts, at);
        const saved = await store.saveDunning(trx, next.row);
        const moved = await store.update(trx, 'billing_subscriptions', tenantId, subscriptionId, {
          status: next.subscriptionStatus,
          updated_at: at.toISOString(),
        });
        return dunningView(tenantId, moved!, saved);
      });
    },

    async dunningRecovered(tenantId: string, subscriptionId: string) {
      await deps.subscriptionRow(tenantId, subscriptionId);
      return db.transaction().execute(async (trx) => {
        await store.lockSubscription(trx, tenantId, subscriptionId, locking);
        const next = afterRecovery(await store.dunning(trx, tenantId, subscriptionId), deps.clock.now());
        if (!next) throw invalidState('The subscription has no failed payment to recover from');
        const saved = await store.saveDunning(trx, next);
        const moved = await store.update(trx, 'billing_subscriptions', tenantId, subscriptionId, {
          status: 'active',
          updated_at: next.updated_at,
        });
        await recordEvent(trx, tenantId, subscriptionId, 'reactivated', 'payment recovered');
        return dunningView(tenantId, moved!, saved);
      });
    },

    ...createUsageApi(deps),

    async createEvent(tenantId: string, input: NewEvent) {
      await deps.subscriptionRow(tenantId, input.subscription_id);
      const row = await store.insertEvent(db, {
        id: deps.newId(),
        tenant_id: tenantId,
        subscription_id: input.subscription_id,
        event_type: input.event_type,
        from_plan_id: input.from_plan_id ?? null,
        to_plan_id: input.to_plan_id ?? null,
        from_mrr_cents: input.from_mrr_cents ?? null,
        to_mrr_cents: input.to_mrr_cents ?? null,
        currency: input.currency,
        reason: input.reason ?? null,
        event_at: iso(input.event_at),
        created_at: now(),
      });
      return toEvent(row);
    },
    listEvents: async (tenantId: string, filter: { subscriptionId?: string | undefined; limit: number }) =>
      (await store.events(db, tenantId, filter)).map(toEvent),

    async mrr(tenantId: string, query: { start: string; end: string; currency?: string | undefined }) {
      const start = iso(query.start);
      const end = iso(query.end);
      if (start >= end) throw validationError('querystring.end must be later than querystring.start');
      const events = await store.eventsUntil(db, tenantId, end, query.currency);
      return { start, end, currency: query.currency ?? null, ...mrrMetrics(events, start, end) };
    },
  };

  return {
    api,
    recordEvent,
    subscriptionAddon: (row: SubscriptionAddonRow, addon: AddonRow) => toSubscriptionAddon(row, addon),
    async subscriptionAddons(tenantId: string, subscriptionId: string) {
      const rows = await store.subscriptionAddons(db, tenantId, subscriptionId);
      return rows.map((row) => ({
        id: row.id,
        tenant_id: row.tenant_id,
        subscription_id: row.subscription_id,
        addon_id: row.addon_id,
        quantity: Number(row.quantity),
        addon: {
          name: row.addon_name,
          addon_type: row.addon_type,
          price_cents: Number(row.addon_price_cents),
          currency: row.addon_currency,
          is_active: Number(row.addon_is_active) === 1,
        },
        created_at: row.created_at,
        updated_at: row.updated_at,
      }));
    },
  };
}
