import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedTenant } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';
import { type CockpitCloud, cockpitCloud, expectError, expectOk, member } from './cockpit-cloud.ts';

const OPERATOR = '0190c2a4-0000-7000-8000-000000000001';
const SETTINGS = '/api/internal/cockpit/agents/settings';

describe.each(backends)('cockpit agent settings and AI metrics (%s)', (backend) => {
  let t: CockpitCloud;
  beforeAll(async () => {
    t = await cockpitCloud(backend);
  });
  afterAll(async () => t.cloud.close());

  it('answers the spec defaults until changed', async () => {
    expect(expectOk(await t.operatorA.call('GET', SETTINGS))).toEqual({
      max_model_tier: 'T4',
      safety_level: 2,
      rate_limit_per_minute: 1000,
      context_window_tokens: 100_000,
      timeout_seconds: 30,
      kill_switch: false,
      updated_at: null,
      updated_by: null,
    });
  });

  it('changes the fields given and keeps the rest, per tenant', async () => {
    const changed = expectOk(
      await t.operatorA.call('PUT', SETTINGS, { safety_level: 4, max_model_tier: 'T2' }),
    );
    expect(changed).toMatchObject({
      safety_level: 4,
      max_model_tier: 'T2',
      timeout_seconds: 30,
      updated_by: t.operatorA.id,
    });
    const again = expectOk(await t.operatorA.call('PUT', SETTINGS, { kill_switch: true }));
    expect(again).toMatchObject({ safety_level: 4, max_model_tier: 'T2', kill_switch: true });
    expect(expectOk(await t.operatorA.call('GET', SETTINGS))).toMatchObject({
      safety_level: 4,
      kill_switch: true,
    });
    // The other tenant's settings did not move.
    expect(expectOk(await t.operatorB.call('GET', SETTINGS))).toMatchObject({
      safety_level: 2,
      kill_switch: false,
    });
    expect(await t.cloud.services.cockpit.settings(t.b.tenant.id)).toMatchObject({ kill_switch: false });
    expectOk(
      await t.operatorA.call('PUT', SETTINGS, { kill_switch: false, safety_level: 2, max_model_tier: 'T4' }),
    );
  });

  it.each([
    [{ max_model_tier: 'T6' }, 'max_model_tier'],
    [{ safety_level: 0 }, 'safety_level'],
    [{ safety_level: 6 }, 'safety_level'],
    [{ safety_level: 2.5 }, 'safety_level'],
    [{ rate_limit_per_minute: 0 }, 'rate_limit_per_minute'],
    [{ context_window_tokens: 10 }, 'context_window_tokens'],
    [{ timeout_seconds: 0 }, 'timeout_seconds'],
    [{ timeout_seconds: 601 }, 'timeout_seconds'],
    [{ kill_switch: 'yes' }, 'kill_switch'],
    [{ colour: 'blue' }, 'colour'],
  ])('refuses %o naming the field', async (body, field) => {
    const error = expectError(await t.operatorA.call('PUT', SETTINGS, body), 400, 'INVALID_REQUEST');
    expect(JSON.stringify(error)).toContain(field);
  });

  it('refuses an empty change', async () => {
    expectError(await t.operatorA.call('PUT', SETTINGS, {}), 400, 'INVALID_REQUEST');
  });

  it('is for cockpit operators only', async () => {
    expectError(await t.managerA.call('GET', SETTINGS), 403, 'FORBIDDEN');
    expectError(await t.managerA.call('PUT', SETTINGS, { kill_switch: true }), 403, 'FORBIDDEN');
  });

  it('reports approvals by status and kind, and the median time to decision, over the period', async () => {
    // A tenant of its own, so only this test's items are counted.
    const delta = await seedTenant(t.cloud.services, 'delta');
    const fresh = {
      cloud: t.cloud,
      a: delta,
      b: t.b,
      operatorA: await member(t.cloud, delta.tenant.id, 'ops@delta.test', ['cockpit_operator']),
      managerA: await member(t.cloud, delta.tenant.id, 'manager@delta.test', ['manager']),
    };
    {
      const { approvals } = fresh.cloud.services.cockpit;
      const clock = fresh.cloud.clock;
      const submit = (kind: 'refund' | 'overtime') =>
        approvals.submit(fresh.cloud.store.db, fresh.a.tenant.id, {
          kind,
          summary: kind,
          payload: {},
          requested_by: 'agent',
        });
      const decide = (id: string, action: 'approve' | 'reject') =>
        approvals.decide(fresh.a.tenant.id, id, {
          action,
          operator_id: OPERATOR,
          user_id: fresh.operatorA.id,
          ...(action === 'reject' ? { reason: 'no' } : {}),
        });
      // Eight days ago: outside 24h and 7d, inside 30d.
      const old = await submit('refund');
      clock.advance(60_000);
      await decide(old.id, 'approve');
      clock.advance(8 * 24 * 3600_000);
      const one = await submit('refund');
      const two = await submit('overtime');
      await submit('overtime');
      clock.advance(120_000);
      await decide(one.id, 'approve');
      clock.advance(240_000);
      await decide(two.id, 'reject');
      // One on another tenant: never counted here.
      await approvals.submit(fresh.cloud.store.db, fresh.b.tenant.id, {
        kind: 'refund',
        summary: 'b',
        payload: {},
        requested_by: 'agent',
      });

      const day = expectOk(await fresh.operatorA.call('GET', '/api/internal/cockpit/metrics/ai?period=24h'));
      expect(day.approvals).toEqual({
        total: 3,
        by_status: { pending: 1, approved: 1, rejected: 1, escalated: 0 },
        by_kind: { refund: 1, overtime: 2 },
        decided: 2,
        median_time_to_decision_seconds: (120 + 360) / 2,
      });
      const month = expectOk(
        await fresh.operatorA.call('GET', '/api/internal/cockpit/metrics/ai?period=30d'),
      );
      expect(month.approvals).toMatchObject({ total: 4, decided: 3, median_time_to_decision_seconds: 120 });
      expect(month.remediation).toMatchObject({ requested: 0, executions: [], success_rate: null });
      expectError(
        await fresh.operatorA.call('GET', '/api/internal/cockpit/metrics/ai?period=1y'),
        400,
        'INVALID_REQUEST',
      );
      expectError(await fresh.managerA.call('GET', '/api/internal/cockpit/metrics/ai'), 403, 'FORBIDDEN');
    }
  });
});
