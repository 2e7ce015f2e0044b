/** The approval queue's tables. Every query takes the tenant first. */
import type { Db } from '../db/index.ts';
import type { ApprovalDecisionRow, ApprovalKind, ApprovalRow, ApprovalStatus } from './tables.ts';

export const insertApproval = (db: Db, row: ApprovalRow) =>
  db.insertInto('cockpit_approvals').values(row).execute();

export const approval = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('cockpit_approvals')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

/** Oldest first (a queue); `after` is the last id of the previous page (ids are time-ordered). */
export const approvals = (
  db: Db,
  tenantId: string,
  filter: { status?: ApprovalStatus | undefined; kind?: ApprovalKind | undefined },
  page: { limit: number; after?: string | undefined },
) =>
  db
    .selectFrom('cockpit_approvals')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .$if(filter.kind !== undefined, (q) => q.where('kind', '=', filter.kind!))
    .$if(page.after !== undefined, (q) => q.where('id', '>', page.after!))
    .orderBy('id')
    .limit(page.limit)
    .execute();

/** Applies the patch only while the item is in one of `from`: two operators cannot both decide. */
export const transition = (
  db: Db,
  tenantId: string,
  id: string,
  from: readonly ApprovalStatus[],
  patch: Partial<ApprovalRow>,
) =>
  db
    .updateTable('cockpit_approvals')
    .set(patch)
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('status', 'in', [...from])
    .returningAll()
    .executeTakeFirst();

export const insertDecision = (db: Db, row: ApprovalDecisionRow) =>
  db.insertInto('cockpit_approval_decisions').values(row).execute();

/** An item's decisions in the order they were taken. */
export const decisions = (db: Db, tenantId: string, approvalId: string) =>
  db
    .selectFrom('cockpit_approval_decisions')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('approval_id', '=', approvalId)
    .orderBy('id')
    .execute();

/** Items created in (from, to], counted by status and kind. */
export const approvalCounts = (db: Db, tenantId: string, from: string, to: string) =>
  db
    .selectFrom('cockpit_approvals')
    .select(['status', 'kind'])
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('tenant_id', '=', tenantId)
    .where('created_at', '>', from)
    .where('created_at', '<=', to)
    .groupBy(['status', 'kind'])
    .execute();

/** Items finally decided in (from, to]: when each was created and decided. */
export const decidedBetween = (db: Db, tenantId: string, from: string, to: string) =>
  db
    .selectFrom('cockpit_approvals')
    .select(['created_at', 'decided_at'])
    .where('tenant_id', '=', tenantId)
    .where('decided_at', '>', from)
    .where('decided_at', '<=', to)
    .execute();
