import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type Admin,
  type AlertingCloud,
  alertBody,
  alertingCloud,
  createPolicy,
  expectError,
  expectOk,
  freshAdmin,
  ingest,
  personTarget,
  sentOf,
} from './alerting-cloud.ts';

describe.each(backends)('alerting across tenants on %s', (backend) => {
  let context: AlertingCloud;
  beforeAll(async () => {
    context = await alertingCloud(backend);
  });
  afterAll(() => context.cloud.close());
  // Each test on a pair of tenants of its own: B's lists must come back empty, and another test's
  // alerts, policies or windows in B would fill them.
  let adminA: Admin;
  let adminB: Admin;
  beforeEach(async () => {
    adminA = await freshAdmin(context);
    adminB = await freshAdmin(context);
  });

  it('answers 404 to B for A’s alert, lists B none of A’s, and changes nothing', async () => {
    const alert = await ingest(adminA, alertBody());
    const path = `/api/v1/alerts/${alert.id}`;
    const before = expectOk(await adminA.call('GET', path));
    expectError(await adminB.call('GET', path), 404, 'ALERT_NOT_FOUND');
    expectError(await adminB.call('POST', `${path}/acknowledge`, { user_id: 'b' }), 404, 'ALERT_NOT_FOUND');
    expectError(await adminB.call('POST', `${path}/resolve`, {}), 404, 'ALERT_NOT_FOUND');
    for (const status of ['active', 'acknowledged', 'resolved', 'all']) {
      const list = expectOk(await adminB.call('GET', `/api/v1/alerts?status=${status}`)) as {
        alerts: unknown[];
      };
      expect(list.alerts, status).toEqual([]);
    }
    expect(expectOk(await adminA.call('GET', path))).toEqual(before);
  });

  it('dedupes per tenant: the same fingerprint in B is B’s own alert', async () => {
    const body = alertBody();
    const a = await ingest(adminA, body);
    const b = await ingest(adminB, body);
    expect(b.id).not.toBe(a.id);
    expect(b.fingerprint).toBe(a.fingerprint);
    expect(b.occurrences).toBe(1);
  });

  it('never applies A’s policies or windows to B’s alerts, and hides them from B', async () => {
    const policy = await createPolicy(adminA, {
      name: 'A default',
      is_default: true,
      levels: [{ targets: [personTarget('Ana')], timeout_minutes: null }],
    });
    const now = context.cloud.clock.now().getTime();
    const window = expectOk(
      await adminA.call('POST', '/api/v1/alerting/maintenance-windows', {
        name: 'A quiet',
        type: 'full_suppress',
        starts_at: new Date(now - 60_000).toISOString(),
        ends_at: new Date(now + 3_600_000).toISOString(),
        match: { services: ['shared'] },
      }),
      201,
    ) as { id: string };
    const b = await ingest(adminB, alertBody({ service: 'shared' }));
    expect(b).toMatchObject({ suppressed: false, policy_id: null });
    expect(await sentOf(context, b.id)).toEqual(['L1 feed console', 'L1 team team_chat']);
    // B may even make its own default.
    await createPolicy(adminB, {
      name: 'B default',
      is_default: true,
      levels: [{ targets: [personTarget('Bea')], timeout_minutes: null }],
    });

    for (const path of [
      `/api/v1/alerting/policies/${policy.id}`,
      `/api/v1/alerting/maintenance-windows/${window.id}`,
    ]) {
      const code = path.includes('policies') ? 'POLICY_NOT_FOUND' : 'MAINTENANCE_WINDOW_NOT_FOUND';
      expectError(await adminB.call('GET', path), 404, code);
      expectError(await adminB.call('DELETE', path), 404, code);
    }
    expectError(
      await adminB.call('PUT', `/api/v1/alerting/policies/${policy.id}`, {
        name: 'stolen',
        levels: [{ targets: [personTarget('X')], timeout_minutes: null }],
      }),
      404,
      'POLICY_NOT_FOUND',
    );
    const bPolicies = (await adminB.call('GET', '/api/v1/alerting/policies')).json().data as Array<{
      id: string;
    }>;
    expect(bPolicies.map((p) => p.id)).not.toContain(policy.id);
    const bWindows = (await adminB.call('GET', '/api/v1/alerting/maintenance-windows')).json()
      .data as unknown[];
    expect(bWindows).toEqual([]);
    expect(expectOk(await adminA.call('GET', `/api/v1/alerting/policies/${policy.id}`))).toMatchObject({
      name: 'A default',
    });
  });
});
