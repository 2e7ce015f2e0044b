import type { Updateable } from 'kysely';
import type { Db } from '../db/index.ts';
import type { WebhookInterface } from './catalog.ts';
import type {
  WebhookAttemptRow,
  WebhookDeliveryRow,
  WebhookLogRow,
  WebhookSubscriptionRow,
} from './tables.ts';

export type SubscriptionPatch = Updateable<WebhookSubscriptionRow>;
export type DeliveryPatch = Updateable<WebhookDeliveryRow>;

/** Subscriptions: every read and write names the tenant first. */
export const subscriptions = {
  insert: (db: Db, row: WebhookSubscriptionRow) =>
    db.insertInto('webhook_subscriptions').values(row).execute(),

  get: (db: Db, tenantId: string, iface: WebhookInterface, id: string) =>
    db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('interface', '=', iface)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst(),

  list: (db: Db, tenantId: string, iface: WebhookInterface, page: { limit: number; offset: number }) =>
    db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('interface', '=', iface)
      .where('deleted_at', 'is', null)
      .orderBy('created_at')
      .orderBy('id')
      .limit(page.limit)
      .offset(page.offset)
      .execute(),

  async count(db: Db, tenantId: string, iface: WebhookInterface) {
    const row = await db
      .selectFrom('webhook_subscriptions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', tenantId)
      .where('interface', '=', iface)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  },

  update: (db: Db, tenantId: string, id: string, patch: SubscriptionPatch) =>
    db
      .updateTable('webhook_subscriptions')
      .set(patch)
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute(),

  /** Who receives a tenant's events now: live and enabled. */
  active: (db: Db, tenantIds: readonly string[]) =>
    db
      .selectFrom('webhook_subscriptions')
      .selectAll()
      .where('tenant_id', 'in', tenantIds)
      .where('status', '=', 'active')
      .where('deleted_at', 'is', null)
      .execute(),

  /** The worker's read: a lane names its subscription by id alone, deleted ones included. */
  byId: (db: Db, id: string) =>
    db.selectFrom('webhook_subscriptions').selectAll().where('id', '=', id).executeTakeFirst(),
};

export const deliveries = {
  async insert(db: Db, rows: WebhookDeliveryRow[]) {
    // Bound the statement's parameters (SQLite allows 32,766; a row has 20).
    for (let i = 0; i < rows.length; i += 500) {
      await db
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 500))
        .execute();
    }
  },

  get: (db: Db, tenantId: string, id: string) =>
    db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst(),

  /** Subscriptions with a delivery due: the lanes worth taking. */
  async dueLanes(db: Db, now: string, limit: number) {
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select('webhook_id')
      .distinct()
      .where('next_attempt_at', 'is not', null)
      .where('next_attempt_at', '<=', now)
      .limit(limit)
      .execute();
    return rows.map((row) => row.webhook_id);
  },

  /** When the next delivery falls due, for the worker's sleep. */
  async nextDue(db: Db) {
    const row = await db
      .selectFrom('webhook_deliveries')
      .select((eb) => eb.fn.min('next_attempt_at').as('at'))
      .where('next_attempt_at', 'is not', null)
      .executeTakeFirst();
    return (row?.at as string | null | undefined) ?? undefined;
  },

  /** A lane's due deliveries in event order. */
  laneBatch: (db: Db, webhookId: string, now: string, limit: number) =>
    db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .where('next_attempt_at', 'is not', null)
      .where('next_attempt_at', '<=', now)
      .orderBy('id')
      .limit(limit)
      .execute(),

  /** Attempts a worker started and never finished: it died, or lost its lease, while sending. */
  interrupted: (db: Db, webhookId: string) =>
    db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', webhookId)
      .where('next_attempt_at', 'is not', null)
      .where('in_flight_since', 'is not', null)
      .execute(),

  async markInFlight(db: Db, marks: Array<{ id: string; at: string }>) {
    for (const mark of marks) {
      await db
        .updateTable('webhook_deliveries')
        .set((eb) => ({ in_flight_since: mark.at, attempt: eb('attempt', '+', 1) }))
        .where('id', '=', mark.id)
        .execute();
    }
  },

  update: (db: Db, id: string, patch: DeliveryPatch) =>
    db.updateTable('webhook_deliveries').set(patch).where('id', '=', id).execute(),

  /** Stops what a subscription still had to send (it was disabled or deleted). */
  cancelPending: (db: Db, tenantId: string, webhookId: string, error: string) =>
    db
      .updateTable('webhook_deliveries')
      .set({ next_attempt_at: null, status: 'failed', last_error: error, last_error_class: 'cancelled' })
      .where('tenant_id', '=', tenantId)
      .where('webhook_id', '=', webhookId)
      .where('next_attempt_at', 'is not', null)
      .where('in_flight_since', 'is', null)
      .executeTakeFirst(),
};

export const attempts = {
  async insert(db: Db, rows: WebhookAttemptRow[]) {
    for (let i = 0; i < rows.length; i += 500) {
      await db
        .insertInto('webhook_attempts')
        .values(rows.slice(i, i + 500))
        .execute();
    }
  },

  last: (db: Db, tenantId: string, deliveryId: string) =>
    db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('delivery_id', '=', deliveryId)
      .orderBy('attempt', 'desc')
      .limit(1)
      .executeTakeFirst(),
};

export const lanes = {
  /**
   * Takes a subscription's lane when it is free, expired or already ours: one conditional upsert,
   * atomic on either database, so two workers can never both win it.
   */
  async acquire(db: Db, webhookId: string, owner: string, now: string, leaseUntil: string) {
    const taken = await db
      .insertInto('webhook_lanes')
      .values({ webhook_id: webhookId, owner, lease_until: leaseUntil, last_sent_at: null })
      .onConflict((c) =>
        c
          .column('webhook_id')
          .doUpdateSet({ owner, lease_until: leaseUntil })
          .where((eb) =>
            eb.or([eb('webhook_lanes.lease_until', '<=', now), eb('webhook_lanes.owner', '=', owner)]),
          ),
      )
      .returning(['last_sent_at'])
      .executeTakeFirst();
    return taken ? { lastSentAt: taken.last_sent_at } : undefined;
  },

  /** Extends our leases; answers the lanes we still hold. */
  async renew(db: Db, owner: string, webhookIds: readonly string[], leaseUntil: string) {
    if (webhookIds.length === 0) return [];
    const rows = await db
      .updateTable('webhook_lanes')
      .set({ lease_until: leaseUntil })
      .where('owner', '=', owner)
      .where('webhook_id', 'in', webhookIds)
      .returning('webhook_id')
      .execute();
    return rows.map((row) => row.webhook_id);
  },

  release: (db: Db, webhookId: string, owner: string, now: string, lastSentAt: string | null) =>
    db
      .updateTable('webhook_lanes')
      .set({ lease_until: now, last_sent_at: lastSentAt })
      .where('webhook_id', '=', webhookId)
      .where('owner', '=', owner)
      .execute(),
};

export const logs = {
  insert: (db: Db, row: WebhookLogRow) => db.insertInto('webhook_logs').values(row).execute(),
};
