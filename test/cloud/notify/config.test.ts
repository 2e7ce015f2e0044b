import { describe, expect, it } from 'vitest';
import { ConfigError, loadCloudConfig } from '../../../cloud/config.ts';

describe('notify configuration', () => {
  it('runs the worker with short polls and five attempts by default, no channel configured', () => {
    expect(loadCloudConfig({}).notify).toMatchObject({
      runWorker: true,
      pollMs: 200,
      maxAttempts: 5,
      retryBaseMs: 1000,
      smtpUrl: undefined,
      smsUrl: undefined,
      allowPrivateUrls: false,
    });
  });

  it('reads every channel’s provider', () => {
    const notify = loadCloudConfig({
      NOTIFY_WORKER: 'false',
      NOTIFY_SMTP_URL: 'smtps://user:pass@mail.example.com:465',
      NOTIFY_EMAIL_FROM: 'Ops <ops@example.com>',
      NOTIFY_SMS_URL: 'https://sms.example.com/v1/messages',
      NOTIFY_VOICE_URL: 'https://voice.example.com/v1/calls',
      NOTIFY_PUSH_URL: 'https://push.example.com/v1/send',
      NOTIFY_PROVIDER_ACCOUNT: 'AC1',
      NOTIFY_PROVIDER_TOKEN: 'tok',
      NOTIFY_SMS_FROM: '+15550000',
      NOTIFY_ALLOW_PRIVATE_URLS: 'true',
      CLOUD_PUBLIC_URL: 'https://cloud.example.com/',
      NOTIFY_CALLBACK_SECRET: 's'.repeat(32),
    }).notify;
    expect(notify).toMatchObject({
      runWorker: false,
      smtpUrl: 'smtps://user:pass@mail.example.com:465',
      emailFrom: 'Ops <ops@example.com>',
      voiceUrl: 'https://voice.example.com/v1/calls',
      providerAccount: 'AC1',
      allowPrivateUrls: true,
      voiceCallbackBase: 'https://cloud.example.com',
      callbackSecret: 's'.repeat(32),
    });
    expect(
      loadCloudConfig({
        CLOUD_PUBLIC_URL: 'https://cloud.example.com',
        NOTIFY_VOICE_CALLBACK_URL: 'https://hooks.example.com/',
      }).notify.voiceCallbackBase,
    ).toBe('https://hooks.example.com');
  });

  it('refuses values it cannot use, naming the variable and hiding credentials', () => {
    const refused = (env: Record<string, string>) => {
      try {
        loadCloudConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };
    expect(refused({ NOTIFY_SMTP_URL: 'http://user:secret@mail' })).toMatch(/^NOTIFY_SMTP_URL .*\*\*\*@mail/);
    expect(refused({ NOTIFY_SMTP_URL: 'http://user:secret@mail' })).not.toContain('secret');
    expect(refused({ NOTIFY_SMS_URL: 'sms.example.com' })).toMatch(/^NOTIFY_SMS_URL/);
    expect(refused({ NOTIFY_POLL_MS: '0' })).toMatch(/^NOTIFY_POLL_MS/);
    expect(refused({ NOTIFY_WORKER: 'yes' })).toMatch(/^NOTIFY_WORKER/);
    expect(refused({ NOTIFY_EMAIL_FROM: 'nobody' })).toMatch(/^NOTIFY_EMAIL_FROM/);
    expect(refused({ NOTIFY_SEND_TIMEOUT_MS: '5000', NOTIFY_LEASE_MS: '5000' })).toMatch(/^NOTIFY_LEASE_MS/);
    expect(refused({ NOTIFY_CALLBACK_SECRET: 'short' })).toMatch(
      /^NOTIFY_CALLBACK_SECRET must be at least 32/,
    );
  });
});
