/** The on-call tables. Every query takes the tenant first. */
import type { Db } from '../db/index.ts';
import type { OncallOverrideRow, OncallScheduleRow } from './tables.ts';

export type SchedulePatch = Partial<Omit<OncallScheduleRow, 'id' | 'tenant_id' | 'created_at'>>;

export const insertSchedule = (db: Db, row: OncallScheduleRow) =>
  db.insertInto('oncall_schedules').values(row).returningAll().executeTakeFirstOrThrow();

export const scheduleById = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('oncall_schedules')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const scheduleByTeam = (db: Db, tenantId: string, team: string) =>
  db
    .selectFrom('oncall_schedules')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('team', '=', team)
    .executeTakeFirst();

/** By team name; `after` is the last team of the previous page. */
export const schedules = (db: Db, tenantId: string, page: { limit: number; after?: string | undefined }) =>
  db
    .selectFrom('oncall_schedules')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(page.after !== undefined, (q) => q.where('team', '>', page.after!))
    .orderBy('team')
    .limit(page.limit)
    .execute();

export const teamNames = async (db: Db, tenantId: string) =>
  (
    await db
      .selectFrom('oncall_schedules')
      .select('team')
      .where('tenant_id', '=', tenantId)
      .orderBy('team')
      .execute()
  ).map((row) => row.team);

export const updateSchedule = (db: Db, tenantId: string, id: string, patch: SchedulePatch) =>
  db
    .updateTable('oncall_schedules')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();

/** Removes the schedule and its overrides; the number of schedules removed (0 or 1). */
export async function deleteSchedule(db: Db, tenantId: string, id: string) {
  return db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('oncall_overrides')
      .where('tenant_id', '=', tenantId)
      .where('schedule_id', '=', id)
      .execute();
    const result = await trx
      .deleteFrom('oncall_schedules')
      .where('tenant_id', '=', tenantId)
      .where('id', '=', id)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  });
}

export const insertOverride = (db: Db, row: OncallOverrideRow) =>
  db.insertInto('oncall_overrides').values(row).returningAll().executeTakeFirstOrThrow();

/** The schedule's overrides still in force or to come at `at` (ISO): what the answer needs. */
export const overridesFrom = (db: Db, tenantId: string, scheduleId: string, at: string) =>
  db
    .selectFrom('oncall_overrides')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('schedule_id', '=', scheduleId)
    .where('ends_at', '>', at)
    .execute();

/** Newest first; `before` is the last id of the previous page; `notEndedAt` keeps those not ended by then. */
export const overrides = (
  db: Db,
  tenantId: string,
  scheduleId: string,
  filter: { notEndedAt?: string | undefined },
  page: { limit: number; before?: string | undefined },
) =>
  db
    .selectFrom('oncall_overrides')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('schedule_id', '=', scheduleId)
    .$if(filter.notEndedAt !== undefined, (q) => q.where('ends_at', '>', filter.notEndedAt!))
    .$if(page.before !== undefined, (q) => q.where('id', '<', page.before!))
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();

export const overrideById = (db: Db, tenantId: string, scheduleId: string, id: string) =>
  db
    .selectFrom('oncall_overrides')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('schedule_id', '=', scheduleId)
    .where('id', '=', id)
    .executeTakeFirst();

export const deleteOverride = async (db: Db, tenantId: string, scheduleId: string, id: string) =>
  Number(
    (
      await db
        .deleteFrom('oncall_overrides')
        .where('tenant_id', '=', tenantId)
        .where('schedule_id', '=', scheduleId)
        .where('id', '=', id)
        .executeTakeFirst()
    ).numDeletedRows,
  );

/** An override identical in every decision to `row` (a retried create), if there is one. */
export const sameOverride = (db: Db, row: OncallOverrideRow) =>
  db
    .selectFrom('oncall_overrides')
    .selectAll()
    .where('tenant_id', '=', row.tenant_id)
    .where('schedule_id', '=', row.schedule_id)
    .where('slot', '=', row.slot)
    .where('kind', '=', row.kind)
    .where('person', '=', row.person)
    .where('starts_at', '=', row.starts_at)
    .where('ends_at', '=', row.ends_at)
    .where((eb) => (row.reason === null ? eb('reason', 'is', null) : eb('reason', '=', row.reason)))
    .executeTakeFirst();
