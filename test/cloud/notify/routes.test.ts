import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backends } from '../../support/stores.ts';
import { expectOk, type NotifyCloud, notificationRequest, notifyCloud } from './support.ts';

describe.each(backends)('notification routes on %s', (backend) => {
  let context: NotifyCloud;
  let ids: string[];

  beforeAll(async () => {
    context = await notifyCloud(backend);
    const db = context.cloud.store.db;
    ids = await context.notify.enqueue(db, context.a, [
      notificationRequest({ channel: 'console', recipient: null, alert_id: 'alert-r1' }),
      notificationRequest({ channel: 'email', alert_id: 'alert-r1' }),
      notificationRequest({ channel: 'console', recipient: null, alert_id: 'alert-r2' }),
    ]);
    await context.notify.enqueue(db, context.b, [
      notificationRequest({ channel: 'console', recipient: null, alert_id: 'alert-r1' }),
    ]);
    // Console is delivered; e-mail has no SMTP server here, so it fails with the reason.
    await context.notify.drain();
  });
  afterAll(() => context.cloud.close());

  const base = '/api/v1/alerting';

  it('lists the tenant’s notifications with every attempt, newest first, by keyset pages', async () => {
    const first = expectOk(await context.managerA('GET', `${base}/notifications?limit=2`));
    expect(first.data.map((item: { id: string }) => item.id)).toEqual([ids[2], ids[1]]);
    expect(first.meta.pagination.next_cursor).toBe(ids[1]);
    const second = expectOk(await context.managerA('GET', `${base}/notifications?limit=2&cursor=${ids[1]}`));
    expect(second.data.map((item: { id: string }) => item.id)).toEqual([ids[0]]);
    expect(second.meta.pagination.next_cursor).toBeNull();
    const email = first.data[1];
    expect(email).toMatchObject({
      channel: 'email',
      status: 'failed',
      attempt_count: 1,
      recipient: { name: 'Dana Ops', email: 'dana@ops.test' },
      last_error: 'the email channel is not configured (NOTIFY_SMTP_URL)',
    });
    expect(email.attempts).toEqual([
      expect.objectContaining({ attempt: 1, channel: 'email', outcome: 'skipped', provider_status: null }),
    ]);
    expect(email).not.toHaveProperty('tenant_id');
    expect(email).not.toHaveProperty('lease_owner');
  });

  it('filters by alert, status and channel', async () => {
    const listed = async (query: string) =>
      expectOk(await context.managerA('GET', `${base}/notifications?${query}`)).data.map(
        (item: { id: string }) => item.id,
      );
    expect(await listed('alert_id=alert-r1')).toEqual([ids[1], ids[0]]);
    expect(await listed('status=delivered')).toEqual([ids[2], ids[0]]);
    expect(await listed('channel=email')).toEqual([ids[1]]);
    expect(await listed('alert_id=alert-r1&channel=console&status=delivered')).toEqual([ids[0]]);
    expect(await listed('status=pending')).toEqual([]);
  });

  it('answers 400 naming the field for a bad filter', async () => {
    for (const [query, field] of [
      ['status=sent', 'status'],
      ['channel=fax', 'channel'],
      ['limit=0', 'limit'],
      ['cursor=nope', 'cursor'],
      ['colour=red', 'colour'],
    ] as const) {
      const response = await context.managerA('GET', `${base}/notifications?${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(JSON.stringify(response.json().error.details), query).toContain(field);
    }
  });

  it('shows one notification, and 404 for another tenant’s or an unknown id', async () => {
    const one = expectOk(await context.managerA('GET', `${base}/notifications/${ids[0]}`));
    expect(one.data).toMatchObject({ id: ids[0], status: 'delivered', alert_id: 'alert-r1' });
    expect(one.data.attempts.map((attempt: { outcome: string }) => attempt.outcome)).toEqual(['delivered']);
    const other = await context.adminB('GET', `${base}/notifications/${ids[0]}`);
    expect(other.statusCode).toBe(404);
    expect(other.json().error.code).toBe('NOTIFICATION_NOT_FOUND');
    const unknown = await context.managerA(
      'GET',
      `${base}/notifications/01a21941-7ab0-760f-9567-000000000000`,
    );
    expect(unknown.statusCode).toBe(404);
    const listB = expectOk(await context.adminB('GET', `${base}/notifications?alert_id=alert-r1`));
    expect(listB.data).toHaveLength(1);
    expect(listB.data[0].id).not.toBe(ids[0]);
  });

  it('keeps staff out', async () => {
    expect((await context.staffA('GET', `${base}/notifications`)).statusCode).toBe(403);
    expect((await context.staffA('GET', `${base}/notification-settings`)).statusCode).toBe(403);
  });

  it('reads and replaces the tenant’s settings, each tenant its own', async () => {
    const defaults = expectOk(await context.managerA('GET', `${base}/notification-settings`)).data;
    expect(defaults).toEqual({
      team_chat_webhook_url: null,
      email_from: null,
      enabled_channels: ['voice', 'sms', 'email', 'team_chat', 'push', 'console'],
      updated_at: null,
    });
    const saved = expectOk(
      await context.managerA('PUT', `${base}/notification-settings`, {
        team_chat_webhook_url: 'https://hooks.example.com/services/T0/B0/xyz',
        email_from: 'Alpha Ops <ops@alpha.test>',
        enabled_channels: ['email', 'team_chat'],
      }),
    ).data;
    expect(saved).toMatchObject({
      team_chat_webhook_url: 'https://hooks.example.com/services/T0/B0/xyz',
      email_from: 'Alpha Ops <ops@alpha.test>',
      enabled_channels: ['email', 'team_chat'],
    });
    expect(expectOk(await context.managerA('GET', `${base}/notification-settings`)).data).toEqual(saved);
    expect(expectOk(await context.adminB('GET', `${base}/notification-settings`)).data).toEqual(defaults);
  });

  it('refuses bad settings with 400 naming the field', async () => {
    for (const [body, field] of [
      [{ enabled_channels: ['fax'] }, 'enabled_channels'],
      [{ enabled_channels: ['sms', 'sms'] }, 'enabled_channels'],
      [{ email_from: 'not an address' }, 'email_from'],
      [{ team_chat_webhook_url: 'ftp://hooks.example.com/x' }, 'team_chat_webhook_url'],
      [{ retries: 9 }, 'retries'],
    ] as const) {
      const response = await context.managerA('PUT', `${base}/notification-settings`, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(response.json().error.details), JSON.stringify(body)).toContain(field);
    }
  });
});

describe('team chat URLs without NOTIFY_ALLOW_PRIVATE_URLS', () => {
  let context: NotifyCloud;
  beforeAll(async () => {
    context = await notifyCloud('sqlite', { allowPrivateUrls: false });
  });
  afterAll(() => context.cloud.close());

  it('refuses loopback, private and local-name targets', async () => {
    for (const url of ['http://127.0.0.1:9000/hook', 'http://10.0.0.8/hook', 'http://chat.internal/hook']) {
      const response = await context.managerA('PUT', '/api/v1/alerting/notification-settings', {
        team_chat_webhook_url: url,
      });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error.details[0].field).toBe('body.team_chat_webhook_url');
    }
  });
});
