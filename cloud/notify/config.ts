/** The notify module's settings: the delivery worker's pace and each channel's provider. */

import { type Env, flag, integer } from '../config-env.ts';
import { ConfigError } from '../config-error.ts';

export interface NotifyConfig {
  /** Whether this process runs the delivery worker (NOTIFY_WORKER). */
  runWorker: boolean;
  /** How often due notifications are looked for when nothing woke the worker. */
  pollMs: number;
  /** Notifications sent at once by one worker. */
  concurrency: number;
  /** Attempts per notification, the first included (the spec: 5). */
  maxAttempts: number;
  /** Back-off after the first failed attempt; doubles with each further one, up to retryMaxMs. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Every provider call gives up after this. */
  sendTimeoutMs: number;
  /** A claimed notification is ours this long; a worker killed mid-send frees it after this. */
  leaseMs: number;
  smtpUrl: string | undefined;
  emailFrom: string;
  smsUrl: string | undefined;
  voiceUrl: string | undefined;
  pushUrl: string | undefined;
  providerAccount: string | undefined;
  providerToken: string | undefined;
  smsFrom: string | undefined;
  /**
   * Where the voice provider posts the key a responder pressed (this cloud's public base URL:
   * NOTIFY_VOICE_CALLBACK_URL, else CLOUD_PUBLIC_URL), and the secret its per-call token is
   * derived from (NOTIFY_CALLBACK_SECRET). Without both, calls offer no working menu.
   */
  voiceCallbackBase: string | undefined;
  callbackSecret: string | undefined;
  /** Team-chat webhooks to loopback and private addresses: tests and local development only. */
  allowPrivateUrls: boolean;
}

/** Every variable loadNotifyConfig reads (the README's configuration table). */
export const NOTIFY_VARIABLES = [
  'NOTIFY_WORKER',
  'NOTIFY_POLL_MS',
  'NOTIFY_CONCURRENCY',
  'NOTIFY_MAX_ATTEMPTS',
  'NOTIFY_RETRY_BASE_MS',
  'NOTIFY_RETRY_MAX_MS',
  'NOTIFY_SEND_TIMEOUT_MS',
  'NOTIFY_LEASE_MS',
  'NOTIFY_SMTP_URL',
  'NOTIFY_EMAIL_FROM',
  'NOTIFY_SMS_URL',
  'NOTIFY_VOICE_URL',
  'NOTIFY_PUSH_URL',
  'NOTIFY_PROVIDER_ACCOUNT',
  'NOTIFY_PROVIDER_TOKEN',
  'NOTIFY_SMS_FROM',
  'NOTIFY_VOICE_CALLBACK_URL',
  'NOTIFY_CALLBACK_SECRET',
  'NOTIFY_ALLOW_PRIVATE_URLS',
] as const;

export const DEFAULT_NOTIFY_CONFIG: NotifyConfig = {
  runWorker: true,
  pollMs: 200,
  concurrency: 8,
  maxAttempts: 5,
  retryBaseMs: 1000,
  retryMaxMs: 300_000,
  sendTimeoutMs: 10_000,
  leaseMs: 30_000,
  smtpUrl: undefined,
  emailFrom: 'alerts@localhost',
  smsUrl: undefined,
  voiceUrl: undefined,
  pushUrl: undefined,
  providerAccount: undefined,
  providerToken: undefined,
  smsFrom: undefined,
  voiceCallbackBase: undefined,
  callbackSecret: undefined,
  allowPrivateUrls: false,
};

const MIN_SECRET_LENGTH = 32;

function secret(env: Env, name: string) {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (raw.length < MIN_SECRET_LENGTH)
    throw new ConfigError(
      `${name} must be at least ${MIN_SECRET_LENGTH} characters (it signs callback tokens)`,
    );
  return raw;
}

function url(env: Env, name: string, protocols: readonly string[]) {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !protocols.includes(parsed.protocol)) {
    const shown = raw.replace(/\/\/[^@]*@/, '//***@');
    throw new ConfigError(`${name} must be a ${protocols.join(' or ')}// URL, got "${shown}"`);
  }
  return raw;
}

function emailAddress(env: Env, name: string, fallback: string) {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  // "Name <a@b>" or a bare address.
  if (!/^([^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(raw.trim())) {
    throw new ConfigError(`${name} must be an e-mail address, got "${raw}"`);
  }
  return raw.trim();
}

const HTTP = ['http:', 'https:'] as const;

export function loadNotifyConfig(env: Env): NotifyConfig {
  const d = DEFAULT_NOTIFY_CONFIG;
  const sendTimeoutMs = integer(env, 'NOTIFY_SEND_TIMEOUT_MS', d.sendTimeoutMs, 100, 120_000);
  const leaseMs = integer(env, 'NOTIFY_LEASE_MS', d.leaseMs, 500, 600_000);
  // A lease shorter than a send would hand a live attempt to a second worker: two messages.
  if (leaseMs <= sendTimeoutMs) {
    throw new ConfigError(
      `NOTIFY_LEASE_MS (${leaseMs}) must be longer than NOTIFY_SEND_TIMEOUT_MS (${sendTimeoutMs})`,
    );
  }
  return {
    runWorker: flag(env, 'NOTIFY_WORKER', d.runWorker),
    pollMs: integer(env, 'NOTIFY_POLL_MS', d.pollMs, 10, 60_000),
    concurrency: integer(env, 'NOTIFY_CONCURRENCY', d.concurrency, 1, 256),
    maxAttempts: integer(env, 'NOTIFY_MAX_ATTEMPTS', d.maxAttempts, 1, 20),
    retryBaseMs: integer(env, 'NOTIFY_RETRY_BASE_MS', d.retryBaseMs, 10, 3_600_000),
    retryMaxMs: integer(env, 'NOTIFY_RETRY_MAX_MS', d.retryMaxMs, 10, 86_400_000),
    sendTimeoutMs,
    leaseMs,
    smtpUrl: url(env, 'NOTIFY_SMTP_URL', ['smtp:', 'smtps:']),
    emailFrom: emailAddress(env, 'NOTIFY_EMAIL_FROM', d.emailFrom),
    smsUrl: url(env, 'NOTIFY_SMS_URL', HTTP),
    voiceUrl: url(env, 'NOTIFY_VOICE_URL', HTTP),
    pushUrl: url(env, 'NOTIFY_PUSH_URL', HTTP),
    providerAccount: env.NOTIFY_PROVIDER_ACCOUNT || undefined,
    providerToken: env.NOTIFY_PROVIDER_TOKEN || undefined,
    smsFrom: env.NOTIFY_SMS_FROM || undefined,
    voiceCallbackBase: (
      url(env, 'NOTIFY_VOICE_CALLBACK_URL', HTTP) ?? url(env, 'CLOUD_PUBLIC_URL', HTTP)
    )?.replace(/\/+$/, ''),
    callbackSecret: secret(env, 'NOTIFY_CALLBACK_SECRET'),
    allowPrivateUrls: flag(env, 'NOTIFY_ALLOW_PRIVATE_URLS', d.allowPrivateUrls),
  };
}
