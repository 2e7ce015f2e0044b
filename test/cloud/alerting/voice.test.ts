/**
 * The voice call's key menu: the provider posts the pressed key with the call's token; 1
 * acknowledges, 2 escalates now, 3 answers the details. A wrong token or an unknown call is 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { callbackToken } from '../../../cloud/notify/voice-callback.ts';
import { backends } from '../../support/stores.ts';
import {
  type AlertingCloud,
  alertBody,
  alertingCloud,
  createPolicy,
  expectOk,
  ingest,
  personTarget,
} from './alerting-cloud.ts';

const SECRET = 'voice-callback-secret-of-at-least-32-characters';

describe.each(backends)('voice call key menu on %s', (backend) => {
  let context: AlertingCloud;
  beforeAll(async () => {
    context = await alertingCloud(backend, {
      notify: { ...loadCloudConfig({}).notify, callbackSecret: SECRET },
    });
    await createPolicy(context.adminA, {
      name: 'Voice',
      match: { services: ['voice-menu'] },
      mode: 'parallel',
      levels: [
        { targets: [personTarget('Primary')], channels: ['voice'], timeout_minutes: 5 },
        { targets: [personTarget('Secondary')], channels: ['voice'], timeout_minutes: null },
      ],
    });
  });
  afterAll(() => context.cloud.close());

  /** The alert's voice calls, oldest first. */
  async function voiceCallsOf(alertId: string) {
    const items = expectOk(
      await context.adminA.call('GET', `/api/v1/alerting/notifications?alert_id=${alertId}&channel=voice`),
    ) as unknown as Array<{ id: string }>;
    return items.map((item) => item.id).reverse();
  }
  const voiceCallOf = async (alertId: string) => (await voiceCallsOf(alertId))[0]!;
  const press = (id: string, digit: string, token = callbackToken(SECRET, id)) =>
    context.anonymous('POST', `/api/v1/alerting/voice/${id}/keypress`, { digit, token });
  const alertOf = async (id: string) =>
    expectOk(await context.adminA.call('GET', `/api/v1/alerts/${id}`)) as {
      status: string;
      escalation_level: number;
      acknowledged_by: string | null;
    };

  it('refuses a wrong token, an unknown call and a key off the menu', async () => {
    const alert = await ingest(context.adminA, alertBody({ service: 'voice-menu', title: 'Tokens' }));
    const call = await voiceCallOf(alert.id);
    const wrong = await press(call, '1', callbackToken('another-secret-of-at-least-32-characters!', call));
    expect(wrong.statusCode).toBe(404);
    expect(wrong.json().error.code).toBe('VOICE_CALL_NOT_FOUND');
    const unknown = '0190c2a4-0000-7000-8000-0000000000ff';
    expect((await press(unknown, '1')).statusCode).toBe(404);
    const offMenu = await press(call, '4');
    expect(offMenu.statusCode).toBe(400);
    expect(offMenu.json().error.details[0].field).toContain('digit');
    expect((await alertOf(alert.id)).status).toBe('firing');
  });

  it('3 reads the details, 2 escalates now, 1 acknowledges and stops escalation', async () => {
    const alert = await ingest(context.adminA, alertBody({ service: 'voice-menu', title: 'Menu' }));
    const call = await voiceCallOf(alert.id);

    const details = expectOk(await press(call, '3')) as { action: string; say: string };
    expect(details.action).toBe('details');
    expect(details.say).toContain('Menu');

    // 2: level 2 is paged at once, without waiting for the 5-minute time-out.
    expect(expectOk(await press(call, '2'))).toMatchObject({ action: 'escalate', done: true });
    expect((await alertOf(alert.id)).escalation_level).toBe(2);
    expect(expectOk(await press(call, '2'))).toMatchObject({
      action: 'escalate',
      done: false,
      say: 'There is no further level to escalate to.',
    });

    // 1 from the level-2 call acknowledges; pressing again says so, and 2 has nothing to do.
    const calls = await voiceCallsOf(alert.id);
    expect(calls).toHaveLength(2);
    const second = calls[1]!;
    expect(expectOk(await press(second, '1'))).toMatchObject({ action: 'acknowledge', done: true });
    const acknowledged = await alertOf(alert.id);
    expect(acknowledged.status).toBe('acknowledged');
    expect(acknowledged.acknowledged_by).toBe('voice:+15550100');
    expect(expectOk(await press(call, '1'))).toMatchObject({
      done: false,
      say: 'This alert was already acknowledged.',
    });
    expect(expectOk(await press(call, '2'))).toMatchObject({ done: false });
  });

  it('answers a call of a resolved alert without changing it', async () => {
    const alert = await ingest(context.adminA, alertBody({ service: 'voice-menu', title: 'Resolved' }));
    const call = await voiceCallOf(alert.id);
    expectOk(await context.adminA.call('POST', `/api/v1/alerts/${alert.id}/resolve`, {}));
    expect(expectOk(await press(call, '1'))).toMatchObject({ action: 'none', done: false });
    expect((await alertOf(alert.id)).status).toBe('resolved');
  });
});
