import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AlertFired } from '../../../cloud/alerting/index.ts';
import type { DomainEventRow } from '../../../cloud/events/index.ts';
import { newId } from '../../../shared/ids.ts';
import { backends } from '../../support/stores.ts';
import {
  type AlertBody,
  type AlertingCloud,
  alertBody,
  alertingCloud,
  createPolicy,
  expectOk,
  ingest,
  minutes,
  personTarget,
  sentOf,
} from './alerting-cloud.ts';

describe.each(backends)('edge alerts and on-call targets on %s', (backend) => {
  let context: AlertingCloud;
  const heard: AlertFired[] = [];
  beforeAll(async () => {
    context = await alertingCloud(backend);
    context.cloud.services.alerting.onFired((event) => {
      heard.push(event);
    });
    await createPolicy(context.adminA, {
      name: 'Stores',
      is_default: true,
      levels: [
        { targets: [personTarget('Ana')], timeout_minutes: 5 },
        { targets: [personTarget('Boss')], timeout_minutes: null },
      ],
    });
  });
  afterAll(() => context.cloud.close());

  const event = (type: string, data: Record<string, unknown>): DomainEventRow => {
    const at = context.cloud.clock.now().toISOString();
    return {
      id: newId(),
      tenant_id: context.a.tenant.id,
      location_id: context.a.location.id,
      type,
      occurred_at: at,
      received_at: at,
      data: JSON.stringify(data),
    };
  };
  /** Appends as a sync push does: inside its own transaction. */
  const append = (events: DomainEventRow[]) =>
    context.cloud.store.db.transaction().execute((trx) => context.cloud.services.events.append(trx, events));
  const alertsOf = async (status = 'all') =>
    (
      expectOk(await context.adminA.call('GET', `/api/v1/alerts?status=${status}&limit=200`)) as {
        alerts: AlertBody[];
      }
    ).alerts;

  it('ingests a store’s temperature alert as edge_metrics, with device, location and type labels', async () => {
    const deviceId = newId();
    await append([
      event('device.temperature_alert', {
        type: 'temperature_alert',
        device_id: deviceId,
        severity: 'high',
        description: 'Walk-in fridge reads 9 °C',
        device_type: 'sensor',
      }),
    ]);
    const [alert] = (await alertsOf()).filter(
      (a) => (a.labels as Record<string, string>).device_id === deviceId,
    );
    expect(alert).toMatchObject({
      source: 'edge_metrics',
      severity: 'P2',
      service: 'devices',
      title: `Temperature alert: sensor ${deviceId}`,
      labels: {
        type: 'temperature_alert',
        device_id: deviceId,
        location_id: context.a.location.id,
        device_type: 'sensor',
      },
    });
    // Level 1 runs as a step due now (the push's transaction cannot ask who is on call).
    expect(await sentOf(context, alert!.id)).toEqual([]);
    expect(await context.cloud.services.alerting.runDue()).toBe(1);
    expect(await sentOf(context, alert!.id)).toEqual(['L1 ana@example.com sms', 'L1 team team_chat']);
    await context.cloud.services.alerting.settled();
    expect(heard.find((fired) => fired.alert.id === alert!.id)).toMatchObject({
      tenantId: context.a.tenant.id,
      responders: [expect.objectContaining({ email: 'ana@example.com' })],
    });
    // The same alert pushed again is a repeat; escalation goes on as for any alert.
    await append([
      event('device.temperature_alert', {
        type: 'temperature_alert',
        device_id: deviceId,
        device_type: 'sensor',
      }),
    ]);
    const again = (await alertsOf()).filter(
      (a) => (a.labels as Record<string, string>).device_id === deviceId,
    );
    expect(again).toHaveLength(1);
    expect(again[0]!.occurrences).toBe(2);
    context.cloud.clock.advance(minutes(5));
    await context.adminA.refresh();
    await context.cloud.services.alerting.runDue();
    expect(await sentOf(context, alert!.id)).toContain('L2 boss@example.com sms');
  });

  it('raises and clears a camera alert', async () => {
    const cameraId = newId();
    const data = {
      camera_id: cameraId,
      model_id: 'm1',
      metric: 'camera_fps',
      severity: 'critical',
      value: 3,
      threshold: 5,
    };
    await append([event('vision.alert', { ...data, state: 'raised' })]);
    const [alert] = (await alertsOf('active')).filter(
      (a) => (a.labels as Record<string, string>).camera_id === cameraId,
    );
    expect(alert).toMatchObject({
      source: 'edge_metrics',
      severity: 'P2',
      service: 'vision',
      labels: { type: 'vision_camera_fps', device_id: cameraId, location_id: context.a.location.id },
    });
    await append([event('vision.alert', { ...data, value: 12, state: 'cleared' })]);
    expect(expectOk(await context.adminA.call('GET', `/api/v1/alerts/${alert!.id}`))).toMatchObject({
      status: 'resolved',
      resolved_by: 'edge_metrics',
    });
    // Its pending level-1 step finds it resolved.
    await context.cloud.services.alerting.runDue();
    expect(await sentOf(context, alert!.id)).toEqual([]);
  });

  it('skips an unreadable edge event without refusing the push', async () => {
    const ok = event('device.temperature_alert', { type: 'temperature_alert', device_id: newId() });
    await append([{ ...event('device.temperature_alert', {}), data: 'not json' }, ok]);
    const deviceId = JSON.parse(ok.data).device_id;
    expect((await alertsOf()).some((a) => (a.labels as Record<string, string>).device_id === deviceId)).toBe(
      true,
    );
  });

  it('pages whoever is on call: the team’s primary at level 1, its secondary at level 2', async () => {
    const start = context.cloud.clock.now();
    await context.cloud.services.oncall.createSchedule(context.a.tenant.id, {
      team: 'platform',
      type: 'daily',
      time_zone: 'UTC',
      handoff_time: '00:00',
      start_date: new Date(start.getTime() - 3 * 86_400_000).toISOString().slice(0, 10),
      participants: ['Uma', 'Vic', 'Wes'].map((name) => ({
        name,
        email: `${name.toLowerCase()}@example.com`,
        phone: '+15550111',
      })),
    });
    const now = await context.cloud.services.oncall.current(context.a.tenant.id, 'platform', start);
    expect(now?.current.primary).toBeTruthy();
    await createPolicy(context.adminA, {
      name: 'Platform',
      match: { services: ['platform'] },
      levels: [
        {
          targets: [{ type: 'oncall', team: 'platform', role: 'primary' }],
          channels: ['sms'],
          timeout_minutes: 5,
        },
        {
          targets: [{ type: 'oncall', team: 'platform', role: 'secondary' }],
          channels: ['sms'],
          timeout_minutes: null,
        },
      ],
    });
    const alert = await ingest(context.adminA, alertBody({ service: 'platform' }));
    expect(await sentOf(context, alert.id)).toEqual([`L1 ${now!.current.primary!.email} sms`]);
    context.cloud.clock.advance(minutes(5));
    await context.adminA.refresh();
    await context.cloud.services.alerting.runDue();
    const later = await context.cloud.services.oncall.current(
      context.a.tenant.id,
      'platform',
      context.cloud.clock.now(),
    );
    expect(await sentOf(context, alert.id)).toContain(`L2 ${later!.current.secondary!.email} sms`);
  });
});
