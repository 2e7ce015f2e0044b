/** The notify tables. Tenant reads and writes take the tenant first; the worker's claim spans tenants. */
import { type QueryCreator, sql } from 'kysely';
import type { Database, Db, DialectName } from '../db/index.ts';
import type {
  NotificationAttemptRow,
  NotificationRow,
  NotificationSettingsRow,
  NotificationStatus,
} from './tables.ts';

export interface NotificationFilter {
  alertId?: string | undefined;
  status?: NotificationStatus | undefined;
  channel?: string | undefined;
}

export type NotificationPatch = Partial<
  Pick<
    NotificationRow,
    | 'status'
    | 'next_attempt_at'
    | 'lease_owner'
    | 'last_error'
    | 'provider_ref'
    | 'updated_at'
    | 'delivered_at'
  >
>;

export type AttemptPatch = Partial<
  Pick<
    NotificationAttemptRow,
    'outcome' | 'provider_status' | 'provider_answer' | 'error' | 'finished_at' | 'duration_ms'
  >
>;

// A literal, not a parameter: both planners use the partial index only when they can see the value.
const PENDING = sql.lit<NotificationStatus>('pending');

/** Inserts the rows whose dedupe key the tenant has not used yet; answers the ids inserted. */
export async function insertNew(db: Db, rows: NotificationRow[]) {
  if (rows.length === 0) return [];
  const inserted = await db
    .insertInto('notifications')
    .values(rows)
    .onConflict((conflict) => conflict.columns(['tenant_id', 'dedupe_key']).doNothing())
    .returning('id')
    .execute();
  return inserted.map((row) => row.id);
}

/**
 * Claims up to `limit` due notifications for `owner`: one more attempt each, and next_attempt_at
 * moved to the lease's end, so a worker that dies holding them gives them back when it lapses.
 * PostgreSQL workers skip each other's locked rows; the locking select sits in a CTE because as an
 * `IN (...)` subquery the planner may run it again per row and claim past the limit. SQLite runs one
 * writer at a time anyway.
 */
export async function claimDue(
  db: Db,
  dialect: DialectName,
  claim: { owner: string; now: string; leaseUntil: string; limit: number },
) {
  const due = (q: QueryCreator<Database>) =>
    q
      .selectFrom('notifications')
      .select('id')
      .where('status', '=', PENDING)
      .where('next_attempt_at', '<=', claim.now)
      .orderBy('next_attempt_at')
      .limit(claim.limit);
  const patch = {
    attempts: sql<number>`attempts + 1`,
    lease_owner: claim.owner,
    next_attempt_at: claim.leaseUntil,
    updated_at: claim.now,
  };
  if (dialect === 'pg') {
    return db
      .with('due', (q) => due(q).forUpdate().skipLocked())
      .updateTable('notifications')
      .from('due')
      .set(patch)
      .whereRef('notifications.id', '=', 'due.id')
      .returningAll('notifications')
      .execute();
  }
  // SQLite: read first and write only when something is due, so an idle worker polling every few
  // hundred milliseconds never takes the database's one write lock from the writers that matter.
  const ids = (await due(db).execute()).map((row) => row.id);
  if (ids.length === 0) return [];
  return db
    .updateTable('notifications')
    .set(patch)
    .where('id', 'in', ids)
    .where('status', '=', PENDING)
    .where('next_attempt_at', '<=', claim.now)
    .returningAll()
    .execute();
}

/** The attempts a dead worker left on the wire, now known to be cut off. */
export function markInterrupted(db: Db, notificationIds: readonly string[], at: string) {
  if (notificationIds.length === 0) return Promise.resolve();
  return db
    .updateTable('notification_attempts')
    .set({ outcome: 'interrupted', finished_at: at, error: 'the worker stopped during this attempt' })
    .where('notification_id', 'in', notificationIds)
    .where('outcome', '=', 'in_flight')
    .execute()
    .then(() => undefined);
}

export async function insertAttempts(db: Db, rows: NotificationAttemptRow[]) {
  if (rows.length === 0) return;
  await db.insertInto('notification_attempts').values(rows).execute();
}

/** Writes an attempt's result only while the claim is still the one that made it. */
export async function settle(
  db: Db,
  held: { id: string; owner: string; attempt: number },
  patch: NotificationPatch,
) {
  const result = await db
    .updateTable('notifications')
    .set(patch)
    .where('id', '=', held.id)
    .where('lease_owner', '=', held.owner)
    .where('attempts', '=', held.attempt)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export const updateAttempt = (db: Db, id: string, patch: AttemptPatch) =>
  db.updateTable('notification_attempts').set(patch).where('id', '=', id).execute();

export const notification = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('notifications')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/**
 * A voice call's notification by id alone: the provider's callback carries no tenant, only the id
 * and a token bound to it (voice-callback.ts), checked before this is read.
 */
export const voiceCall = (db: Db, id: string) =>
  db
    .selectFrom('notifications')
    .selectAll()
    .where('id', '=', id)
    .where('channel', '=', 'voice')
    .executeTakeFirst();

/** Newest first; `before` is the last id of the previous page (ids are time-ordered). */
export const notifications = (
  db: Db,
  tenantId: string,
  filter: NotificationFilter,
  page: { limit: number; before?: string | undefined },
) =>
  db
    .selectFrom('notifications')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(filter.alertId !== undefined, (q) => q.where('alert_id', '=', filter.alertId!))
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .$if(filter.channel !== undefined, (q) => q.where('channel', '=', filter.channel!))
    .$if(page.before !== undefined, (q) => q.where('id', '<', page.before!))
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();

export const attemptsOf = (db: Db, tenantId: string, notificationIds: readonly string[]) =>
  notificationIds.length === 0
    ? Promise.resolve([] as NotificationAttemptRow[])
    : db
        .selectFrom('notification_attempts')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('notification_id', 'in', notificationIds)
        .orderBy('notification_id')
        .orderBy('attempt')
        .execute();

export const settings = (db: Db, tenantId: string) =>
  db.selectFrom('notification_settings').selectAll().where('tenant_id', '=', tenantId).executeTakeFirst();

export const saveSettings = (db: Db, row: NotificationSettingsRow) =>
  db
    .insertInto('notification_settings')
    .values(row)
    .onConflict((conflict) =>
      conflict.column('tenant_id').doUpdateSet({
        team_chat_webhook_url: row.team_chat_webhook_url,
        email_from: row.email_from,
        enabled_channels: row.enabled_channels,
        updated_at: row.updated_at,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
