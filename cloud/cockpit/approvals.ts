/**
 * The approval queue: anything an agent (or a remediation) may not do alone waits here for a
 * cockpit operator, who approves (with a note), modifies and approves, rejects with a reason, or
 * escalates it. A decision is taken once; the same request sent again answers the same item.
 */
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import * as store from './approvals-store.ts';
import { alreadyDecided, approvalNotFound } from './errors.ts';
import type { ConsoleFeed } from './feed.ts';
import type { ApprovalKind, ApprovalRow, ApprovalStatus, DecisionAction } from './tables.ts';
import { type Approval, toApproval, toDecision } from './views.ts';

export interface ApprovalRequest {
  kind: ApprovalKind;
  summary: string;
  payload: Record<string, unknown>;
  requested_by: string;
}

export interface Decision {
  action: DecisionAction;
  operator_id: string;
  /** The authenticated user who sent it. */
  user_id: string;
  note?: string | undefined;
  reason?: string | undefined;
  payload?: Record<string, unknown> | undefined;
  to?: string | undefined;
}

export interface DecisionEvent {
  tenantId: string;
  approval: Approval;
  decision: Decision;
}
export type DecisionListener = (event: DecisionEvent) => void | Promise<void>;
/** Runs before an approval is recorded; a throw refuses it and the item stays as it was. */
export type ApprovalGuard = (tenantId: string, approval: Approval, decision: Decision) => Promise<void>;

const FROM: Record<DecisionAction, readonly ApprovalStatus[]> = {
  approve: ['pending', 'escalated'],
  approve_with_note: ['pending', 'escalated'],
  modify: ['pending', 'escalated'],
  reject: ['pending', 'escalated'],
  escalate: ['pending'],
};

const requestHash = (decision: Decision) =>
  createHash('sha256')
    .update(
      JSON.stringify([
        decision.action,
        decision.operator_id,
        decision.note ?? null,
        decision.reason ?? null,
        decision.payload ?? null,
        decision.to ?? null,
      ]),
    )
    .digest('hex');

function patchFor(decision: Decision, at: string): Partial<ApprovalRow> {
  if (decision.action === 'escalate')
    return {
      status: 'escalated',
      updated_at: at,
      escalated_at: at,
      escalated_by: decision.operator_id,
      escalated_to: decision.to ?? null,
      ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
    };
  return {
    status: decision.action === 'reject' ? 'rejected' : 'approved',
    updated_at: at,
    decided_at: at,
    decided_by: decision.operator_id,
    decision: decision.action,
    note: decision.note ?? null,
    reason: decision.reason ?? null,
    ...(decision.payload !== undefined ? { payload: JSON.stringify(decision.payload) } : {}),
  };
}

export function createApprovals(deps: {
  db: Db;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  feed: ConsoleFeed;
}) {
  const { db, feed, log } = deps;
  const listeners = new Map<ApprovalKind, Set<DecisionListener>>();
  const guards = new Map<ApprovalKind, ApprovalGuard>();

  /** An approval of a kind with a guard (remediation: kill switch, rate limit) is checked first. */
  async function guard(tenantId: string, id: string, decision: Decision) {
    if (decision.action === 'reject' || decision.action === 'escalate') return;
    const current = await store.approval(db, tenantId, id);
    const check = current ? guards.get(current.kind) : undefined;
    if (current && check && FROM[decision.action].includes(current.status))
      await check(tenantId, toApproval(current), decision);
  }

  async function notify(event: DecisionEvent) {
    for (const listener of listeners.get(event.approval.kind as ApprovalKind) ?? []) {
      try {
        await listener(event);
      } catch (error) {
        log.error({ err: error, approvalId: event.approval.id }, 'approval decision listener failed');
      }
    }
  }

  /** A repeat of the item's last decision (a retry) answers the item; anything else is a conflict. */
  async function replayOrConflict(tenantId: string, id: string, decision: Decision, hash: string) {
    const current = await store.approval(db, tenantId, id);
    if (!current) throw approvalNotFound();
    const last = (await store.decisions(db, tenantId, id)).at(-1);
    if (last && last.request_hash === hash) return toApproval(current);
    throw alreadyDecided(current.status, decision.action);
  }

  return {
    /**
     * Queues an item. On the store's db it is announced on the console feed at once; in the
     * caller's transaction the caller calls `announce` after the commit, so the console never shows
     * an item that a rollback took back.
     */
    async submit(trx: Db, tenantId: string, request: ApprovalRequest): Promise<Approval> {
      const at = deps.clock.now().toISOString();
      const payload = JSON.stringify(request.payload);
      const row: ApprovalRow = {
        id: deps.newId(),
        tenant_id: tenantId,
        kind: request.kind,
        summary: request.summary,
        payload,
        original_payload: payload,
        requested_by: request.requested_by,
        status: 'pending',
        created_at: at,
        updated_at: at,
        decided_at: null,
        decided_by: null,
        decision: null,
        note: null,
        reason: null,
        escalated_at: null,
        escalated_by: null,
        escalated_to: null,
      };
      await store.insertApproval(trx, row);
      const approval = toApproval(row);
      if (!trx.isTransaction) feed.publish(tenantId, { type: 'approval.created', approval });
      return approval;
    },

    /** Announces an item submitted in a transaction, once that transaction committed. */
    announce(tenantId: string, approval: Approval) {
      feed.publish(tenantId, { type: 'approval.created', approval });
    },

    /** Called after each decision on an item of `kind` (approve, modify, reject and escalate alike). */
    onDecision(kind: ApprovalKind, listener: DecisionListener) {
      if (!listeners.has(kind)) listeners.set(kind, new Set());
      listeners.get(kind)!.add(listener);
      return () => listeners.get(kind)!.delete(listener);
    },

    /** One guard per kind: what must hold for an item of that kind to be approved now. */
    guard(kind: ApprovalKind, check: ApprovalGuard) {
      guards.set(kind, check);
    },

    async decide(tenantId: string, id: string, decision: Decision): Promise<Approval> {
      await guard(tenantId, id, decision);
      const at = deps.clock.now().toISOString();
      const hash = requestHash(decision);
      const row = await db.transaction().execute(async (trx) => {
        const moved = await store.transition(
          trx,
          tenantId,
          id,
          FROM[decision.action],
          patchFor(decision, at),
        );
        if (!moved) return undefined;
        await store.insertDecision(trx, {
          id: deps.newId(),
          tenant_id: tenantId,
          approval_id: id,
          action: decision.action,
          operator_id: decision.operator_id,
          user_id: decision.user_id,
          note: decision.note ?? null,
          reason: decision.reason ?? null,
          payload: decision.payload !== undefined ? JSON.stringify(decision.payload) : null,
          escalated_to: decision.to ?? null,
          request_hash: hash,
          at,
        });
        return moved;
      });
      if (!row) return replayOrConflict(tenantId, id, decision, hash);
      const approval = toApproval(row);
      feed.publish(tenantId, { type: 'approval.decided', approval, action: decision.action });
      await notify({ tenantId, approval, decision });
      return approval;
    },

    async get(tenantId: string, id: string) {
      const row = await store.approval(db, tenantId, id);
      if (!row) throw approvalNotFound();
      const history = await store.decisions(db, tenantId, id);
      return { ...toApproval(row), decisions: history.map(toDecision) };
    },

    async list(
      tenantId: string,
      filter: { status?: ApprovalStatus | undefined; kind?: ApprovalKind | undefined },
      page: { limit: number; cursor?: string | undefined },
    ) {
      const rows = await store.approvals(db, tenantId, filter, { limit: page.limit + 1, after: page.cursor });
      const items = rows.slice(0, page.limit).map(toApproval);
      return { items, nextCursor: rows.length > page.limit ? (items.at(-1)?.id ?? null) : null };
    },
  };
}

export type Approvals = ReturnType<typeof createApprovals>;
