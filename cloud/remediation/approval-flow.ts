/**
 * A remediation waiting in the cockpit's queue: approving it (with modified parameters, when the
 * operator changed them) runs it under the same checks as an automatic one; rejecting it records
 * the rejection with the operator's reason. While the kill switch is on, or the target's hourly
 * limit is used up, the approval itself is refused and the item stays in the queue.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { Approval, CockpitService, Decision, RemediationOptions } from '../cockpit/index.ts';
import type { Store } from '../db/index.ts';
import type { RemediationAction } from './actions.ts';
import { hourlyLimit } from './checks.ts';
import type { ExecutorRegistry, RemediationAlert, Target } from './executors/index.ts';
import * as store from './store.ts';
import type { RemediationRow } from './tables.ts';
import type { SafetyCheck } from './views.ts';

export interface ApprovalFlowDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  options: RemediationOptions;
  cockpit: CockpitService;
  executors: ExecutorRegistry;
  alertOf(tenantId: string, alertId: string): Promise<RemediationAlert>;
  reserve(row: RemediationRow, insert: boolean): Promise<{ refused?: unknown; gone?: boolean }>;
  execute(
    row: RemediationRow,
    alert: RemediationAlert,
    target: Target,
    timeoutSeconds: number,
  ): Promise<unknown>;
  refusalError(check: string, detail: string, freesAt: Date | undefined, action: string): Error;
}

const withCheck = (row: RemediationRow, check: SafetyCheck) =>
  JSON.stringify([...(JSON.parse(row.safety_checks) as SafetyCheck[]), check]);

export function linkApprovals(deps: ApprovalFlowDeps) {
  const db = deps.store.db;
  const now = () => deps.clock.now().toISOString();
  const pendingOf = async (tenantId: string, approval: Approval) => {
    const row = await store.byApproval(db, tenantId, approval.id);
    return row?.status === 'pending_approval' ? row : undefined;
  };

  deps.cockpit.approvals.guard('remediation', async (tenantId, approval) => {
    const row = await pendingOf(tenantId, approval);
    if (!row) return;
    const settings = await deps.cockpit.settings(tenantId);
    if (settings.kill_switch)
      throw deps.refusalError('kill_switch', 'the agent kill switch is on', undefined, row.action);
    if (!row.target || !row.rate_group) return;
    const limit = await hourlyLimit(deps.store, deps.clock, deps.options, {
      tenantId,
      action: row.action as RemediationAction,
      targetKey: row.target,
    });
    if (!limit.check.passed)
      throw deps.refusalError('rate_limit', limit.check.detail, limit.freesAt, row.action);
  });

  async function reject(tenantId: string, row: RemediationRow, decision: Decision) {
    const at = now();
    await store.transition(db, tenantId, row.id, ['pending_approval'], {
      status: 'rejected',
      updated_at: at,
      finished_at: at,
      safety_checks: withCheck(row, {
        check: 'operator_approval',
        passed: false,
        auto_approved: false,
        detail: `rejected by ${decision.operator_id}: ${decision.reason ?? ''}`,
      }),
    });
  }

  async function refuse(tenantId: string, row: RemediationRow, check: string, detail: string) {
    const at = now();
    await store.transition(db, tenantId, row.id, ['pending_approval'], {
      status: 'refused',
      refused_by: check,
      updated_at: at,
      finished_at: at,
      safety_checks: withCheck(row, { check, passed: false, detail }),
    });
  }

  async function approve(tenantId: string, row: RemediationRow, approval: Approval, decision: Decision) {
    const parameters =
      approval.payload.parameters && typeof approval.payload.parameters === 'object'
        ? (approval.payload.parameters as Record<string, unknown>)
        : (JSON.parse(row.parameters) as Record<string, unknown>);
    const executor = deps.executors.get(row.action as RemediationAction);
    const alert = await deps.alertOf(tenantId, row.alert_id).catch(() => undefined);
    const found = executor && alert ? await executor.target(tenantId, alert, parameters) : undefined;
    const approved: RemediationRow = {
      ...row,
      parameters: JSON.stringify(parameters),
      safety_checks: withCheck(row, {
        check: 'operator_approval',
        passed: true,
        auto_approved: false,
        detail: `${decision.action === 'modify' ? 'modified and approved' : 'approved'} by ${decision.operator_id}`,
      }),
    };
    await store.transition(db, tenantId, row.id, ['pending_approval'], {
      parameters: approved.parameters,
      safety_checks: approved.safety_checks,
    });
    if (!executor || !alert || !found || !('key' in found))
      return refuse(
        tenantId,
        approved,
        'target_exists',
        found && 'missing' in found ? found.missing : 'the alert or executor is gone',
      );
    const reserved = await deps.reserve(approved, false);
    if (reserved.refused || reserved.gone) return;
    const settings = await deps.cockpit.settings(tenantId);
    await deps.execute({ ...approved, status: 'executing' }, alert, found, settings.timeout_seconds);
  }

  deps.cockpit.approvals.onDecision('remediation', async ({ tenantId, approval, decision }) => {
    const row = await pendingOf(tenantId, approval);
    if (!row) return;
    if (approval.status === 'rejected') return reject(tenantId, row, decision);
    if (approval.status === 'approved') return approve(tenantId, row, approval, decision);
    // escalated: it waits in the queue for whoever it went to
  });
}
