/**
 * Auto-remediation: an action on an alert's target passes its safety checks, then runs at once
 * (auto-approved) or waits in the cockpit's approval queue; approving it there runs it, rejecting
 * it records the rejection. Executions are counted per target against the hourly limits.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AlertingService } from '../alerting/index.ts';
import type { CockpitService, RemediationOptions } from '../cockpit/index.ts';
import { killSwitchOn, MAX_ACTION_TIMEOUT_SECONDS } from '../cockpit/index.ts';
import type { Db, Store } from '../db/index.ts';
import type { DeviceService } from '../devices/index.ts';
import { ACTIONS, type RemediationAction } from './actions.ts';
import { linkApprovals } from './approval-flow.ts';
import { hourlyLimit, runChecks } from './checks.ts';
import {
  alertNotFound,
  badParameter,
  noExecutor,
  noTarget,
  rateLimited,
  remediationNotFound,
} from './errors.ts';
import { resultOf, runExecutor } from './execute.ts';
import { clearCacheExecutor } from './executors/clear-cache.ts';
import { createExecutorRegistry, type RemediationAlert, type Target } from './executors/index.ts';
import { restartServiceExecutor } from './executors/restart-service.ts';
import { rotateLogsExecutor } from './executors/rotate-logs.ts';
import { remediationFigures } from './metrics.ts';
import * as store from './store.ts';
import type { RemediationRow, RemediationStatus } from './tables.ts';
import { type SafetyCheck, toRemediation } from './views.ts';

export interface RemediationDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: RemediationOptions;
  alerting: Pick<AlertingService, 'get'>;
  cockpit: CockpitService;
  devices: DeviceService;
}

export interface RemediateInput {
  alert_id: string;
  action: RemediationAction;
  parameters?: Record<string, unknown> | undefined;
  dry_run?: boolean | undefined;
}

/** How often a running cloud looks for executions another (stopped) process left open. */
const RECOVERY_INTERVAL_MS = 60_000;

const parseChecks = (row: RemediationRow) => JSON.parse(row.safety_checks) as SafetyCheck[];

export function createRemediationService(deps: RemediationDeps) {
  const db = deps.store.db;
  const executors = createExecutorRegistry();
  executors.register('restart_service', restartServiceExecutor(deps.devices));
  executors.register('rotate_logs', rotateLogsExecutor(deps.devices));
  executors.register('clear_cache', clearCacheExecutor(deps.devices));
  const now = () => deps.clock.now().toISOString();

  async function alertOf(tenantId: string, alertId: string) {
    const alert = (await deps.alerting.get(tenantId, alertId)) as RemediationAlert | undefined;
    if (!alert) throw alertNotFound();
    return alert;
  }

  function refusalError(check: string, detail: string, freesAt: Date | undefined, action: string) {
    if (check === 'kill_switch') return killSwitchOn();
    if (check === 'executor') return noExecutor(action);
    if (check === 'target_exists') return noTarget(detail);
    return rateLimited(check, detail, freesAt ?? deps.clock.now(), deps.clock.now());
  }

  /**
   * Takes a slot of the target's hourly limit and marks the record executing, in one transaction
   * under the target's lock; the check that refused it otherwise.
   */
  async function reserve(row: RemediationRow, insert: boolean) {
    return db.transaction().execute(async (trx) => {
      await store.lockTarget(deps.store, trx, `remediation:${row.tenant_id}:${row.rate_group}:${row.target}`);
      const limit = row.rate_group
        ? await hourlyLimit({ ...deps.store, db: trx }, deps.clock, deps.options, {
            tenantId: row.tenant_id,
            action: row.action as RemediationAction,
            targetKey: row.target!,
          })
        : undefined;
      const at = now();
      if (limit && !limit.check.passed) {
        const refused = {
          status: 'refused' as const,
          refused_by: 'rate_limit',
          updated_at: at,
          finished_at: at,
        };
        const checks = JSON.stringify([
          ...parseChecks(row).filter((c) => c.check !== 'rate_limit'),
          limit.check,
        ]);
        if (insert) await store.insertRemediation(trx, { ...row, ...refused, safety_checks: checks });
        else
          await store.transition(trx, row.tenant_id, row.id, ['pending_approval'], {
            ...refused,
            safety_checks: checks,
          });
        return { refused: limit };
      }
      const executing = { status: 'executing' as const, started_at: at, updated_at: at };
      if (insert) await store.insertRemediation(trx, { ...row, ...executing });
      else if (!(await store.transition(trx, row.tenant_id, row.id, ['pending_approval'], executing)))
        return { refused: undefined, gone: true };
      return { refused: undefined };
    });
  }

  async function execute(
    row: RemediationRow,
    alert: RemediationAlert,
    target: Target,
    timeoutSeconds: number,
  ) {
    const executor = executors.get(row.action as RemediationAction)!;
    const parameters = JSON.parse(row.parameters) as Record<string, unknown>;
    const outcome = await runExecutor(
      executor,
      { tenantId: row.tenant_id, alert, target, parameters },
      timeoutSeconds * 1000,
    );
    const at = now();
    const done = await store.transition(db, row.tenant_id, row.id, ['executing'], {
      status: outcome.status,
      result: JSON.stringify(outcome.result),
      execution_ms: outcome.ms,
      updated_at: at,
      finished_at: at,
    });
    // No row moved: the recovery sweep closed it meanwhile (this process looked stopped); its word stands.
    if (!done) return toRemediation((await store.remediation(db, row.tenant_id, row.id))!);
    if (outcome.status !== 'executed')
      deps.log.warn(
        { remediationId: row.id, status: outcome.status, result: outcome.result },
        'remediation did not succeed',
      );
    return toRemediation(done);
  }

  async function insertOnce(row: RemediationRow) {
    try {
      await store.insertRemediation(db, row);
      return row;
    } catch (error) {
      if (!row.idempotency_key || !deps.store.isUniqueViolation(error)) throw error;
      return (await store.byIdempotencyKey(db, row.tenant_id, row.idempotency_key))!;
    }
  }

  async function remediate(
    tenantId: string,
    input: RemediateInput,
    requestedBy: string,
    idempotencyKey?: string,
  ) {
    if (idempotencyKey) {
      const earlier = await store.byIdempotencyKey(db, tenantId, idempotencyKey);
      if (earlier) return toRemediation(earlier);
    }
    const alert = await alertOf(tenantId, input.alert_id);
    const executor = executors.get(input.action);
    const parameters = input.parameters ?? {};
    const problem = executor?.validate?.(parameters);
    if (problem) throw badParameter(problem.field, problem.message);
    const settings = await deps.cockpit.settings(tenantId);
    const outcome = await runChecks(deps.store, deps.clock, deps.options, {
      tenantId,
      action: input.action,
      alert,
      parameters,
      settings,
      executor,
    });
    const at = now();
    const row: RemediationRow = {
      id: deps.newId(),
      tenant_id: tenantId,
      alert_id: input.alert_id,
      action: input.action,
      risk: ACTIONS[input.action].risk,
      parameters: JSON.stringify(parameters),
      environment: alert.environment ?? null,
      target: outcome.target?.key ?? null,
      rate_group: ACTIONS[input.action].rateGroup,
      runbook: alert.runbook_url ?? null,
      status: 'dry_run',
      dry_run: input.dry_run ? 1 : 0,
      auto_approved: outcome.auto ? 1 : 0,
      safety_checks: JSON.stringify(outcome.checks),
      result: null,
      execution_ms: null,
      refused_by: null,
      approval_id: null,
      idempotency_key: idempotencyKey ?? null,
      requested_by: requestedBy,
      created_at: at,
      updated_at: at,
      started_at: null,
      finished_at: null,
    };
    if (input.dry_run) {
      const checks = [
        ...outcome.checks,
        { check: 'dry_run', passed: true, detail: 'checks only: nothing executed, no limit counted' },
      ];
      return toRemediation(await insertOnce({ ...row, safety_checks: JSON.stringify(checks) }));
    }
    if (outcome.refusal) {
      const { check, detail, freesAt } = outcome.refusal;
      await insertOnce({ ...row, status: 'refused', refused_by: check, finished_at: at });
      throw refusalError(check, detail, freesAt, input.action);
    }
    if (!outcome.auto) return toRemediation(await submitForApproval(row, alert));
    const reserved = await reserve(row, true);
    if (reserved.refused)
      throw refusalError('rate_limit', reserved.refused.check.detail, reserved.refused.freesAt, input.action);
    return execute(row, alert, outcome.target!, settings.timeout_seconds);
  }

  async function submitForApproval(row: RemediationRow, alert: RemediationAlert) {
    const { pending, approval } = await db.transaction().execute(async (trx: Db) => {
      const pending = { ...row, status: 'pending_approval' as RemediationStatus };
      await store.insertRemediation(trx, pending);
      const approval = await deps.cockpit.approvals.submit(trx, row.tenant_id, {
        kind: 'remediation',
        summary: `${row.action} on ${row.target} for alert "${alert.title}" (${row.risk} risk, ${row.environment ?? 'no environment'})`,
        payload: {
          remediation_id: row.id,
          alert_id: row.alert_id,
          action: row.action,
          risk: row.risk,
          environment: row.environment,
          target: row.target,
          parameters: JSON.parse(row.parameters),
        },
        requested_by: row.requested_by,
      });
      await store.transition(trx, row.tenant_id, row.id, ['pending_approval'], { approval_id: approval.id });
      return { pending, approval };
    });
    deps.cockpit.approvals.announce(row.tenant_id, approval);
    return { ...pending, approval_id: approval.id };
  }

  /**
   * Closes executions a stopped process left running: anything still `executing` after the longest
   * time-out an operator can set becomes `timed_out`, saying the fleet commands it had queued may
   * still have run (they are not sent again: restarting a service twice is not harmless).
   */
  async function recoverInterrupted() {
    const before = new Date(
      deps.clock.now().getTime() - (MAX_ACTION_TIMEOUT_SECONDS + 60) * 1000,
    ).toISOString();
    let recovered = 0;
    for (const stale of await store.staleExecutions(db, before, 500)) {
      const at = now();
      const ran = Date.parse(at) - Date.parse(stale.started_at!);
      const result = resultOf(
        {
          success: false,
          error:
            'the cloud process stopped while this action ran; the commands it had queued may still have been carried out (see the device’s command history)',
        },
        ran,
      );
      const closed = await store.transition(db, stale.tenant_id, stale.id, ['executing'], {
        status: 'timed_out',
        result: JSON.stringify(result),
        execution_ms: ran,
        updated_at: at,
        finished_at: at,
      });
      if (closed) recovered += 1;
    }
    if (recovered > 0) deps.log.warn({ recovered }, 'interrupted remediations closed as timed out');
    return recovered;
  }

  let recovery: NodeJS.Timeout | undefined;
  const recoverLogged = () =>
    recoverInterrupted().catch((error: unknown) =>
      deps.log.error({ err: error }, 'closing interrupted remediations failed'),
    );

  const service = {
    executors,
    remediate,
    recoverInterrupted,
    start() {
      if (recovery) return;
      void recoverLogged();
      recovery = setInterval(recoverLogged, RECOVERY_INTERVAL_MS);
      recovery.unref();
    },
    close() {
      clearInterval(recovery);
      recovery = undefined;
    },
    async get(tenantId: string, id: string) {
      const row = await store.remediation(db, tenantId, id);
      if (!row) throw remediationNotFound();
      return toRemediation(row);
    },
    async list(
      tenantId: string,
      filter: { status?: RemediationStatus | undefined; alertId?: string | undefined },
      page: { limit: number; cursor?: string | undefined },
    ) {
      const rows = await store.remediations(db, tenantId, filter, {
        limit: page.limit + 1,
        before: page.cursor,
      });
      const items = rows.slice(0, page.limit).map(toRemediation);
      return { items, nextCursor: rows.length > page.limit ? (items.at(-1)?.id ?? null) : null };
    },
  };
  linkApprovals({ ...deps, alertOf, reserve, execute, executors, refusalError });
  deps.cockpit.metrics.register('remediation', (tenantId, from, to) =>
    remediationFigures(db, tenantId, from, to),
  );
  return service;
}

export type RemediationService = ReturnType<typeof createRemediationService>;
