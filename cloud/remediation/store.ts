/** The remediations table. Every query takes the tenant first. */
import { sql } from 'kysely';
import type { Db, Store } from '../db/index.ts';
import type { RemediationRow, RemediationStatus } from './tables.ts';

/** Statuses that mean the action ran (or is running): what the hourly limits count. */
export const EXECUTED: readonly RemediationStatus[] = ['executing', 'executed', 'failed', 'timed_out'];

export const insertRemediation = (db: Db, row: RemediationRow) =>
  db.insertInto('remediations').values(row).execute();

export const remediation = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('remediations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const byIdempotencyKey = (db: Db, tenantId: string, key: string) =>
  db
    .selectFrom('remediations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('idempotency_key', '=', key)
    .executeTakeFirst();

export const byApproval = (db: Db, tenantId: string, approvalId: string) =>
  db
    .selectFrom('remediations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('approval_id', '=', approvalId)
    .executeTakeFirst();

/** Newest first; `before` is the last id of the previous page. */
export const remediations = (
  db: Db,
  tenantId: string,
  filter: { status?: RemediationStatus | undefined; alertId?: string | undefined },
  page: { limit: number; before?: string | undefined },
) =>
  db
    .selectFrom('remediations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .$if(filter.alertId !== undefined, (q) => q.where('alert_id', '=', filter.alertId!))
    .$if(page.before !== undefined, (q) => q.where('id', '<', page.before!))
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();

/** Moves a record on only from one of `from`; the row after, or undefined. */
export const transition = (
  db: Db,
  tenantId: string,
  id: string,
  from: readonly RemediationStatus[],
  patch: Partial<RemediationRow>,
) =>
  db
    .updateTable('remediations')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .returningAll()
    .executeTakeFirst();

/**
 * Executions still marked running that started before `before`, across tenants: what a process
 * that stopped mid-action left behind (the recovery sweep's query, like the notify worker's).
 */
export const staleExecutions = (db: Db, before: string, limit: number) =>
  db
    .selectFrom('remediations')
    .select(['tenant_id', 'id', 'started_at'])
    .where('status', '=', 'executing')
    .where('started_at', '<', before)
    .orderBy('started_at')
    .limit(limit)
    .execute();

/** Start times of a target's executions of a rate group since `since`, oldest first. */
export const executionsSince = (db: Db, tenantId: string, group: string, target: string, since: string) =>
  db
    .selectFrom('remediations')
    .select('started_at')
    .where('tenant_id', '=', tenantId)
    .where('rate_group', '=', group)
    .where('target', '=', target)
    .where('status', 'in', [...EXECUTED])
    .where('started_at', '>', since)
    .orderBy('started_at')
    .execute();

/** Requests (dry runs aside) the tenant made since `since`: the agent rate limit's count. */
export const requestsSince = async (db: Db, tenantId: string, since: string) =>
  Number(
    (
      await db
        .selectFrom('remediations')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('tenant_id', '=', tenantId)
        .where('dry_run', '=', 0)
        .where('created_at', '>', since)
        .executeTakeFirstOrThrow()
    ).count,
  );

/**
 * Serialises rate-limited executions of one target: on PostgreSQL a transaction-scoped advisory
 * lock (two replicas counting at once would both see room); SQLite runs one writer at a time.
 */
export async function lockTarget(store: Store, trx: Db, key: string) {
  if (store.dialect !== 'pg') return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}

/** Rows created in (from, to], counted by how they went. */
export const createdCounts = (db: Db, tenantId: string, from: string, to: string) =>
  db
    .selectFrom('remediations')
    .select(['status', 'dry_run', 'auto_approved', 'refused_by'])
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('created_at', '>', from)
    .where('created_at', '<=', to)
    .groupBy(['status', 'dry_run', 'auto_approved', 'refused_by'])
    .execute();

/** Executions finished in (from, to], by action and outcome, with their summed duration. */
export const finishedCounts = (db: Db, tenantId: string, from: string, to: string) =>
  db
    .selectFrom('remediations')
    .select(['action', 'status'])
    .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.sum<number>('execution_ms').as('total_ms')])
    .where('tenant_id', '=', tenantId)
    .where('status', 'in', ['executed', 'failed', 'timed_out'])
    .where('finished_at', '>', from)
    .where('finished_at', '<=', to)
    .groupBy(['action', 'status'])
    .execute();
