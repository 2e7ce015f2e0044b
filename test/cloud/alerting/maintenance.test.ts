import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type AlertingCloud,
  alertBody,
  alertingCloud,
  createPolicy,
  expectError,
  expectOk,
  ingest,
  minutes,
  personTarget,
  sentOf,
} from './alerting-cloud.ts';
import { runOutEscalations } from './escalations.ts';

describe.each(backends)('maintenance windows on %s', (backend) => {
  let context: AlertingCloud;
  beforeAll(async () => {
    context = await alertingCloud(backend);
    await createPolicy(context.adminA, {
      name: 'Default',
      is_default: true,
      levels: [
        { targets: [personTarget('Ana')], timeout_minutes: 5 },
        { targets: [personTarget('Boss')], timeout_minutes: null },
      ],
    });
  });
  afterAll(() => context.cloud.close());
  // Every alert the default pages escalates after 5 minutes, and runDue takes every due step: the
  // full-suppress test counts none, so nothing an earlier test left pending may fall due in it.
  beforeEach(async () => {
    await runOutEscalations(context);
    await context.adminA.refresh();
  });

  const window = async (type: string, match: Record<string, unknown>, fromMinutes = -1, toMinutes = 60) => {
    const now = context.cloud.clock.now().getTime();
    return expectOk(
      await context.adminA.call('POST', '/api/v1/alerting/maintenance-windows', {
        name: `${type} window`,
        type,
        starts_at: new Date(now + minutes(fromMinutes)).toISOString(),
        ends_at: new Date(now + minutes(toMinutes)).toISOString(),
        match,
      }),
      201,
    ) as { id: string };
  };
  const escalate = async () => {
    context.cloud.clock.advance(minutes(5));
    await context.adminA.refresh();
    return context.cloud.services.alerting.runDue();
  };

  it('full suppress: recorded as suppressed, nobody notified, no escalation, no listener call', async () => {
    const heard: string[] = [];
    context.cloud.services.alerting.onFired((event) => {
      heard.push(event.alert.id);
    });
    const held = await window('full_suppress', { services: ['fryer'] });
    const alert = await ingest(context.adminA, alertBody({ service: 'fryer' }));
    expect(alert).toMatchObject({
      suppressed: true,
      maintenance_window_id: held.id,
      maintenance_type: 'full_suppress',
    });
    expect(await sentOf(context, alert.id)).toEqual([]);
    expect(await escalate()).toBe(0);
    await context.cloud.services.alerting.settled();
    expect(heard).not.toContain(alert.id);
    // Other services are untouched.
    const other = await ingest(context.adminA, alertBody({ service: 'grill' }));
    expect(other.suppressed).toBe(false);
    await context.cloud.services.alerting.settled();
    expect(heard).toContain(other.id);
  });

  it('after a full-suppress window ends, the next ingest of a suppressed alert opens a live one', async () => {
    const body = alertBody({ service: 'oven' });
    await window('full_suppress', { services: ['oven'] }, -1, 2);
    const held = await ingest(context.adminA, body);
    expect(await ingest(context.adminA, body, 200)).toMatchObject({ id: held.id, occurrences: 2 });
    context.cloud.clock.advance(minutes(3));
    await context.adminA.refresh();
    const live = await ingest(context.adminA, body);
    expect(live.id).not.toBe(held.id);
    expect(live.suppressed).toBe(false);
    expect(await sentOf(context, live.id)).toContain('L1 ana@example.com voice');
    const old = expectOk(await context.adminA.call('GET', `/api/v1/alerts/${held.id}`));
    expect(old).toMatchObject({ status: 'resolved', resolved_by: 'maintenance' });
  });

  it('reduce severity: P1 to P3 and P2 to P4, the original kept, routed and escalated as reduced', async () => {
    await window('reduce_severity', { labels: { site: 'lab' } });
    const p1 = await ingest(context.adminA, alertBody({ labels: { site: 'lab' }, severity: 'P1' }));
    expect(p1).toMatchObject({
      severity: 'P3',
      original_severity: 'P1',
      maintenance_type: 'reduce_severity',
    });
    expect(await sentOf(context, p1.id)).toEqual(['L1 ana@example.com email', 'L1 team team_chat']);
    const p2 = await ingest(context.adminA, alertBody({ labels: { site: 'lab' }, severity: 'P2' }));
    expect(p2).toMatchObject({ severity: 'P4', original_severity: 'P2' });
    expect(await sentOf(context, p2.id)).toEqual(['L1 ana@example.com email']);
    const p4 = await ingest(context.adminA, alertBody({ labels: { site: 'lab' }, severity: 'P4' }));
    expect(p4).toMatchObject({ severity: 'P4', original_severity: null });
    await escalate();
    expect(await sentOf(context, p1.id)).toContain('L2 boss@example.com email');
  });

  it('notify only: recorded and notified without paging channels, and no escalation', async () => {
    await window('notify_only', { location_ids: ['loc-7'] });
    const alert = await ingest(
      context.adminA,
      alertBody({ labels: { location_id: 'loc-7' }, severity: 'P1' }),
    );
    expect(alert).toMatchObject({ suppressed: false, maintenance_type: 'notify_only', severity: 'P1' });
    expect(await sentOf(context, alert.id)).toEqual([
      'L1 ana@example.com email',
      'L1 feed console',
      'L1 team team_chat',
    ]);
    await escalate();
    expect((await sentOf(context, alert.id)).some((line) => line.startsWith('L2'))).toBe(false);
    // Elsewhere the same alert pages.
    const elsewhere = await ingest(
      context.adminA,
      alertBody({ labels: { location_id: 'loc-8' }, severity: 'P1' }),
    );
    expect(await sentOf(context, elsewhere.id)).toContain('L1 ana@example.com voice');
  });

  it('applies only while open: not before starts_at, not from ends_at', async () => {
    await window('full_suppress', { services: ['later'] }, 10, 20);
    expect((await ingest(context.adminA, alertBody({ service: 'later' }))).suppressed).toBe(false);
    context.cloud.clock.advance(minutes(10));
    await context.adminA.refresh();
    expect((await ingest(context.adminA, alertBody({ service: 'later' }))).suppressed).toBe(true);
    context.cloud.clock.advance(minutes(10));
    await context.adminA.refresh();
    expect((await ingest(context.adminA, alertBody({ service: 'later' }))).suppressed).toBe(false);
  });

  it('manages windows: list (active_at), read, replace, delete, 400 for a backwards range', async () => {
    const created = await window('notify_only', { services: ['crud'] });
    const path = `/api/v1/alerting/maintenance-windows/${created.id}`;
    expect(expectOk(await context.adminA.call('GET', path))).toMatchObject({
      id: created.id,
      type: 'notify_only',
    });
    const now = context.cloud.clock.now().toISOString();
    const listed = expectOk(
      await context.adminA.call(
        'GET',
        `/api/v1/alerting/maintenance-windows?active_at=${encodeURIComponent(now)}&limit=200`,
      ),
    ) as Array<{ id: string }>;
    expect(listed.map((w) => w.id)).toContain(created.id);
    const replaced = expectOk(
      await context.adminA.call('PUT', path, {
        name: 'renamed',
        type: 'reduce_severity',
        starts_at: now,
        ends_at: new Date(Date.parse(now) + minutes(5)).toISOString(),
      }),
    );
    expect(replaced).toMatchObject({ name: 'renamed', type: 'reduce_severity', match: { services: [] } });
    const backwards = expectError(
      await context.adminA.call('POST', '/api/v1/alerting/maintenance-windows', {
        name: 'x',
        type: 'full_suppress',
        starts_at: now,
        ends_at: now,
      }),
      400,
      'INVALID_REQUEST',
    );
    expect(backwards.details).toEqual([{ field: 'body.ends_at', message: 'must be after starts_at' }]);
    const badType = expectError(
      await context.adminA.call('POST', '/api/v1/alerting/maintenance-windows', {
        name: 'x',
        type: 'silence',
        starts_at: now,
        ends_at: now,
      }),
      400,
      'INVALID_REQUEST',
    );
    expect(JSON.stringify(badType.details)).toContain('type');
    expect((await context.adminA.call('DELETE', path)).statusCode).toBe(204);
    expectError(await context.adminA.call('GET', path), 404, 'MAINTENANCE_WINDOW_NOT_FOUND');
    expectError(await context.adminA.call('DELETE', path), 404, 'MAINTENANCE_WINDOW_NOT_FOUND');
  });
});
