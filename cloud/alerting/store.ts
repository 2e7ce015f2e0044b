/** The alerts and their escalation steps. Every query takes the tenant first (the worker's look for due steps spans tenants). */
import type { Db, DialectName } from '../db/index.ts';
import type { AlertRow, AlertStatus, EscalationStepRow } from './tables.ts';

export type AlertPatch = Partial<
  Pick<
    AlertRow,
    | 'status'
    | 'updated_at'
    | 'acknowledged_at'
    | 'acknowledged_by'
    | 'note'
    | 'resolved_at'
    | 'resolved_by'
    | 'resolution_note'
    | 'escalation_level'
  >
>;

export const openAlert = (db: Db, tenantId: string, fingerprint: string) =>
  db
    .selectFrom('alerts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('fingerprint', '=', fingerprint)
    .where('resolved_at', 'is', null)
    .executeTakeFirst();

/** A repeat of an open alert: one more occurrence, the later sighting, the latest description. */
export const repeat = (
  db: Db,
  tenantId: string,
  id: string,
  seen: { at: string; description: string | null },
) =>
  db
    .updateTable('alerts')
    .set((eb) => ({
      occurrences: eb('occurrences', '+', 1),
      last_seen_at: eb
        .case()
        .when('last_seen_at', '<', seen.at)
        .then(seen.at)
        .else(eb.ref('last_seen_at'))
        .end(),
      description: seen.description ?? eb.ref('description'),
      updated_at: seen.at,
    }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('resolved_at', 'is', null)
    .returningAll()
    .executeTakeFirst();

/**
 * Opens the alert, or folds it into the open alert of its fingerprint: one statement on the
 * partial unique index, so two ingests of one fingerprint at once still leave one alert.
 */
export const openOrRepeat = (db: Db, row: AlertRow) =>
  db
    .insertInto('alerts')
    .values(row)
    .onConflict((conflict) =>
      conflict
        .columns(['tenant_id', 'fingerprint'])
        .where('resolved_at', 'is', null)
        .doUpdateSet((eb) => ({
          occurrences: eb('alerts.occurrences', '+', 1),
          last_seen_at: eb
            .case()
            .when(eb('excluded.last_seen_at', '>', eb.ref('alerts.last_seen_at')))
            .then(eb.ref('excluded.last_seen_at'))
            .else(eb.ref('alerts.last_seen_at'))
            .end(),
          description: eb.fn.coalesce('excluded.description', 'alerts.description'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();

export const alert = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('alerts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/** Newest first; `before` is the last id of the previous page (ids are time-ordered). */
export const alerts = (
  db: Db,
  tenantId: string,
  statuses: readonly AlertStatus[] | undefined,
  page: { limit: number; before?: string | undefined },
) =>
  db
    .selectFrom('alerts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(statuses !== undefined, (q) => q.where('status', 'in', statuses!))
    .$if(page.before !== undefined, (q) => q.where('id', '<', page.before!))
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();

export const startedBetween = (db: Db, tenantId: string, from: string, to: string) =>
  db
    .selectFrom('alerts')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('started_at', '>=', from)
    .where('started_at', '<=', to)
    .orderBy('started_at')
    .orderBy('id')
    .limit(10_000)
    .execute();

/** Applies the patch only while the alert is in one of `from`; the row after, or undefined. */
export const transition = (
  db: Db,
  tenantId: string,
  id: string,
  from: readonly AlertStatus[],
  patch: AlertPatch,
) =>
  db
    .updateTable('alerts')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', 'in', from)
    .returningAll()
    .executeTakeFirst();

export const steps = {
  /** Scheduled once: a replayed step finds its successor already there. */
  schedule: (db: Db, row: EscalationStepRow) =>
    db
      .insertInto('alert_escalation_steps')
      .values(row)
      .onConflict((c) => c.columns(['alert_id', 'level', 'position']).doNothing())
      .execute(),

  /** Pending steps due by `now`, oldest first, across tenants (the worker's look). */
  due: (db: Db, now: string, limit: number) =>
    db
      .selectFrom('alert_escalation_steps')
      .selectAll()
      .where('done_at', 'is', null)
      .where('due_at', '<=', now)
      .orderBy('due_at')
      .limit(limit)
      .execute(),

  /**
   * Claims the step for this transaction: on PostgreSQL a row lock another replica skips (it is
   * held until commit, and a crash rolls it back: the lease); then the step is marked done, so
   * whoever looks after the commit finds nothing to do. SQLite has one writer at a time.
   */
  async claim(db: Db, dialect: DialectName, step: EscalationStepRow, now: string, outcome: string) {
    if (dialect === 'pg') {
      const locked = await db
        .selectFrom('alert_escalation_steps')
        .select('id')
        .where('id', '=', step.id)
        .where('done_at', 'is', null)
        .forUpdate()
        .skipLocked()
        .executeTakeFirst();
      if (!locked) return false;
    }
    const claimed = await db
      .updateTable('alert_escalation_steps')
      .set({ done_at: now, outcome })
      .where('tenant_id', '=', step.tenant_id)
      .where('id', '=', step.id)
      .where('done_at', 'is', null)
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  },

  /** Brings the alert's pending steps forward to `now` (an escalation asked for); how many moved. */
  async bringForward(db: Db, tenantId: string, alertId: string, now: string) {
    const moved = await db
      .updateTable('alert_escalation_steps')
      .set({ due_at: now })
      .where('tenant_id', '=', tenantId)
      .where('alert_id', '=', alertId)
      .where('done_at', 'is', null)
      .where('due_at', '>', now)
      .executeTakeFirst();
    return Number(moved.numUpdatedRows);
  },

  setOutcome: (db: Db, tenantId: string, id: string, outcome: string) =>
    db
      .updateTable('alert_escalation_steps')
      .set({ outcome })
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .execute(),

  /** Every step of an alert, in order (tests and the debug view). */
  ofAlert: (db: Db, tenantId: string, alertId: string) =>
    db
      .selectFrom('alert_escalation_steps')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('alert_id', '=', alertId)
      .orderBy('level')
      .orderBy('position')
      .execute(),
};
