/** The notify module's settings: the delivery worker's pace and each channel's provider. */

import { type Settings, settingNames, type TextSetting } from '../../shared/config/settings.ts';
import { type Env, read } from '../config-env.ts';
import { ConfigError } from '../config-error.ts';

export interface NotifyConfig {
  /** Whether this process runs the delivery worker (NOTIFY_WORKER). */
  runWorker: boolean;
  /** How often due notifications are looked for when nothing woke the worker. */
  pollMs: number;
  /** Notifications sent at once by one worker. */
  concurrency: number;
  /** Attempts per notification, the first included. */
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

const d = DEFAULT_NOTIFY_CONFIG;

const integer = (name: string, fallback: number, min: number, max: number, description: string) =>
  ({ name, type: 'integer', default: fallback, min, max, description }) as const;
const text = (name: string, format: string, description: string) =>
  ({ name, type: 'text', default: undefined, format, description }) as const;
const HTTP_URL = 'an http:// or https:// URL';

export const NOTIFY_SETTINGS = {
  runWorker: {
    name: 'NOTIFY_WORKER',
    type: 'flag',
    default: d.runWorker,
    description: 'run the delivery worker in this process',
  },
  pollMs: integer(
    'NOTIFY_POLL_MS',
    d.pollMs,
    10,
    60_000,
    'how often (ms) due notifications are looked for when nothing woke the worker',
  ),
  concurrency: integer('NOTIFY_CONCURRENCY', d.concurrency, 1, 256, 'sends in flight per worker'),
  maxAttempts: integer(
    'NOTIFY_MAX_ATTEMPTS',
    d.maxAttempts,
    1,
    20,
    'attempts per notification, the first included',
  ),
  retryBaseMs: integer(
    'NOTIFY_RETRY_BASE_MS',
    d.retryBaseMs,
    10,
    3_600_000,
    'back-off (ms) after the first failed attempt; doubles with each further one',
  ),
  retryMaxMs: integer('NOTIFY_RETRY_MAX_MS', d.retryMaxMs, 10, 86_400_000, 'the longest back-off (ms)'),
  sendTimeoutMs: integer(
    'NOTIFY_SEND_TIMEOUT_MS',
    d.sendTimeoutMs,
    100,
    120_000,
    'a provider call gives up after this many ms (and is retried)',
  ),
  leaseMs: integer(
    'NOTIFY_LEASE_MS',
    d.leaseMs,
    500,
    600_000,
    'a claimed notification is freed after this many ms (a worker killed mid-send); must exceed `NOTIFY_SEND_TIMEOUT_MS`',
  ),
  smtpUrl: {
    ...text('NOTIFY_SMTP_URL', 'an smtp:// or smtps:// URL', 'the e-mail relay, credentials in the URL'),
    secret: true,
  },
  emailFrom: {
    name: 'NOTIFY_EMAIL_FROM',
    type: 'text',
    default: d.emailFrom,
    format: 'an e-mail address (`Name <a@b>` or `a@b`)',
    description: 'the sender; a tenant may override it',
  },
  smsUrl: { ...text('NOTIFY_SMS_URL', HTTP_URL, 'the SMS provider endpoint'), secret: true },
  voiceUrl: { ...text('NOTIFY_VOICE_URL', HTTP_URL, 'the voice-call provider endpoint'), secret: true },
  pushUrl: { ...text('NOTIFY_PUSH_URL', HTTP_URL, 'the push provider endpoint'), secret: true },
  providerAccount: text(
    'NOTIFY_PROVIDER_ACCOUNT',
    'text',
    "the providers' account: basic auth with the token",
  ),
  providerToken: {
    ...text(
      'NOTIFY_PROVIDER_TOKEN',
      'text',
      "the providers' token: bearer alone, basic auth with an account",
    ),
    secret: true,
  },
  smsFrom: text('NOTIFY_SMS_FROM', 'text', 'caller id for SMS and voice'),
  voiceCallbackUrl: {
    ...text(
      'NOTIFY_VOICE_CALLBACK_URL',
      HTTP_URL,
      "this cloud's public base URL, where the voice provider posts the key pressed",
    ),
    defaultText: '`CLOUD_PUBLIC_URL`',
    secret: true,
  },
  callbackSecret: {
    ...text(
      'NOTIFY_CALLBACK_SECRET',
      'at least 32 characters',
      "signs each call's callback token; without it (or a base URL) calls carry no callback",
    ),
    secret: true,
  },
  allowPrivateUrls: {
    name: 'NOTIFY_ALLOW_PRIVATE_URLS',
    type: 'flag',
    default: d.allowPrivateUrls,
    description: 'team-chat webhooks to loopback and private addresses (tests and local development only)',
  },
} as const satisfies Settings;

/** Every variable loadNotifyConfig reads. */
export const NOTIFY_VARIABLES = settingNames(NOTIFY_SETTINGS);

/** Where loadNotifyConfig falls back to for the voice callback: the gateway's own setting. */
const PUBLIC_URL = {
  name: 'CLOUD_PUBLIC_URL',
  type: 'text',
  default: undefined,
  format: HTTP_URL,
  description: '',
} as const;

const MIN_SECRET_LENGTH = 32;

function secret(env: Env, setting: TextSetting) {
  const { name } = setting;
  const raw = read(env, setting);
  if (raw === undefined) return undefined;
  if (raw.length < MIN_SECRET_LENGTH)
    throw new ConfigError(
      `${name} must be at least ${MIN_SECRET_LENGTH} characters (it signs callback tokens)`,
    );
  return raw;
}

function url(env: Env, setting: TextSetting, protocols: readonly string[]) {
  const { name } = setting;
  const raw = read(env, setting);
  if (raw === undefined) return undefined;
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

function emailAddress(env: Env, setting: TextSetting & { default: string }) {
  const { name } = setting;
  const raw = env[name];
  if (raw === undefined || raw === '') return setting.default;
  // "Name <a@b>" or a bare address.
  if (!/^([^<>]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(raw.trim())) {
    throw new ConfigError(`${name} must be an e-mail address, got "${raw}"`);
  }
  return raw.trim();
}

const HTTP = ['http:', 'https:'] as const;

export function loadNotifyConfig(env: Env): NotifyConfig {
  const s = NOTIFY_SETTINGS;
  const sendTimeoutMs = read(env, s.sendTimeoutMs);
  const leaseMs = read(env, s.leaseMs);
  // A lease shorter than a send would hand a live attempt to a second worker: two messages.
  if (leaseMs <= sendTimeoutMs) {
    throw new ConfigError(
      `NOTIFY_LEASE_MS (${leaseMs}) must be longer than NOTIFY_SEND_TIMEOUT_MS (${sendTimeoutMs})`,
    );
  }
  return {
    runWorker: read(env, s.runWorker),
    pollMs: read(env, s.pollMs),
    concurrency: read(env, s.concurrency),
    maxAttempts: read(env, s.maxAttempts),
    retryBaseMs: read(env, s.retryBaseMs),
    retryMaxMs: read(env, s.retryMaxMs),
    sendTimeoutMs,
    leaseMs,
    smtpUrl: url(env, s.smtpUrl, ['smtp:', 'smtps:']),
    emailFrom: emailAddress(env, s.emailFrom),
    smsUrl: url(env, s.smsUrl, HTTP),
    voiceUrl: url(env, s.voiceUrl, HTTP),
    pushUrl: url(env, s.pushUrl, HTTP),
    providerAccount: read(env, s.providerAccount),
    providerToken: read(env, s.providerToken),
    smsFrom: read(env, s.smsFrom),
    voiceCallbackBase: (url(env, s.voiceCallbackUrl, HTTP) ?? url(env, PUBLIC_URL, HTTP))?.replace(
      /\/+$/,
      '',
    ),
    callbackSecret: secret(env, s.callbackSecret),
    allowPrivateUrls: read(env, s.allowPrivateUrls),
  };
}
