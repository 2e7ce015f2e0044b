import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ConsoleFrame } from '../../../cloud/cockpit/feed.ts';
import { callbackToken } from '../../../cloud/notify/voice-callback.ts';
import { backends } from '../../support/stores.ts';
import {
  createProviderSink,
  createSmtpSink,
  type NotifyRig,
  notificationRequest,
  notifyRig,
  person,
  type ReceivedRequest,
} from './support.ts';

type Answer = { status: number; body?: unknown; hang?: boolean };

describe.each(backends)('notification delivery on %s', (backend) => {
  let context: NotifyRig;
  let smtp: Awaited<ReturnType<typeof createSmtpSink>>;
  let provider: Awaited<ReturnType<typeof createProviderSink>>;
  let answer: (request: ReceivedRequest) => Answer;
  let smtpReply: number | undefined;

  beforeAll(async () => {
    smtp = await createSmtpSink({ reject: () => smtpReply });
    provider = await createProviderSink((request) => answer(request));
    context = await notifyRig(backend, {
      smtpUrl: smtp.url,
      emailFrom: 'Alerts <alerts@ops.test>',
      smsUrl: provider.url('/sms'),
      voiceUrl: provider.url('/voice'),
      pushUrl: provider.url('/push'),
      providerAccount: 'AC123',
      providerToken: 'secret-token',
      smsFrom: '+15555550000',
      voiceCallbackBase: 'https://cloud.example.test',
      callbackSecret: 'voice-callback-secret-of-at-least-32-characters',
      retryBaseMs: 1000,
      sendTimeoutMs: 400,
      leaseMs: 2000,
    });
  });
  afterAll(async () => {
    await context.close();
    await smtp.close();
    await provider.close();
  });
  beforeEach(() => {
    answer = () => ({ status: 200 });
    smtpReply = undefined;
    provider.requests.length = 0;
    smtp.messages.length = 0;
  });

  const enqueue = (tenantId: string, ...requests: ReturnType<typeof notificationRequest>[]) =>
    context.notify.enqueue(context.store.db, tenantId, requests);

  it('sends an e-mail to a real SMTP server with the severity label, service and title', async () => {
    const [id] = await enqueue(context.a, notificationRequest({ channel: 'email' }));
    await context.notify.drain();

    expect(smtp.messages).toHaveLength(1);
    const mail = smtp.messages[0]!;
    expect(mail.to).toEqual(['dana@ops.test']);
    expect(mail.from).toBe('alerts@ops.test');
    expect(mail.headers.subject).toBe('[P1 critical] checkout: Payments failing at every register');
    expect(mail.headers['message-id']).toBe(`<${id}@ops.test>`);
    expect(mail.body).toContain('[P1 critical]');
    expect(mail.body).toContain('Service: checkout');
    expect(mail.body).toContain('Title: Payments failing at every register');

    const sent = await context.notify.get(context.a, id!);
    expect(sent).toMatchObject({ status: 'delivered', attempt_count: 1, last_error: null });
    expect(sent.attempts).toEqual([
      expect.objectContaining({ attempt: 1, channel: 'email', outcome: 'delivered', provider_status: 250 }),
    ]);
    expect(sent.attempts[0]!.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('fails a mailbox the SMTP server refuses (5xx) at once, and retries a 4xx', async () => {
    smtpReply = 550;
    const [refused] = await enqueue(context.a, notificationRequest({ channel: 'email' }));
    await context.notify.drain();
    const failed = await context.notify.get(context.a, refused!);
    expect(failed).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(failed.attempts[0]).toMatchObject({ outcome: 'failed', provider_status: 550 });

    smtpReply = 451;
    const [later] = await enqueue(context.a, notificationRequest({ channel: 'email' }));
    await context.notify.drain();
    expect((await context.notify.get(context.a, later!)).attempts[0]).toMatchObject({
      outcome: 'retry',
      provider_status: 451,
    });
    smtpReply = undefined;
    context.clock.advance(1000);
    await context.notify.drain();
    const sent = await context.notify.get(context.a, later!);
    expect(sent.status).toBe('delivered');
    expect(smtp.messages.map((mail) => mail.headers['message-id'])).toEqual([`<${later}@ops.test>`]);
  });

  it('uses the tenant’s sender override', async () => {
    await context.notify.saveSettings(context.b, { email_from: 'Bravo Ops <ops@bravo.test>' });
    await enqueue(context.b, notificationRequest({ channel: 'email' }));
    await context.notify.drain();
    expect(smtp.messages.map((mail) => mail.from)).toEqual(['ops@bravo.test']);
    await context.notify.saveSettings(context.b, {});
  });

  it('sends SMS, voice and push as JSON POSTs with basic auth and the notification as idempotency key', async () => {
    const ids = await enqueue(
      context.a,
      notificationRequest({ channel: 'sms' }),
      notificationRequest({ channel: 'voice' }),
      notificationRequest({ channel: 'push', severity: 'P2' }),
    );
    await context.notify.drain();
    const byPath = Object.fromEntries(provider.requests.map((request) => [request.path, request]));
    const auth = `Basic ${Buffer.from('AC123:secret-token').toString('base64')}`;
    for (const request of provider.requests) {
      expect(request.headers.authorization).toBe(auth);
      expect(request.headers['content-type']).toBe('application/json');
    }
    expect(byPath['/sms']!.body).toMatchObject({
      to: '+15555550100',
      from: '+15555550000',
      reference: ids[0],
    });
    expect(byPath['/sms']!.headers['idempotency-key']).toBe(ids[0]);
    expect(String(byPath['/sms']!.body.text)).toMatch(/^\[P1 critical\] checkout: Payments failing/);
    const voice = byPath['/voice']!.body;
    expect(voice.prompt).toBe(
      '[P1 critical] checkout: Payments failing at every register. Press 1 to acknowledge. Press 2 to escalate. Press 3 to hear the details.',
    );
    expect(voice.gather).toEqual({ digits: { '1': 'acknowledge', '2': 'escalate', '3': 'details' } });
    // Where the provider posts the key pressed, with the call's own token.
    expect(voice.callback).toEqual({
      url: `https://cloud.example.test/api/v1/alerting/voice/${ids[1]}/keypress`,
      token: callbackToken('voice-callback-secret-of-at-least-32-characters', ids[1]!),
    });
    expect(byPath['/push']!.body).toMatchObject({
      token: 'push-token-dana',
      title: '[P2 high] checkout: Payments failing at every register',
      data: { notification_id: ids[2], alert_id: 'alert-1', severity: 'P2' },
    });
    for (const id of ids) {
      const sent = await context.notify.get(context.a, id);
      expect(sent.status).toBe('delivered');
      expect(sent.provider_ref).toMatch(/^msg-\d+$/);
    }
  });

  it('retries a 5xx with exponential back-off, 5 attempts, then marks it failed', async () => {
    answer = () => ({ status: 503, body: { error: 'busy' } });
    const [id] = await enqueue(context.a, notificationRequest({ channel: 'sms' }));
    const clock = context.clock;
    const gaps: number[] = [];
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await context.notify.drain();
      const now = await context.notify.get(context.a, id!);
      expect(now.attempt_count).toBe(attempt);
      if (attempt < 5) {
        expect(now.status).toBe('pending');
        const wait = Date.parse(now.next_attempt_at!) - clock.now().getTime();
        gaps.push(wait);
        // Not due a moment early: nothing is sent.
        clock.advance(wait - 1);
        await context.notify.drain();
        expect((await context.notify.get(context.a, id!)).attempt_count).toBe(attempt);
        clock.advance(1);
      }
    }
    expect(gaps).toEqual([1000, 2000, 4000, 8000]);
    const failed = await context.notify.get(context.a, id!);
    expect(failed).toMatchObject({ status: 'failed', attempt_count: 5, next_attempt_at: null });
    expect(failed.last_error).toBe('the provider answered 503');
    expect(failed.attempts.map((attempt) => attempt.outcome)).toEqual([
      'retry',
      'retry',
      'retry',
      'retry',
      'failed',
    ]);
    expect(failed.attempts.every((attempt) => attempt.provider_status === 503)).toBe(true);
    expect(provider.requests).toHaveLength(5);
    // Nothing more is ever sent for it.
    clock.advance(3_600_000);
    await context.notify.drain();
    expect(provider.requests).toHaveLength(5);
  });

  it('fails a 4xx at once, without retrying', async () => {
    answer = () => ({ status: 400, body: { error: 'invalid number' } });
    const [id] = await enqueue(context.a, notificationRequest({ channel: 'voice' }));
    await context.notify.drain();
    context.clock.advance(3_600_000);
    await context.notify.drain();
    const failed = await context.notify.get(context.a, id!);
    expect(failed).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(failed.attempts[0]).toMatchObject({
      outcome: 'failed',
      provider_status: 400,
      provider_answer: '{"error":"invalid number"}',
    });
  });

  it('retries a provider that does not answer in time, then delivers', async () => {
    let calls = 0;
    answer = () => {
      calls += 1;
      return calls === 1 ? { status: 200, hang: true } : { status: 201 };
    };
    const [id] = await enqueue(context.a, notificationRequest({ channel: 'sms' }));
    await context.notify.drain();
    const waiting = await context.notify.get(context.a, id!);
    expect(waiting.status).toBe('pending');
    expect(waiting.attempts[0]).toMatchObject({ outcome: 'retry' });
    expect(waiting.attempts[0]!.error).toMatch(/in time|400 ms/);
    context.clock.advance(1000);
    await context.notify.drain();
    const sent = await context.notify.get(context.a, id!);
    expect(sent.status).toBe('delivered');
    expect(sent.attempts.map((attempt) => attempt.outcome)).toEqual(['retry', 'delivered']);
  });

  it('ignores a dedupe key the tenant already used, but not another tenant’s', async () => {
    const first = notificationRequest({
      channel: 'console',
      recipient: null,
      dedupe_key: 'alert-9:level-1:console',
    });
    expect(await enqueue(context.a, first)).toHaveLength(1);
    expect(await enqueue(context.a, { ...first, subject: 'replayed' })).toEqual([]);
    expect(await enqueue(context.b, first)).toHaveLength(1);
    await context.notify.drain();
    const listA = await context.notify.list(context.a, { channel: 'console' }, { limit: 50 });
    expect(listA.items.filter((item) => item.dedupe_key === first.dedupe_key)).toHaveLength(1);
    expect(listA.items.find((item) => item.dedupe_key === first.dedupe_key)!.subject).toBe(first.subject);
  });

  it('commits notifications with the caller’s transaction, and not without it', async () => {
    const db = context.store.db;
    const request = notificationRequest({ channel: 'console', recipient: null });
    await db
      .transaction()
      .execute(async (trx) => {
        await context.notify.enqueue(trx, context.a, [request]);
        throw new Error('the alert failed to commit');
      })
      .catch(() => undefined);
    expect(await context.notify.list(context.a, { alertId: 'rolled-back' }, { limit: 5 })).toEqual({
      items: [],
      nextCursor: null,
    });
    const kept = await db
      .selectFrom('notifications')
      .select('id')
      .where('dedupe_key', '=', request.dedupe_key)
      .execute();
    expect(kept).toEqual([]);
    await db.transaction().execute((trx) => context.notify.enqueue(trx, context.a, [request]));
    await context.notify.drain();
    const listed = await context.notify.list(context.a, { channel: 'console' }, { limit: 200 });
    expect(listed.items.find((item) => item.dedupe_key === request.dedupe_key)?.status).toBe('delivered');
  });

  it('publishes console notifications to the tenant’s feed', async () => {
    const frames: Array<[string, ConsoleFrame]> = [];
    const stop = context.feed.subscribe((tenantId, frame) => frames.push([tenantId, frame]));
    const [id] = await enqueue(
      context.b,
      notificationRequest({ channel: 'console', recipient: null, alert_id: 'alert-console' }),
    );
    await context.notify.drain();
    stop();
    expect(frames).toEqual([
      [
        context.b,
        expect.objectContaining({
          type: 'alert.notification',
          notification_id: id,
          alert_id: 'alert-console',
          severity: 'P1',
          subject: '[P1 critical] checkout: Payments failing at every register',
        }),
      ],
    ]);
  });

  it('posts {text} to the tenant’s team chat webhook', async () => {
    await context.notify.saveSettings(context.a, { team_chat_webhook_url: provider.url('/hooks/alpha') });
    const [id] = await enqueue(
      context.a,
      notificationRequest({ channel: 'team_chat', recipient: null, severity: 'P3' }),
    );
    await context.notify.drain();
    expect(provider.requests).toHaveLength(1);
    expect(provider.requests[0]!.path).toBe('/hooks/alpha');
    expect(Object.keys(provider.requests[0]!.body)).toEqual(['text']);
    expect(String(provider.requests[0]!.body.text)).toMatch(/^\[P3 medium\] checkout: Payments failing/);
    expect((await context.notify.get(context.a, id!)).status).toBe('delivered');
    // Tenant B has no URL: nothing is sent, and the outcome says why.
    const [other] = await enqueue(context.b, notificationRequest({ channel: 'team_chat', recipient: null }));
    await context.notify.drain();
    expect(provider.requests).toHaveLength(1);
    const skipped = await context.notify.get(context.b, other!);
    expect(skipped.status).toBe('failed');
    expect(skipped.attempts[0]).toMatchObject({ outcome: 'skipped' });
    expect(skipped.last_error).toMatch(/no team chat webhook URL/);
    await context.notify.saveSettings(context.a, {});
  });

  it('skips a recipient without the address a channel needs, and a channel the tenant disabled', async () => {
    const noPhone = person({ phone: null, push_token: null });
    const ids = await enqueue(
      context.a,
      notificationRequest({ channel: 'sms', recipient: noPhone }),
      notificationRequest({ channel: 'push', recipient: noPhone }),
    );
    await context.notify.saveSettings(context.b, { enabled_channels: ['email'] });
    const [disabled] = await enqueue(context.b, notificationRequest({ channel: 'voice' }));
    await context.notify.drain();
    expect(provider.requests).toEqual([]);
    const results = await Promise.all(ids.map((id) => context.notify.get(context.a, id)));
    expect(results.map((result) => [result.status, result.last_error])).toEqual([
      ['failed', 'the recipient has no phone number'],
      ['failed', 'the recipient has no push token'],
    ]);
    const off = await context.notify.get(context.b, disabled!);
    expect(off.last_error).toBe("the voice channel is disabled in the tenant's settings");
    expect(off.attempts.map((attempt) => attempt.outcome)).toEqual(['skipped']);
    await context.notify.saveSettings(context.b, {});
  });

  it('lists an alert’s delivery outcomes, only within the tenant', async () => {
    await enqueue(
      context.a,
      notificationRequest({ channel: 'console', recipient: null, alert_id: 'alert-77' }),
      notificationRequest({ channel: 'email', alert_id: 'alert-77' }),
    );
    await context.notify.drain();
    const outcomes = await context.notify.deliveries(context.a, { alert_id: 'alert-77' });
    expect(outcomes.map((item) => [item.channel, item.status])).toEqual([
      ['console', 'delivered'],
      ['email', 'delivered'],
    ]);
    expect(await context.notify.deliveries(context.b, { alert_id: 'alert-77' })).toEqual([]);
  });
});

describe.each(backends)('notification channels left unconfigured on %s', (backend) => {
  let context: NotifyRig;
  beforeAll(async () => {
    context = await notifyRig(backend);
  });
  afterAll(() => context.close());

  it('records why nothing was sent instead of failing the worker', async () => {
    const requests = (['email', 'sms', 'voice', 'push'] as const).map((channel) =>
      notificationRequest({ channel }),
    );
    const ids = await context.notify.enqueue(context.store.db, context.a, requests);
    await context.notify.drain();
    const results = await Promise.all(ids.map((id) => context.notify.get(context.a, id)));
    expect(results.map((result) => [result.channel, result.status, result.last_error])).toEqual([
      ['email', 'failed', 'the email channel is not configured (NOTIFY_SMTP_URL)'],
      ['sms', 'failed', 'the sms channel is not configured (NOTIFY_SMS_URL)'],
      ['voice', 'failed', 'the voice channel is not configured (NOTIFY_VOICE_URL)'],
      ['push', 'failed', 'the push channel is not configured (NOTIFY_PUSH_URL)'],
    ]);
    expect(results.every((result) => result.attempts[0]?.outcome === 'skipped')).toBe(true);
  });
});
