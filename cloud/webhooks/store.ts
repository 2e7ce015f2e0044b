import { sql, type Updateable } from 'kysely';
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

  /**
   * Lanes with a delivery due and no live lease. The lanes with pending work are walked by a skip
   * scan (one index probe per lane, whatever each lane's backlog), so a poll costs the same with
   * a million rows queued behind one endpoint as with none, and a lane another worker holds is
   * never in the way of the others.
   */
  async dueLanes(db: Db, now: string, limit: number) {
    const result = await sql<{ webhook_id: string }>`
      with recursive lane(id) as (
        select (select min(webhook_id) from webhook_deliveries where next_attempt_at is not null)
        union all
        select (
          select min(d.webhook_id) from webhook_deliveries d
          where d.next_attempt_at is not null and d.webhook_id > lane.id
        )
        from lane where lane.id is not null
      )
      select lane.id as webhook_id from lane
      where lane.id is not null
        and (
          select min(d.next_attempt_at) from webhook_deliveries d
          where d.webhook_id = lane.id and d.next_attempt_at is not null
        ) <= ${now}
        and not exists (
          select 1 from webhook_lanes l where l.webhook_id = lane.id and l.lease_until > ${now}
        )
      limit ${limit}`.execute(db);
    return result.rows.map((row) => row.webhook_id);
  },

  /**
   * A lane's due deliveries in event order. Rows still marked in flight are attempts a worker
   * started and never finished (it died, or lost the lane): the caller logs them. The lane's rows
   * are walked in id order, each probe starting after the last one's row, so a batch costs the same
   * whatever the lane's backlog. Asked as one `order by id limit n` (or with a first probe that has
   * no id to start from), a planner without statistics may read the whole backlog through the
   * due-time index and sort it, for every batch; SQLite does so even with them.
   */
  async laneBatch(db: Db, webhookId: string, now: string, limit: number) {
    const result = await sql<WebhookDeliveryRow>`
      with recursive walk(id, n) as (
        select cast('' as text), 0
        union all
        select (
          select min(d.id) from webhook_deliveries d
          where d.webhook_id = ${webhookId} and d.next_attempt_at <= ${now} and d.id > walk.id
        ), walk.n + 1
        from walk where walk.id is not null and walk.n < ${limit}
      )
      select * from webhook_deliveries
      where id in (select walk.id from walk where walk.n > 0 and walk.id is not null)
      order by id`.execute(db);
    return result.rows;
  },

  /**
   * Marks attempts as on the wire, each only if it is still where its sender saw it (same attempt
   * count, not in flight) and the sender still holds the lane: a worker that lost its lane can
   * never send again what the new holder sends. Answers the ids marked.
   */
  async markInFlight(
    db: Db,
    owner: string | null,
    at: string,
    marks: ReadonlyArray<{ id: string; attempt: number }>,
  ) {
    if (marks.length === 0) return new Set<string>();
    const pairs = sql.join(marks.map((mark) => sql`(${mark.id}, ${mark.attempt})`));
    const held =
      owner === null
        ? sql``
        : sql`and exists (
            select 1 from webhook_lanes l
            where l.webhook_id = webhook_deliveries.webhook_id and l.owner = ${owner} and l.lease_until > ${at}
          )`;
    const result = await sql<{ id: string }>`
      update webhook_deliveries set in_flight_since = ${at}, attempt = attempt + 1
      where (id, attempt) in (${pairs}) and in_flight_since is null ${held}
      returning id`.execute(db);
    return new Set(result.rows.map((row) => row.id));
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
  /**
   * The attempt log. An attempt's line is written once, except that a worker which saw the
   * endpoint's answer replaces the `interrupted` line another worker wrote for it meanwhile.
   */
  async insert(db: Db, rows: WebhookAttemptRow[]) {
    for (let i = 0; i < rows.length; i += 500) {
      await db
        .insertInto('webhook_attempts')
        .values(rows.slice(i, i + 500))
        .onConflict((c) =>
          c
            .columns(['delivery_id', 'attempt'])
            .doUpdateSet((eb) => ({
              outcome: eb.ref('excluded.outcome'),
              finished_at: eb.ref('excluded.finished_at'),
              latency_ms: eb.ref('excluded.latency_ms'),
              response_code: eb.ref('excluded.response_code'),
              error_class: eb.ref('excluded.error_class'),
              error: eb.ref('excluded.error'),
              request_headers: eb.ref('excluded.request_headers'),
              response_headers: eb.ref('excluded.response_headers'),
              response_body: eb.ref('excluded.response_body'),
              retry_at: eb.ref('excluded.retry_at'),
            }))
            .where((eb) =>
              eb.and([
                eb('webhook_attempts.outcome', '=', 'interrupted'),
                eb('excluded.outcome', '!=', 'interrupted'),
              ]),
            ),
        )
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
   * Takes the lanes that are free, expired or already ours, in one conditional upsert (atomic on
   * either database, so two workers never both win one). Answers each lane won with its last send.
   */
  async acquire(db: Db, webhookIds: readonly string[], owner: string, now: string, leaseUntil: string) {
    if (webhookIds.length === 0) return new Map<string, string | null>();
    const taken = await db
      .insertInto('webhook_lanes')
      .values(
        webhookIds.map((id) => ({ webhook_id: id, owner, lease_until: leaseUntil, last_sent_at: null })),
      )
      .onConflict((c) =>
        c
          .column('webhook_id')
          .doUpdateSet({ owner, lease_until: leaseUntil })
          .where((eb) =>
            eb.or([eb('webhook_lanes.lease_until', '<=', now), eb('webhook_lanes.owner', '=', owner)]),
          ),
      )
      .returning(['webhook_id', 'last_sent_at'])
      .execute();
    return new Map(taken.map((row) => [row.webhook_id, row.last_sent_at]));
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
