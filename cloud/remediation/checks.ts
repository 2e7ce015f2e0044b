/**
 * The safety checks of a remediation, in the order they refuse: kill switch, executor, target,
 * agent rate limit, the action's hourly limit, then risk and approval. Each is recorded on the
 * record; a dry run reports them all and acts on none.
 */
import type { Clock } from '../../shared/clock.ts';
import type { AgentSettings, RemediationOptions } from '../cockpit/index.ts';
import type { Store } from '../db/index.ts';
import { ACTIONS, approvalDecision, type RemediationAction } from './actions.ts';
import type { RemediationAlert, RemediationExecutor, Target } from './executors/index.ts';
import { executionsSince, requestsSince } from './store.ts';
import type { SafetyCheck } from './views.ts';

const HOUR_MS = 3600_000;
const MINUTE_MS = 60_000;

export interface CheckInput {
  tenantId: string;
  action: RemediationAction;
  alert: RemediationAlert;
  parameters: Record<string, unknown>;
  settings: AgentSettings;
  executor: RemediationExecutor | undefined;
}

export interface CheckOutcome {
  checks: SafetyCheck[];
  target: Target | undefined;
  auto: boolean;
  /** The first failed check that refuses the request, with when it frees (rate limits). */
  refusal: { check: string; detail: string; freesAt?: Date } | undefined;
}

/** The hourly limit for `group` on `target`: passed, and when the oldest counted execution drops out. */
export async function hourlyLimit(
  store: Store,
  clock: Clock,
  options: RemediationOptions,
  input: { tenantId: string; action: RemediationAction; targetKey: string },
) {
  const group = ACTIONS[input.action].rateGroup;
  if (!group)
    return { check: { check: 'rate_limit', passed: true, detail: 'no hourly limit for this action' } };
  const limit = options.rateLimits[group];
  const now = clock.now();
  const since = new Date(now.getTime() - HOUR_MS).toISOString();
  const recent = await executionsSince(store.db, input.tenantId, group, input.targetKey, since);
  const passed = recent.length < limit;
  const freesAt = passed
    ? undefined
    : new Date(Date.parse(recent[recent.length - limit]!.started_at!) + HOUR_MS);
  const detail = `${recent.length} of ${limit} ${group} actions on ${input.targetKey} in the last hour${
    freesAt ? `; allowed again at ${freesAt.toISOString()}` : ''
  }`;
  return { check: { check: 'rate_limit', passed, detail }, freesAt };
}

export async function runChecks(
  store: Store,
  clock: Clock,
  options: RemediationOptions,
  input: CheckInput,
): Promise<CheckOutcome> {
  const checks: SafetyCheck[] = [];
  let refusal: CheckOutcome['refusal'];
  const add = (check: SafetyCheck, freesAt?: Date) => {
    checks.push(check);
    if (!check.passed && !refusal)
      refusal = { check: check.check, detail: check.detail, ...(freesAt ? { freesAt } : {}) };
  };
  add({
    check: 'kill_switch',
    passed: !input.settings.kill_switch,
    detail: input.settings.kill_switch ? 'the agent kill switch is on' : 'off',
  });
  add({
    check: 'executor',
    passed: input.executor !== undefined,
    detail: input.executor ? `${input.action} has an executor` : `no executor carries out ${input.action}`,
  });
  const found = input.executor
    ? await input.executor.target(input.tenantId, input.alert, input.parameters)
    : undefined;
  const target = found && 'key' in found ? found : undefined;
  add({
    check: 'target_exists',
    passed: target !== undefined,
    detail:
      target?.description ??
      (found && 'missing' in found ? found.missing : 'not looked up without an executor'),
  });

  const now = clock.now();
  const requests = await requestsSince(
    store.db,
    input.tenantId,
    new Date(now.getTime() - MINUTE_MS).toISOString(),
  );
  const perMinute = input.settings.rate_limit_per_minute;
  add(
    {
      check: 'agent_rate_limit',
      passed: requests < perMinute,
      detail: `${requests} of ${perMinute} requests in the last minute`,
    },
    new Date(now.getTime() + MINUTE_MS),
  );
  if (target) {
    const hourly = await hourlyLimit(store, clock, options, { ...input, targetKey: target.key });
    add(hourly.check, hourly.freesAt);
  }
  const decision = approvalDecision(ACTIONS[input.action].risk, {
    safetyLevel: input.settings.safety_level,
    environment: input.alert.environment ?? null,
    requireApproval: options.requireApproval,
    autoApprove: options.autoApprove,
  });
  checks.push({
    check: 'risk_approval',
    passed: true,
    auto_approved: decision.auto,
    detail: decision.detail,
  });
  return { checks, target, auto: decision.auto, refusal };
}
