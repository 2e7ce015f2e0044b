import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import {
  type AlertingCloud,
  alertBody,
  alertingCloud,
  createPolicy,
  ingest,
  notificationsOf,
  personTarget,
  sentOf,
} from './alerting-cloud.ts';

describe.each(backends)('severity routing on %s', (backend) => {
  let context: AlertingCloud;
  beforeAll(async () => {
    context = await alertingCloud(backend);
    // The tenant's default: one person, reachable on every personal channel; no channel list, so
    // the severity table decides.
    await createPolicy(context.adminA, {
      name: 'Default',
      is_default: true,
      levels: [{ targets: [personTarget('Ana')], timeout_minutes: null }],
    });
  });
  afterAll(() => context.cloud.close());

  const routed = async (severity: string) => {
    const alert = await ingest(context.adminA, alertBody({ severity }));
    return sentOf(context, alert.id);
  };

  it('P1: voice, SMS and all channels', async () => {
    expect(await routed('P1')).toEqual([
      'L1 ana@example.com email',
      'L1 ana@example.com push',
      'L1 ana@example.com sms',
      'L1 ana@example.com voice',
      'L1 feed console',
      'L1 team team_chat',
    ]);
  });

  it('P2: SMS and team chat', async () => {
    expect(await routed('P2')).toEqual(['L1 ana@example.com sms', 'L1 team team_chat']);
  });

  it('P3: team chat and email', async () => {
    expect(await routed('P3')).toEqual(['L1 ana@example.com email', 'L1 team team_chat']);
  });

  it('P4: email', async () => {
    expect(await routed('P4')).toEqual(['L1 ana@example.com email']);
  });

  it('P5: log only, and no escalation step', async () => {
    const alert = await ingest(context.adminA, alertBody({ severity: 'P5' }));
    expect(await notificationsOf(context, alert.id)).toEqual([]);
    expect(await context.cloud.services.alerting.steps(context.a.tenant.id, alert.id)).toEqual([]);
  });

  it('keys each request by alert, level, target and channel, and sends a repeat nothing', async () => {
    const body = alertBody({ severity: 'P2' });
    const alert = await ingest(context.adminA, body);
    await ingest(context.adminA, body, 200);
    const rows = await notificationsOf(context, alert.id);
    expect(rows.map((row) => row.dedupe_key).sort()).toEqual([
      `alert:${alert.id}:L1:person:ana@example.com:sms`,
      `alert:${alert.id}:L1:team:team_chat`,
    ]);
  });

  it('skips a personal channel the person cannot be reached on', async () => {
    const policy = await createPolicy(context.adminA, {
      name: 'Email only people',
      match: { services: ['billing'] },
      levels: [{ targets: [personTarget('Bo', { phone: null, push_token: null })], timeout_minutes: null }],
    });
    const alert = await ingest(context.adminA, alertBody({ service: 'billing', severity: 'P1' }));
    expect(alert.policy_id).toBe(policy.id);
    expect(await sentOf(context, alert.id)).toEqual([
      'L1 bo@example.com email',
      'L1 feed console',
      'L1 team team_chat',
    ]);
  });

  it('without any policy, notifies only the rooms of the severity', async () => {
    const lone = await alertingCloud(backend);
    try {
      const alert = await ingest(lone.adminA, alertBody({ severity: 'P1' }));
      expect(await sentOf(lone, alert.id)).toEqual(['L1 feed console', 'L1 team team_chat']);
      expect(alert.policy_id).toBeNull();
    } finally {
      await lone.cloud.close();
    }
  });
});
