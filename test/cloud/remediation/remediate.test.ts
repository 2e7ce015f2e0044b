import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RemediationExecutor } from '../../../cloud/remediation/index.ts';
import { seedTenant } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import {
  answerCommands,
  type CockpitCloud,
  cockpitCloud,
  enrolledAppliance,
  expectError,
  expectOk,
  member,
  raiseAlert,
} from '../cockpit/cockpit-cloud.ts';

const OPERATOR = '0190c2a4-0000-7000-8000-000000000001';
const REMEDIATE = '/api/v1/alerting/aiops/remediate';
const HOUR = 3600_000;

/** A deployment's scaling executor: keeps replicas per service in memory. */
function scaler(replicas: Map<string, number>): RemediationExecutor {
  return {
    validate: (p) =>
      Number.isInteger(p.replicas) && (p.replicas as number) > 0
        ? undefined
        : { field: 'replicas', message: 'must be a positive whole number' },
    target: async (_tenant, alert) => ({
      key: `service:${alert.service}`,
      description: `service ${alert.service}`,
    }),
    execute: async ({ alert, parameters }) => {
      const old = replicas.get(alert.service) ?? 2;
      replicas.set(alert.service, parameters.replicas as number);
      return { success: true, old_replicas: old, new_replicas: parameters.replicas as number };
    },
  };
}

describe.each(backends)('auto-remediation (%s)', (backend) => {
  let t: CockpitCloud;
  let deviceA: string;
  let deviceA2: string;
  let fleet: ReturnType<typeof answerCommands>;
  const replicas = new Map<string, number>();
  beforeAll(async () => {
    t = await cockpitCloud(backend);
    deviceA = await enrolledAppliance(t.cloud, t.a.tenant.id, t.a.location.id, 'APL-A1');
    deviceA2 = await enrolledAppliance(t.cloud, t.a.tenant.id, t.a.location.id, 'APL-A2');
    t.cloud.services.remediation.executors.register('scale_up', scaler(replicas));
    t.cloud.services.remediation.executors.register('scale_down', scaler(replicas));
    fleet = answerCommands(t.cloud);
  });
  afterAll(async () => {
    await fleet.stop();
    await t.cloud.close();
  });
  afterEach(async () => {
    await t.operatorA.call('PUT', '/api/internal/cockpit/agents/settings', {
      kill_switch: false,
      safety_level: 2,
      timeout_seconds: 30,
      rate_limit_per_minute: 1000,
    });
    t.cloud.clock.advance(2 * HOUR); // every test starts with its hourly limits free
  });

  const alertOn = (environment: string, labels: Record<string, string> = { device_id: deviceA }) =>
    raiseAlert(t.managerA, { environment, labels });
  const remediate = (body: Record<string, unknown>, headers?: Record<string, string>) =>
    t.managerA.call('POST', REMEDIATE, body, headers);
  const check = (record: { safety_checks: Array<{ check: string; detail?: string }> }, name: string) =>
    record.safety_checks.find((c) => c.check === name);

  it('runs a low-risk action in development at once, through an MDM command to the appliance', async () => {
    const alertId = await alertOn('development');
    const record = expectOk(
      await remediate({ alert_id: alertId, action: 'restart_service', parameters: { service: 'appliance' } }),
    );
    expect(record).toMatchObject({
      alert_id: alertId,
      action: 'restart_service',
      risk: 'low',
      runbook: 'https://runbooks.example.test/appliance',
      status: 'executed',
      auto_approved: true,
      target: `device:${deviceA}`,
      result: { success: true, old_replicas: null, new_replicas: null },
    });
    expect(record.result.execution_time_ms).toBeGreaterThanOrEqual(0);
    expect(check(record, 'risk_approval')).toMatchObject({ passed: true, auto_approved: true });
    for (const name of ['kill_switch', 'executor', 'target_exists', 'rate_limit', 'agent_rate_limit'])
      expect(check(record, name), name).toMatchObject({ passed: true });
    expect(fleet.answered).toContainEqual({ kind: 'restart_service', payload: { service: 'appliance' } });
    const listed = expectOk(
      await t.managerA.call('GET', `/api/v1/alerting/aiops/remediations?alert_id=${alertId}`),
    );
    expect(listed.map((r: { id: string }) => r.id)).toEqual([record.id]);
  });

  it('in production waits for a cockpit operator; approving it runs it', async () => {
    const alertId = await alertOn('production');
    const pending = expectOk(await remediate({ alert_id: alertId, action: 'rotate_logs' }), 202);
    expect(pending).toMatchObject({ status: 'pending_approval', auto_approved: false, result: null });
    expect(check(pending, 'risk_approval')).toMatchObject({
      auto_approved: false,
      detail: 'low risk in production: approval required',
    });
    const item = expectOk(
      await t.operatorA.call('GET', `/api/internal/cockpit/approvals/${pending.approval_id}`),
    );
    expect(item).toMatchObject({
      kind: 'remediation',
      status: 'pending',
      payload: { remediation_id: pending.id, action: 'rotate_logs' },
    });
    expectOk(
      await t.operatorA.call('POST', `/api/internal/cockpit/approvals/${item.id}/approve`, {
        operator_id: OPERATOR,
      }),
    );
    const done = expectOk(await t.managerA.call('GET', `/api/v1/alerting/aiops/remediations/${pending.id}`));
    expect(done).toMatchObject({ status: 'executed', result: { success: true } });
    expect(check(done, 'operator_approval')).toMatchObject({
      passed: true,
      detail: `approved by ${OPERATOR}`,
    });
  });

  it('an environment in neither list needs approval', async () => {
    const pending = expectOk(await remediate({ alert_id: await alertOn('qa'), action: 'clear_cache' }), 202);
    expect(pending.status).toBe('pending_approval');
  });

  it('scale_up (medium) is auto-approved in staging with the deployment’s executor', async () => {
    replicas.set('appliance', 3);
    const record = expectOk(
      await remediate({
        alert_id: await alertOn('staging'),
        action: 'scale_up',
        parameters: { replicas: 5 },
      }),
    );
    expect(record).toMatchObject({
      status: 'executed',
      risk: 'medium',
      result: { success: true, old_replicas: 3, new_replicas: 5 },
    });
    expectError(
      await remediate({
        alert_id: await alertOn('staging'),
        action: 'scale_up',
        parameters: { replicas: 'many' },
      }),
      400,
      'INVALID_REQUEST',
    );
  });

  it('high risk always needs approval; modify-and-approve runs the modified parameters', async () => {
    replicas.set('appliance', 5);
    const pending = expectOk(
      await remediate({
        alert_id: await alertOn('development'),
        action: 'scale_down',
        parameters: { replicas: 1 },
      }),
      202,
    );
    expect(pending).toMatchObject({ risk: 'high', status: 'pending_approval' });
    expect(check(pending, 'risk_approval')?.detail).toBe('high risk: approval required');
    const item = expectOk(
      await t.operatorA.call('GET', `/api/internal/cockpit/approvals/${pending.approval_id}`),
    );
    expectOk(
      await t.operatorA.call('POST', `/api/internal/cockpit/approvals/${item.id}/modify`, {
        operator_id: OPERATOR,
        payload: { ...item.payload, parameters: { replicas: 4 } },
      }),
    );
    const done = expectOk(await t.managerA.call('GET', `/api/v1/alerting/aiops/remediations/${pending.id}`));
    expect(done).toMatchObject({
      status: 'executed',
      parameters: { replicas: 4 },
      result: { old_replicas: 5, new_replicas: 4 },
    });
  });

  it('rejecting records rejected with the reason, and nothing runs', async () => {
    const before = fleet.answered.length;
    const pending = expectOk(
      await remediate({ alert_id: await alertOn('production'), action: 'restart_service' }),
      202,
    );
    expectOk(
      await t.operatorA.call('POST', `/api/internal/cockpit/approvals/${pending.approval_id}/reject`, {
        operator_id: OPERATOR,
        reason: 'lunch rush',
      }),
    );
    const done = expectOk(await t.managerA.call('GET', `/api/v1/alerting/aiops/remediations/${pending.id}`));
    expect(done).toMatchObject({ status: 'rejected', result: null });
    expect(check(done, 'operator_approval')).toMatchObject({
      passed: false,
      detail: `rejected by ${OPERATOR}: lunch rush`,
    });
    expect(fleet.answered.length).toBe(before);
  });

  it('actions without an executor answer 422 no_executor', async () => {
    const alertId = await alertOn('development');
    for (const action of ['failover', 'database_query']) {
      const error = expectError(await remediate({ alert_id: alertId, action }), 422, 'no_executor');
      expect(error.details).toEqual([{ field: 'body.action', message: `${action} has no executor` }]);
    }
    const dry = expectOk(await remediate({ alert_id: alertId, action: 'failover', dry_run: true }));
    expect(check(dry, 'executor')).toMatchObject({ passed: false });
  });

  it('needs an appliance named by the alert’s labels', async () => {
    expectError(
      await remediate({ alert_id: await alertOn('development', {}), action: 'clear_cache' }),
      422,
      'TARGET_NOT_FOUND',
    );
    const stranger = '0190c2a4-0000-7000-8000-00000000dead';
    expectError(
      await remediate({
        alert_id: await alertOn('development', { device_id: stranger }),
        action: 'clear_cache',
      }),
      422,
      'TARGET_NOT_FOUND',
    );
    const byLocation = expectOk(
      await remediate({
        alert_id: await alertOn('development', { location_id: t.a.location.id }),
        action: 'clear_cache',
      }),
    );
    expect(byLocation).toMatchObject({ status: 'executed', target: `location:${t.a.location.id}` });
    expect(byLocation.result.details.commands).toHaveLength(2);
  });

  it('limits restarts to 3 an hour per target, freed as the hour rolls; dry runs count for nothing', async () => {
    const alertId = await alertOn('development');
    const restart = (dry_run = false) => remediate({ alert_id: alertId, action: 'restart_service', dry_run });
    expect(expectOk(await restart(true)).status).toBe('dry_run');
    const first = t.cloud.clock.now().getTime();
    for (let i = 0; i < 3; i += 1) {
      expect(expectOk(await restart()).status).toBe('executed');
      t.cloud.clock.advance(10 * 60_000);
    }
    const dry = expectOk(await restart(true));
    expect(dry).toMatchObject({ status: 'dry_run', dry_run: true });
    expect(check(dry, 'rate_limit')).toMatchObject({ passed: false });
    expect(check(dry, 'dry_run')).toMatchObject({ passed: true });
    const refused = await restart();
    const error = expectError(refused, 429, 'REMEDIATION_RATE_LIMITED');
    const freesAt = new Date(first + HOUR).toISOString();
    expect(error.details).toEqual([{ field: 'rate_limit', message: `allowed again at ${freesAt}` }]);
    expect(Number(refused.headers['retry-after'])).toBe(30 * 60);
    // Another appliance has its own limit.
    const other = await alertOn('development', { device_id: deviceA2 });
    expect(expectOk(await remediate({ alert_id: other, action: 'restart_service' })).status).toBe('executed');
    t.cloud.clock.set(new Date(first + HOUR + 1));
    expect(expectOk(await restart()).status).toBe('executed');
    const refusedRecord = expectOk(
      await t.managerA.call('GET', '/api/v1/alerting/aiops/remediations?status=refused'),
    );
    expect(refusedRecord.length).toBeGreaterThanOrEqual(1);
  });

  it('four restarts at once on one appliance: three run, one is refused', async () => {
    const alertId = await alertOn('development', { device_id: deviceA2 });
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => remediate({ alert_id: alertId, action: 'restart_service' })),
    );
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 429]);
  });

  it('limits scaling to 5 an hour per target', async () => {
    const alertId = await alertOn('staging', { device_id: deviceA });
    for (let i = 0; i < 5; i += 1)
      expect(
        expectOk(await remediate({ alert_id: alertId, action: 'scale_up', parameters: { replicas: 2 + i } }))
          .status,
      ).toBe('executed');
    expectError(
      await remediate({ alert_id: alertId, action: 'scale_up', parameters: { replicas: 9 } }),
      429,
      'REMEDIATION_RATE_LIMITED',
    );
  });

  it('the kill switch stops automatic and manual execution', async () => {
    const pending = expectOk(
      await remediate({ alert_id: await alertOn('production'), action: 'clear_cache' }),
      202,
    );
    expectOk(await t.operatorA.call('PUT', '/api/internal/cockpit/agents/settings', { kill_switch: true }));
    const alertId = await alertOn('development');
    const error = expectError(
      await remediate({ alert_id: alertId, action: 'restart_service' }),
      423,
      'AGENTS_KILL_SWITCH',
    );
    expect(error.details).toEqual([{ field: 'kill_switch', message: 'is on' }]);
    expect(
      check(
        expectOk(await remediate({ alert_id: alertId, action: 'restart_service', dry_run: true })),
        'kill_switch',
      ),
    ).toMatchObject({
      passed: false,
    });
    const approve = () =>
      t.operatorA.call('POST', `/api/internal/cockpit/approvals/${pending.approval_id}/approve`, {
        operator_id: OPERATOR,
      });
    expectError(await approve(), 423, 'AGENTS_KILL_SWITCH');
    expect(
      expectOk(await t.operatorA.call('GET', `/api/internal/cockpit/approvals/${pending.approval_id}`))
        .status,
    ).toBe('pending');
    expectOk(await t.operatorA.call('PUT', '/api/internal/cockpit/agents/settings', { kill_switch: false }));
    expectOk(await approve());
    expect(
      expectOk(await t.managerA.call('GET', `/api/v1/alerting/aiops/remediations/${pending.id}`)).status,
    ).toBe('executed');
  });

  it('safety level 3 sends medium risk to approval; 5 sends everything', async () => {
    expectOk(await t.operatorA.call('PUT', '/api/internal/cockpit/agents/settings', { safety_level: 3 }));
    const alertId = await alertOn('development');
    expect(
      expectOk(await remediate({ alert_id: alertId, action: 'scale_up', parameters: { replicas: 3 } }), 202)
        .status,
    ).toBe('pending_approval');
    expect(expectOk(await remediate({ alert_id: alertId, action: 'rotate_logs' })).status).toBe('executed');
    expectOk(await t.operatorA.call('PUT', '/api/internal/cockpit/agents/settings', { safety_level: 5 }));
    expect(expectOk(await remediate({ alert_id: alertId, action: 'rotate_logs' }), 202).status).toBe(
      'pending_approval',
    );
  });

  it('the agent rate limit refuses requests beyond the minute’s allowance', async () => {
    expectOk(
      await t.operatorA.call('PUT', '/api/internal/cockpit/agents/settings', { rate_limit_per_minute: 2 }),
    );
    const alertId = await alertOn('development');
    expectOk(await remediate({ alert_id: alertId, action: 'rotate_logs' }));
    expectOk(await remediate({ alert_id: alertId, action: 'rotate_logs' }));
    const error = expectError(
      await remediate({ alert_id: alertId, action: 'rotate_logs' }),
      429,
      'REMEDIATION_RATE_LIMITED',
    );
    expect(error.details[0]?.field).toBe('agent_rate_limit');
    t.cloud.clock.advance(61_000);
    expectOk(await remediate({ alert_id: alertId, action: 'rotate_logs' }));
  });

  it('an executor that does not answer within the agent time-out ends timed_out', async () => {
    await fleet.stop();
    try {
      expectOk(
        await t.operatorA.call('PUT', '/api/internal/cockpit/agents/settings', { timeout_seconds: 1 }),
      );
      const record = expectOk(
        await remediate({ alert_id: await alertOn('development'), action: 'clear_cache' }),
      );
      expect(record).toMatchObject({ status: 'timed_out', result: { success: false } });
      expect(record.result.error).toContain('1 s');
    } finally {
      fleet = answerCommands(t.cloud);
    }
  });

  it('closes an execution a stopped process left running as timed_out, and never runs it again', async () => {
    let release: (() => void) | undefined;
    let runs = 0;
    t.cloud.services.remediation.executors.register('scale_up', {
      ...scaler(replicas),
      execute: async () => {
        runs += 1;
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return { success: true };
      },
    });
    try {
      expectOk(
        await t.operatorA.call('PUT', '/api/internal/cockpit/agents/settings', { timeout_seconds: 600 }),
      );
      const alertId = await alertOn('development');
      const answer = remediate({ alert_id: alertId, action: 'scale_up', parameters: { replicas: 3 } });
      await expect.poll(() => runs).toBe(1);
      const { remediation } = t.cloud.services;
      const [running] = (await remediation.list(t.a.tenant.id, { alertId }, { limit: 5 })).items;
      expect(running).toMatchObject({ status: 'executing' });

      // Still within the longest time-out an operator can set: it may be running elsewhere.
      t.cloud.clock.advance(9 * 60_000);
      expect(await remediation.recoverInterrupted()).toBe(0);
      t.cloud.clock.advance(3 * 60_000);
      expect(await remediation.recoverInterrupted()).toBe(1);
      const closed = await remediation.get(t.a.tenant.id, running!.id);
      expect(closed).toMatchObject({ status: 'timed_out', result: { success: false } });
      expect(closed.result!.error).toContain('stopped while this action ran');
      expect(await remediation.recoverInterrupted()).toBe(0);

      // The executor answering late does not overturn the record.
      release!();
      expect(expectOk(await answer)).toMatchObject({ id: running!.id, status: 'timed_out' });
      expect(runs).toBe(1);
    } finally {
      t.cloud.services.remediation.executors.register('scale_up', scaler(replicas));
    }
  });

  it('a retry with the same Idempotency-Key answers the same record and runs once', async () => {
    const alertId = await alertOn('development');
    const before = fleet.answered.length;
    const headers = { 'idempotency-key': `retry-${alertId}` };
    const one = expectOk(await remediate({ alert_id: alertId, action: 'rotate_logs' }, headers));
    const two = expectOk(await remediate({ alert_id: alertId, action: 'rotate_logs' }, headers));
    expect(two.id).toBe(one.id);
    expect(fleet.answered.length).toBe(before + 1);
  });

  it('validates the request and is for incident roles only', async () => {
    const alertId = await alertOn('development');
    expectError(await remediate({ alert_id: alertId, action: 'reboot_the_world' }), 400, 'INVALID_REQUEST');
    expectError(
      await remediate({ alert_id: alertId, action: 'rotate_logs', extra: 1 }),
      400,
      'INVALID_REQUEST',
    );
    expectError(
      await remediate({ alert_id: '0190c2a4-0000-7000-8000-00000000beef', action: 'rotate_logs' }),
      404,
      'ALERT_NOT_FOUND',
    );
    expectError(
      await t.operatorA.call('POST', REMEDIATE, { alert_id: alertId, action: 'rotate_logs' }),
      403,
      'FORBIDDEN',
    );
    expect(
      (await t.anonymous('POST', REMEDIATE, { alert_id: alertId, action: 'rotate_logs' })).statusCode,
    ).toBe(401);
  });

  it('never crosses tenants', async () => {
    const alertId = await alertOn('development');
    const mine = expectOk(await remediate({ alert_id: alertId, action: 'rotate_logs' }));
    expectError(
      await t.managerB.call('POST', REMEDIATE, { alert_id: alertId, action: 'rotate_logs' }),
      404,
      'ALERT_NOT_FOUND',
    );
    expectError(
      await t.managerB.call('GET', `/api/v1/alerting/aiops/remediations/${mine.id}`),
      404,
      'REMEDIATION_NOT_FOUND',
    );
    expect(expectOk(await t.managerB.call('GET', '/api/v1/alerting/aiops/remediations'))).toEqual([]);
    // B's alert naming A's appliance finds no target in B.
    const theirs = await raiseAlert(t.managerB, {
      environment: 'development',
      labels: { device_id: deviceA },
    });
    expectError(
      await t.managerB.call('POST', REMEDIATE, { alert_id: theirs, action: 'rotate_logs' }),
      422,
      'TARGET_NOT_FOUND',
    );
    // B's operator cannot decide A's remediation approvals.
    const pending = expectOk(
      await remediate({ alert_id: await alertOn('production'), action: 'rotate_logs' }),
      202,
    );
    expectError(
      await t.operatorB.call('POST', `/api/internal/cockpit/approvals/${pending.approval_id}/approve`, {
        operator_id: OPERATOR,
      }),
      404,
      'APPROVAL_NOT_FOUND',
    );
  });

  it('reports remediation figures in the cockpit’s AI metrics over the period', async () => {
    const echo = await seedTenant(t.cloud.services, 'echo');
    const manager = await member(t.cloud, echo.tenant.id, 'manager@echo.test', ['manager']);
    const operator = await member(t.cloud, echo.tenant.id, 'ops@echo.test', ['cockpit_operator']);
    const staging = await raiseAlert(manager, { environment: 'staging', service: 'kiosk-api' });
    const call = (body: Record<string, unknown>) => manager.call('POST', REMEDIATE, body);
    for (let i = 0; i < 5; i += 1)
      expectOk(await call({ alert_id: staging, action: 'scale_up', parameters: { replicas: 3 + i } }));
    expectError(
      await call({ alert_id: staging, action: 'scale_up', parameters: { replicas: 9 } }),
      429,
      'REMEDIATION_RATE_LIMITED',
    );
    expectOk(
      await call({ alert_id: staging, action: 'scale_up', parameters: { replicas: 9 }, dry_run: true }),
    );
    const production = await raiseAlert(manager, { environment: 'production', service: 'kiosk-db' });
    expectOk(await call({ alert_id: production, action: 'scale_down', parameters: { replicas: 1 } }), 202);
    const metrics = async (period: string) =>
      expectOk(await operator.call('GET', `/api/internal/cockpit/metrics/ai?period=${period}`)).remediation;
    const day = await metrics('24h');
    expect(day).toMatchObject({
      requested: 7,
      auto_approved: 5,
      approval_required: 1,
      dry_runs: 1,
      executions: [{ action: 'scale_up', outcome: 'executed', count: 5 }],
      success_rate: 1,
      refusals: { rate_limit: 1 },
      rate_limit_refusals: 1,
    });
    expect(day.mean_execution_time_ms).toBeGreaterThanOrEqual(0);
    t.cloud.clock.advance(25 * HOUR);
    expect(await metrics('24h')).toMatchObject({ requested: 0, executions: [], success_rate: null });
    expect(await metrics('7d')).toMatchObject({ requested: 7, auto_approved: 5 });
  });
});
