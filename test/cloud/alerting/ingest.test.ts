import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type Admin,
  type AlertBody,
  type AlertingCloud,
  alertBody,
  alertingCloud,
  expectError,
  expectOk,
  freshAdmin,
  ingest,
} from './alerting-cloud.ts';

describe.each(backends)('alert ingest and lifecycle on %s', (backend) => {
  let context: AlertingCloud;
  beforeAll(async () => {
    context = await alertingCloud(backend);
  });
  afterAll(() => context.cloud.close());

  const list = async (admin: Admin, query: string) =>
    expectOk(await admin.call('GET', `/api/v1/alerts${query}`)) as {
      alerts: AlertBody[];
      next_cursor: string | null;
    };

  it('opens an alert (201) with the spec’s list fields and the record’s', async () => {
    const body = alertBody();
    const alert = await ingest(context.adminA, body);
    expect(alert).toMatchObject({
      severity: 'P1',
      title: body.title,
      service: 'checkout',
      status: 'firing',
      acknowledged_by: null,
      escalation_level: 1,
      source: 'prometheus',
      description: body.description,
      environment: 'production',
      labels: body.labels,
      runbook_url: body.runbook_url,
      occurrences: 1,
      suppressed: false,
      original_severity: null,
    });
    expect(alert.started_at).toBe(context.cloud.clock.now().toISOString());
    expect(alert.fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('folds a repeat into the open alert (200), whatever the labels’ order, until it is resolved', async () => {
    const body = alertBody({ labels: { b: '2', a: '1' } });
    const first = await ingest(context.adminA, body);
    context.cloud.clock.advance(30_000);
    const again = await ingest(
      context.adminA,
      { ...body, labels: { a: '1', b: '2' }, description: 'worse now' },
      200,
    );
    expect(again).toMatchObject({
      id: first.id,
      occurrences: 2,
      description: 'worse now',
      started_at: first.started_at,
    });
    expect(again.last_seen_at).toBe(context.cloud.clock.now().toISOString());

    // Other labels are another alert.
    const other = await ingest(context.adminA, { ...body, labels: { a: '1', b: '3' } });
    expect(other.id).not.toBe(first.id);

    // Acknowledged still counts as open.
    expectOk(
      await context.adminA.call('POST', `/api/v1/alerts/${first.id}/acknowledge`, {
        user_id: 'u-1',
        note: 'on it',
      }),
    );
    expect(await ingest(context.adminA, body, 200)).toMatchObject({
      id: first.id,
      occurrences: 3,
      status: 'acknowledged',
    });

    expectOk(
      await context.adminA.call('POST', `/api/v1/alerts/${first.id}/resolve`, {
        user_id: 'u-1',
        note: 'fixed',
      }),
    );
    const reopened = await ingest(context.adminA, body);
    expect(reopened.id).not.toBe(first.id);
    expect(reopened).toMatchObject({ occurrences: 1, status: 'firing' });
  });

  it('gives one alert to concurrent ingests of one fingerprint', async () => {
    const body = alertBody();
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => context.adminA.call('POST', '/api/v1/alerts/ingest', body)),
    );
    const statuses = answers.map((answer) => answer.statusCode).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(11);
    const ids = new Set(answers.map((answer) => answer.json().data.id));
    expect(ids.size).toBe(1);
    const alert = expectOk(await context.adminA.call('GET', `/api/v1/alerts/${[...ids][0]}`)) as AlertBody;
    expect(alert.occurrences).toBe(12);
  });

  it('acknowledges with user and note, refuses a second acknowledgement and a resolved alert with 409', async () => {
    const alert = await ingest(context.adminA, alertBody());
    const acked = expectOk(
      await context.adminA.call('POST', `/api/v1/alerts/${alert.id}/acknowledge`, {
        user_id: 'dana',
        note: 'looking',
      }),
    );
    expect(acked).toMatchObject({
      status: 'acknowledged',
      acknowledged_by: 'dana',
      note: 'looking',
      acknowledged_at: context.cloud.clock.now().toISOString(),
    });
    const twice = expectError(
      await context.adminA.call('POST', `/api/v1/alerts/${alert.id}/acknowledge`, { user_id: 'dana' }),
      409,
      'INVALID_ALERT_TRANSITION',
    );
    expect(twice.message).toContain('acknowledged');
    const resolved = expectOk(await context.adminA.call('POST', `/api/v1/alerts/${alert.id}/resolve`, {}));
    expect(resolved).toMatchObject({ status: 'resolved', resolved_by: expect.any(String) });
    const late = expectError(
      await context.adminA.call('POST', `/api/v1/alerts/${alert.id}/acknowledge`, { user_id: 'dana' }),
      409,
      'INVALID_ALERT_TRANSITION',
    );
    expect(late.message).toBe('The alert is resolved; only a firing alert can be acknowledged');
    expectError(
      await context.adminA.call('POST', `/api/v1/alerts/${alert.id}/resolve`, {}),
      409,
      'INVALID_ALERT_TRANSITION',
    );
  });

  it('lists by status, newest first, in keyset pages', async () => {
    // A tenant of its own, with an alert in every status: the lists hold only what this test made.
    const admin = await freshAdmin(context);
    const fresh = await Promise.all(
      [1, 2, 3].map(() => ingest(admin, alertBody({ service: 'paging-test' }))),
    );
    const acknowledgedOne = await ingest(admin, alertBody());
    expectOk(
      await admin.call('POST', `/api/v1/alerts/${acknowledgedOne.id}/acknowledge`, { user_id: 'u-1' }),
    );
    const resolvedOne = await ingest(admin, alertBody());
    expectOk(await admin.call('POST', `/api/v1/alerts/${resolvedOne.id}/resolve`, {}));
    const active = await list(admin, '?status=active&limit=200');
    expect(active.alerts.every((alert) => alert.status === 'firing')).toBe(true);
    for (const alert of fresh) expect(active.alerts.map((a) => a.id)).toContain(alert.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await list(admin, `?status=all&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.alerts.length).toBeLessThanOrEqual(2);
      seen.push(...page.alerts.map((alert) => alert.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...seen].sort().reverse());
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toHaveLength(5);
    const resolved = await list(admin, '?status=resolved');
    expect(resolved.alerts.length).toBeGreaterThan(0);
    expect(resolved.alerts.every((alert) => alert.status === 'resolved')).toBe(true);
    expect(resolved.alerts.map((alert) => alert.id)).toEqual([resolvedOne.id]);
    const acknowledged = await list(admin, '?status=acknowledged');
    expect(acknowledged.alerts.every((alert) => alert.status === 'acknowledged')).toBe(true);
    expect(acknowledged.alerts.map((alert) => alert.id)).toEqual([acknowledgedOne.id]);
    // The spec's default view: no status means active.
    expect((await list(admin, '')).alerts.every((alert) => alert.status === 'firing')).toBe(true);
  });

  it('answers 400 naming the field, 404 for unknown ids, 401 and 403', async () => {
    const missing = expectError(
      await context.adminA.call('POST', '/api/v1/alerts/ingest', { ...alertBody(), severity: undefined }),
      400,
      'INVALID_REQUEST',
    );
    expect(JSON.stringify(missing.details)).toContain('severity');
    const wrong = expectError(
      await context.adminA.call('POST', '/api/v1/alerts/ingest', alertBody({ severity: 'P6' })),
      400,
      'INVALID_REQUEST',
    );
    expect(JSON.stringify(wrong.details)).toContain('severity');
    const unknown = expectError(
      await context.adminA.call('POST', '/api/v1/alerts/ingest', alertBody({ colour: 'red' })),
      400,
      'INVALID_REQUEST',
    );
    expect(JSON.stringify(unknown.details)).toContain('colour');
    const labels = expectError(
      await context.adminA.call(
        'POST',
        '/api/v1/alerts/ingest',
        alertBody({ labels: { a: { nested: true } } }),
      ),
      400,
      'INVALID_REQUEST',
    );
    expect(JSON.stringify(labels.details)).toContain('labels');
    expectError(await context.adminA.call('GET', '/api/v1/alerts?status=open'), 400, 'INVALID_REQUEST');
    const noUser = expectError(
      await context.adminA.call(
        'POST',
        `/api/v1/alerts/${(await ingest(context.adminA, alertBody())).id}/acknowledge`,
        {},
      ),
      400,
      'INVALID_REQUEST',
    );
    expect(JSON.stringify(noUser.details)).toContain('user_id');
    const unknownId = '01900000-0000-7000-8000-000000000001';
    expectError(await context.adminA.call('GET', `/api/v1/alerts/${unknownId}`), 404, 'ALERT_NOT_FOUND');
    expectError(
      await context.adminA.call('POST', `/api/v1/alerts/${unknownId}/acknowledge`, { user_id: 'x' }),
      404,
      'ALERT_NOT_FOUND',
    );
    expectError(
      await context.adminA.call('POST', `/api/v1/alerts/${unknownId}/resolve`, {}),
      404,
      'ALERT_NOT_FOUND',
    );
    expect((await context.anonymous('GET', '/api/v1/alerts')).statusCode).toBe(401);
    expect((await context.staffA.call('POST', '/api/v1/alerts/ingest', alertBody())).statusCode).toBe(403);
    expect((await context.managerA.call('POST', '/api/v1/alerts/ingest', alertBody())).statusCode).toBe(201);
  });

  it('answers get and between for the other modules, scoped to the tenant', async () => {
    context.cloud.clock.advance(1000);
    const from = context.cloud.clock.now().toISOString();
    const alert = await ingest(context.adminA, alertBody());
    const { alerting } = context.cloud.services;
    expect(await alerting.get(context.a.tenant.id, alert.id)).toMatchObject({ id: alert.id });
    expect(await alerting.get(context.b.tenant.id, alert.id)).toBeUndefined();
    const to = context.cloud.clock.now().toISOString();
    expect((await alerting.between(context.a.tenant.id, from, to)).map((a) => a.id)).toEqual([alert.id]);
    expect(await alerting.between(context.b.tenant.id, from, to)).toEqual([]);
  });
});
