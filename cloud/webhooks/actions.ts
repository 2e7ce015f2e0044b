import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import { envelopeA, envelopeB } from '../../shared/webhooks/envelopes.ts';
import type { Db } from '../db/index.ts';
import type { DomainEventRow, EventLog } from '../events/index.ts';
import { CATALOGS, type WebhookInterface } from './catalog.ts';
import { deliveryNotFound, deliveryNotRetryable, invalidEvents, webhookNotDisabled } from './errors.ts';
import { deliveriesFor, newDelivery } from './fan-out.ts';
import { deliveries, subscriptions } from './store.ts';
import type { Subscriptions } from './subscriptions.ts';
import type { WebhookSubscriptionRow } from './tables.ts';
import type { DeliveryWorker } from './worker.ts';

export interface ActionDeps {
  db: Db;
  clock: Clock;
  newId: IdGenerator;
  events: EventLog;
  subscriptions: Subscriptions;
  worker: DeliveryWorker;
}

const REPLAY_PAGE = 1000;

function catalogEvent(iface: WebhookInterface, name: string) {
  for (const category of CATALOGS[iface]) {
    const event = category.events.find((entry) => entry.name === name);
    if (event) return event;
  }
  return undefined;
}

/** What people do to deliveries: test an endpoint, retry a failure, re-enable and replay. */
export function createActions(deps: ActionDeps) {
  const { db, clock, newId } = deps;

  /** A real delivery of a sample event, sent now; the caller waits for the endpoint's answer. */
  async function test(
    tenantId: string,
    iface: WebhookInterface,
    webhookId: string,
    input: { event: string; data?: Record<string, unknown> | undefined },
  ) {
    const subscription = await deps.subscriptions.get(tenantId, iface, webhookId);
    const known = catalogEvent(iface, input.event);
    if (!known) throw invalidEvents([input.event]);
    const now = clock.now().toISOString();
    const common = {
      id: newId(),
      createdAt: now,
      tenantId,
      locationId: null,
      data: input.data ?? known.payload_example ?? {},
    };
    const body = JSON.stringify(
      iface === 'subscription'
        ? envelopeA({ ...common, type: input.event })
        : envelopeB({ ...common, event: input.event }),
    );
    const delivery = { ...newDelivery(subscription, { id: common.id, type: input.event }, body, now, newId) };
    delivery.is_test = 1;
    delivery.next_attempt_at = null;
    await deliveries.insert(db, [delivery]);
    const record = await deps.worker.sendNow(subscription, delivery);
    if (!record) throw new Error('a test delivery could not be marked for sending');
    return {
      delivery_id: delivery.id,
      status: record.patch.status as string,
      response_code: record.attempt.response_code,
      response_body: record.attempt.response_body ?? '',
      latency_ms: record.attempt.latency_ms ?? 0,
      error: record.attempt.error,
    };
  }

  /**
   * A failed delivery sent again as a new one. Its own automatic retry, if one was still
   * scheduled, is called off: the event goes out once more, not twice.
   */
  async function retry(tenantId: string, iface: WebhookInterface, deliveryId: string) {
    const original = await deliveries.get(db, tenantId, deliveryId);
    if (!original) throw deliveryNotFound();
    const subscription = await subscriptions.byId(db, original.webhook_id);
    if (!subscription || subscription.deleted_at !== null || subscription.interface !== iface)
      throw deliveryNotFound();
    if (original.status !== 'failed' || original.in_flight_since !== null)
      throw deliveryNotRetryable(original.in_flight_since !== null ? 'being sent' : original.status);
    const now = clock.now().toISOString();
    const copy = newDelivery(
      subscription,
      { id: original.event_id, type: original.event_type },
      original.body,
      now,
      newId,
    );
    copy.original_delivery_id = original.id;
    copy.is_test = original.is_test;
    await db.transaction().execute(async (trx) => {
      await deliveries.update(trx, original.id, { next_attempt_at: null });
      await deliveries.insert(trx, [copy]);
    });
    deps.worker.wake();
    return {
      delivery_id: copy.id,
      original_delivery_id: original.id,
      status: copy.status,
      scheduled_at: now,
    };
  }

  /** Events of the tenant received since `from` that this subscription would have been sent. */
  async function missedSince(trx: Db, subscription: WebhookSubscriptionRow, from: string, at: string) {
    const rows = [];
    let after: DomainEventRow | undefined;
    for (;;) {
      const page = await deps.events.list(trx, subscription.tenant_id, {
        limit: REPLAY_PAGE,
        receivedFrom: from,
        after,
      });
      rows.push(...deliveriesFor(page, [{ ...subscription, status: 'active' }], at, newId));
      if (page.length < REPLAY_PAGE) return rows;
      after = page.at(-1);
    }
  }

  /**
   * A disabled endpoint back in service. What it missed (the deliveries its disabling stopped and
   * the events that came while it was off) is counted, and sent only when the caller asks.
   */
  async function enable(tenantId: string, iface: WebhookInterface, webhookId: string, replay: boolean) {
    const subscription = await deps.subscriptions.get(tenantId, iface, webhookId);
    if (subscription.status !== 'disabled') throw webhookNotDisabled();
    const now = clock.now().toISOString();
    const result = await db.transaction().execute(async (trx) => {
      const stopped = await trx
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('webhook_id', '=', webhookId)
        .where('last_error_class', '=', 'cancelled')
        .where('created_at', '>=', subscription.failing_since ?? subscription.disabled_at!)
        .execute();
      const missed = await missedSince(trx, subscription, subscription.disabled_at!, now);
      if (replay) {
        const resent = stopped.map((row) => ({
          ...newDelivery(subscription, { id: row.event_id, type: row.event_type }, row.body, now, newId),
          original_delivery_id: row.id,
        }));
        await deliveries.insert(trx, [...resent, ...missed]);
      }
      await subscriptions.update(trx, tenantId, webhookId, {
        status: 'active',
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
        updated_at: now,
      });
      return {
        missed_events: stopped.length + missed.length,
        replayed: replay ? stopped.length + missed.length : 0,
      };
    });
    await deps.subscriptions.log(tenantId, webhookId, 'webhook enabled', result);
    if (replay) deps.worker.wake();
    return { id: webhookId, status: 'active' as const, ...result };
  }

  /** The events consumer: deliveries are written in the transaction that records the events. */
  async function enqueue(trx: Db, events: DomainEventRow[]) {
    const tenants = [...new Set(events.map((event) => event.tenant_id))];
    const active = await subscriptions.active(trx, tenants);
    if (active.length === 0) return;
    const rows = deliveriesFor(events, active, clock.now().toISOString(), newId);
    if (rows.length === 0) return;
    await deliveries.insert(trx, rows);
    // The rows are visible once the caller commits; a moment later is soon enough to look.
    setTimeout(() => deps.worker.wake(), 5).unref();
  }

  return { test, retry, enable, enqueue };
}

export type Actions = ReturnType<typeof createActions>;
