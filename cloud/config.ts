import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  type Settings,
  type SettingsSection,
  settingNames,
  type TextSetting,
} from '../shared/config/settings.ts';
import { TIERS, type Tier } from '../shared/tenancy.ts';
import { AIOPS_SETTINGS, type AiopsConfig, loadAiopsConfig } from './aiops/index.ts';
import { ALERTING_SETTINGS, type AlertingConfig, loadAlertingConfig } from './alerting/index.ts';
import { CHAT_SETTINGS, type ChatConfig, loadChatConfig } from './chat/index.ts';
import { COCKPIT_SETTINGS, type CockpitConfig, loadCockpitConfig } from './cockpit/index.ts';
import { type Env, read } from './config-env.ts';
import { ConfigError } from './config-error.ts';
import { isPostgresUrl } from './db/index.ts';
import { DEFAULT_DEVICE_OPTIONS, type DeviceOptions } from './devices/index.ts';
import type { FleetConfig } from './fleet/index.ts';
import {
  INCIDENT_FLOW_SETTINGS,
  type IncidentFlowConfig,
  loadIncidentFlowConfig,
} from './incidents/index.ts';
import { loadNotifyConfig, NOTIFY_SETTINGS, type NotifyConfig } from './notify/index.ts';
import {
  DEFAULT_RELEASE_OPTIONS,
  loadRolloutConfig,
  type ReleaseOptions,
  ROLLOUT_SETTINGS,
  type RolloutConfig,
} from './releases/index.ts';
import { loadSsoConfig, SSO_SETTINGS, type SsoConfig } from './sso/index.ts';
import { DEFAULT_VISION_MODEL_OPTIONS, type VisionModelOptions } from './vision/index.ts';
import { DEFAULT_WEBHOOK_OPTIONS, type WebhookOptions } from './webhooks/index.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export interface CloudConfig {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  /** PostgreSQL only: the schema the store lives in (created when missing); unset means the server's default. */
  databaseSchema: string | undefined;
  redisUrl: string | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Trust X-Forwarded-For: only behind a proxy we run, or clients could pick their own address. */
  trustProxy: boolean;
  rateLimit: boolean;
  /** The bucket unauthenticated callers (per address) draw from. */
  anonymousTier: Tier;
  refreshTtlSeconds: number;
  keyRotationSeconds: number;
  hashing: { memoryCost: number; timeCost: number };
  sync: { feedRetentionDays: number; maxConcurrentPushes: number };
  webhooks: WebhookOptions & { runWorker: boolean };
  devices: DeviceOptions;
  fleet: FleetConfig & { enabled: boolean };
  /** The address appliances and clients reach this cloud by (model download URLs); unset: each request's own. */
  publicUrl: string | undefined;
  visionModels: VisionModelOptions;
  releases: ReleaseOptions;
  rollouts: RolloutConfig;
  /** Where billing forwards pause and resume; unset: the cloud's own tenancy, in process. */
  platformServiceUrl: string | undefined;
  notify: NotifyConfig;
  alerting: AlertingConfig;
  aiops: AiopsConfig;
  cockpit: CockpitConfig;
  chat: ChatConfig;
  incidentFlow: IncidentFlowConfig;
  sso: SsoConfig;
  console: { distDir: string };
}

export { ConfigError };

const HTTP_URL = 'an http:// or https:// URL';
const FLEET_URL = 'an mqtt://, mqtts://, ws:// or wss:// URL';

/** The gateway's own settings; each module's follow in CLOUD_SECTIONS. */
export const CLOUD_SETTINGS = {
  port: {
    name: 'CLOUD_PORT',
    type: 'integer',
    default: 8080,
    min: 0,
    max: 65535,
    description: 'HTTP port (`0`: any free port)',
  },
  host: {
    name: 'CLOUD_HOST',
    type: 'text',
    default: '127.0.0.1',
    format: 'a host name or address',
    description: 'address to listen on (`0.0.0.0` for every interface)',
  },
  dataDir: {
    name: 'DATA_DIR',
    type: 'text',
    default: './data',
    format: 'a folder',
    description: 'where the SQLite store lives (`cloud.sqlite`)',
  },
  databaseUrl: {
    name: 'DATABASE_URL',
    type: 'text',
    default: undefined,
    format: 'a postgres:// URL (leave it unset for SQLite in DATA_DIR)',
    secret: true,
    description: 'selects PostgreSQL instead of SQLite in `DATA_DIR`',
  },
  databaseSchema: {
    name: 'DATABASE_SCHEMA',
    type: 'text',
    default: undefined,
    format: 'a lower-case identifier (letters, digits, _; at most 63)',
    description:
      'PostgreSQL only: the schema to keep the store in (created when missing), e.g. one per deployment sharing a database; `npm run ctl` does not read it yet',
  },
  redisUrl: {
    name: 'REDIS_URL',
    type: 'text',
    default: undefined,
    format: 'a redis:// or rediss:// URL',
    secret: true,
    description: 'rate-limit counts shared by every gateway replica (in memory when unset)',
  },
  logLevel: {
    name: 'LOG_LEVEL',
    type: 'enum',
    values: LOG_LEVELS,
    default: 'info',
    description: 'the least severe level logged (`npm start` uses `warn`)',
  },
  trustProxy: {
    name: 'CLOUD_TRUST_PROXY',
    type: 'flag',
    default: false,
    description:
      'trust `X-Forwarded-For` (only behind a proxy you run, or clients could pick their own address)',
  },
  rateLimit: {
    name: 'CLOUD_RATE_LIMIT',
    type: 'flag',
    default: true,
    description: 'per-tier gateway rate limits',
  },
  anonymousTier: {
    name: 'CLOUD_ANONYMOUS_TIER',
    type: 'enum',
    values: TIERS,
    default: 'professional',
    description: 'the bucket unauthenticated callers draw from, per address',
  },
  refreshTokenDays: {
    name: 'CLOUD_REFRESH_TOKEN_DAYS',
    type: 'integer',
    default: 30,
    min: 1,
    max: 365,
    description: 'refresh-token and idle session lifetime in days (sliding)',
  },
  feedRetentionDays: {
    name: 'CLOUD_SYNC_FEED_RETENTION_DAYS',
    type: 'integer',
    default: 30,
    min: 1,
    max: 3650,
    description:
      'days of cloud changes kept for appliances to pull; an appliance further behind starts over from a snapshot',
  },
  maxConcurrentPushes: {
    name: 'CLOUD_SYNC_MAX_CONCURRENT_PUSHES',
    type: 'integer',
    default: 8,
    min: 1,
    max: 256,
    description: 'sync pushes applied at once per replica; more get 429 `SYNC_BUSY` with `Retry-After`',
  },
  keyRotationDays: {
    name: 'CLOUD_KEY_ROTATION_DAYS',
    type: 'integer',
    default: 30,
    min: 1,
    max: 365,
    description: 'age in days at which the token signing key is rotated',
  },
  hashKib: {
    name: 'CLOUD_PASSWORD_HASH_KIB',
    type: 'integer',
    default: 19_456,
    min: 1024,
    max: 1_048_576,
    description: 'argon2id memory per password hash (KiB)',
  },
  hashPasses: {
    name: 'CLOUD_PASSWORD_HASH_PASSES',
    type: 'integer',
    default: 2,
    min: 1,
    max: 10,
    description: 'argon2id passes',
  },
  allowPrivateUrls: {
    name: 'WEBHOOK_ALLOW_PRIVATE_URLS',
    type: 'flag',
    default: false,
    description:
      'let webhook URLs reach loopback, private and link-local addresses (tests and local development only: they are how an attacker reaches our own network)',
  },
  webhookWorker: {
    name: 'WEBHOOK_WORKER',
    type: 'flag',
    default: true,
    description: 'run a webhook delivery worker inside the gateway process',
  },
  disableAfterHours: {
    name: 'WEBHOOK_DISABLE_AFTER_HOURS',
    type: 'integer',
    default: DEFAULT_WEBHOOK_OPTIONS.disableAfterHours,
    min: 1,
    max: 24 * 30,
    description: 'an endpoint whose every delivery failed for this many hours is disabled',
  },
  secretGraceHours: {
    name: 'WEBHOOK_SECRET_GRACE_HOURS',
    type: 'integer',
    default: 24,
    min: 1,
    max: 24 * 30,
    description: 'hours a rotated-out webhook secret keeps signing beside the new one',
  },
  maxLanes: {
    name: 'WEBHOOK_MAX_LANES',
    type: 'integer',
    default: DEFAULT_WEBHOOK_OPTIONS.maxLanes,
    min: 1,
    max: 10_000,
    description: 'endpoints one webhook worker serves at once',
  },
  operationsPerMinute: {
    name: 'WEBHOOK_OPERATIONS_PER_MINUTE',
    type: 'integer',
    default: DEFAULT_WEBHOOK_OPTIONS.operationsPerMinute,
    min: 1,
    max: 100_000,
    description: 'webhook writes, tests and retries per tenant per minute (`rate_limited` beyond)',
  },
  certificateDays: {
    name: 'CLOUD_DEVICE_CERT_DAYS',
    type: 'integer',
    default: DEFAULT_DEVICE_OPTIONS.certificateDays,
    min: 1,
    // 825 days is the longest any TLS client still accepts for a leaf certificate.
    max: 825,
    description: 'lifetime in days of a device certificate the device CA issues',
  },
  fleet: {
    name: 'CLOUD_FLEET',
    type: 'flag',
    default: true,
    description: 'run the fleet link (commands to appliances over MQTT)',
  },
  fleetUrl: {
    name: 'CLOUD_FLEET_URL',
    type: 'text',
    default: undefined,
    format: FLEET_URL,
    secret: true,
    description: 'an MQTT broker for the fleet link; unset starts the embedded one',
  },
  fleetUsername: {
    name: 'CLOUD_FLEET_USERNAME',
    type: 'text',
    default: undefined,
    format: 'text',
    description: "the cloud's user name at that broker",
  },
  fleetPassword: {
    name: 'CLOUD_FLEET_PASSWORD',
    type: 'text',
    default: undefined,
    format: 'text',
    secret: true,
    description: "the cloud's password at that broker",
  },
  fleetPort: {
    name: 'CLOUD_FLEET_PORT',
    type: 'integer',
    default: 0,
    min: 0,
    max: 65535,
    description: "the embedded broker's port (`0`: any free port, logged; set it for appliances to find)",
  },
  fleetTlsPort: {
    name: 'CLOUD_FLEET_TLS_PORT',
    type: 'integer',
    default: 0,
    min: 0,
    max: 65535,
    description:
      "the embedded broker's TLS listener, where appliances sign in with their certificates (`0`: any free port, logged)",
  },
  fleetTlsHosts: {
    name: 'CLOUD_FLEET_TLS_HOSTS',
    type: 'text',
    default: 'localhost,127.0.0.1',
    format: 'host names or IP addresses separated by commas',
    description: "the names in that listener's certificate (how appliances reach it)",
  },
  fleetPrefix: {
    name: 'CLOUD_FLEET_PREFIX',
    type: 'text',
    default: 'edge',
    format: 'letters, digits, _ or - (at most 64)',
    description: 'first topic level of the fleet and device topics',
  },
  publicUrl: {
    name: 'CLOUD_PUBLIC_URL',
    type: 'text',
    default: undefined,
    defaultText: "each request's own host",
    format: HTTP_URL,
    secret: true,
    description: "the cloud's address as appliances reach it: model sync names download URLs on it",
  },
  visionModelMaxMb: {
    name: 'CLOUD_VISION_MODEL_MAX_MB',
    type: 'integer',
    default: DEFAULT_VISION_MODEL_OPTIONS.maxBytes / 1024 / 1024,
    min: 1,
    max: 2048,
    description: 'largest model file (MB) an admin may upload',
  },
  releaseMaxMb: {
    name: 'CLOUD_RELEASE_MAX_MB',
    type: 'integer',
    default: DEFAULT_RELEASE_OPTIONS.maxBytes / 1024 / 1024,
    min: 1,
    max: 16_384,
    description: 'largest appliance release archive (MB) an upload may carry',
  },
  consoleDir: {
    name: 'CLOUD_CONSOLE_DIR',
    type: 'text',
    default: undefined,
    defaultText: '`cloud/console/web/dist`',
    format: 'a folder',
    description:
      'the built fleet console served at `/console/` (503 `CONSOLE_NOT_BUILT` with what to run when it is missing)',
  },
  platformServiceUrl: {
    name: 'PLATFORM_SERVICE_URL',
    type: 'text',
    default: undefined,
    defaultText: "the cloud's own tenancy, in process",
    format: HTTP_URL,
    secret: true,
    description:
      'where billing forwards pause and resume (`POST <url>/v1/platform/billing/subscriptions/{id}/{pause,resume}`)',
  },
} as const satisfies Settings;

const S = CLOUD_SETTINGS;

/** Every table the cloud reads, in the order of the configuration reference. */
export const CLOUD_SECTIONS: SettingsSection[] = [
  {
    title: 'Gateway',
    intro: 'Read by `npm run cloud`, `npm start`, `npm run webhook-worker` and `npm run ctl`.',
    settings: CLOUD_SETTINGS,
  },
  { title: 'Single sign-on', intro: 'Social login and SSO sign-ins (`cloud/sso/`).', settings: SSO_SETTINGS },
  {
    title: 'Notifications',
    intro: 'The notification worker and its providers (`cloud/notify/`).',
    settings: NOTIFY_SETTINGS,
  },
  { title: 'Alerting', intro: 'The escalation worker (`cloud/alerting/`).', settings: ALERTING_SETTINGS },
  {
    title: 'Rollouts',
    intro: 'The rollout engine that ships releases to the stores in waves (`cloud/releases/`).',
    settings: ROLLOUT_SETTINGS,
  },
  {
    title: 'AI operations',
    intro: 'Anomalies, predictions and correlation (`cloud/aiops/`).',
    settings: AIOPS_SETTINGS,
  },
  {
    title: 'Operations console and auto-remediation',
    intro: '`cloud/cockpit/` and `cloud/remediation/`.',
    settings: COCKPIT_SETTINGS,
  },
  { title: 'Chat', intro: '`cloud/chat/`.', settings: CHAT_SETTINGS },
  {
    title: 'Chat incident flow',
    intro: 'A fired alert opens an incident with its own chat channel (`cloud/incidents/`).',
    settings: INCIDENT_FLOW_SETTINGS,
  },
];

/** Every variable the cloud reads. */
export const CLOUD_VARIABLES = settingNames(...CLOUD_SECTIONS.map((section) => section.settings));

/** A text setting checked by `accepts`; a URL's credentials are masked in the message. */
function checked(env: Env, setting: TextSetting, accepts: (value: string) => boolean) {
  const raw = read(env, setting);
  if (raw === undefined || accepts(raw)) return raw;
  const shown = setting.secret ? raw.replace(/\/\/[^@]*@/, '//***@') : raw;
  throw new ConfigError(`${setting.name} must be ${setting.format}, got "${shown}"`);
}

/** Where `npm run console:build` puts the fleet console (also right from the bundle in dist/). */
const BUILT_CONSOLE_DIR = fileURLToPath(new URL('../cloud/console/web/dist', import.meta.url));

const httpUrl = (value: string) => URL.canParse(value) && /^https?:\/\//.test(value);

/**
 * A plain lower-case identifier: it reaches PostgreSQL unquoted in the connection's search path, so
 * nothing else may pass, and it makes no sense without PostgreSQL.
 */
function schemaName(env: Env, databaseUrl: string | undefined) {
  const schema = checked(env, S.databaseSchema, (v) => /^[a-z_][a-z0-9_]{0,62}$/.test(v));
  if (schema !== undefined && databaseUrl === undefined)
    throw new ConfigError('DATABASE_SCHEMA needs a postgres:// DATABASE_URL (SQLite has no schemas)');
  return schema;
}

/** The names appliances reach the fleet broker by, for its TLS certificate. */
function fleetTlsHosts(env: Env) {
  const hosts = read(env, S.fleetTlsHosts)
    .split(',')
    .map((host) => host.trim());
  const bad = hosts.find(
    (host) => !(isIP(host) || /^(?=.{1,253}$)[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/.test(host)),
  );
  if (bad !== undefined)
    throw new ConfigError(`${S.fleetTlsHosts.name} must be ${S.fleetTlsHosts.format}, got "${bad}"`);
  return {
    dns: hosts.filter((host) => !isIP(host)),
    ip: hosts.filter((host) => isIP(host)),
  };
}

function fleetConfig(env: Env, host: string): CloudConfig['fleet'] {
  return {
    enabled: read(env, S.fleet),
    url: checked(env, S.fleetUrl, (v) => /^(mqtts?|wss?):\/\//.test(v)),
    username: read(env, S.fleetUsername),
    password: read(env, S.fleetPassword),
    port: read(env, S.fleetPort),
    tlsPort: read(env, S.fleetTlsPort),
    tlsHosts: fleetTlsHosts(env),
    host,
    prefix: checked(env, S.fleetPrefix, (v) => /^[A-Za-z0-9_-]{1,64}$/.test(v)) ?? S.fleetPrefix.default,
    dispatchMs: 1000,
  };
}

function webhookOptions(env: Env): CloudConfig['webhooks'] {
  return {
    ...DEFAULT_WEBHOOK_OPTIONS,
    allowPrivateUrls: read(env, S.allowPrivateUrls),
    runWorker: read(env, S.webhookWorker),
    disableAfterHours: read(env, S.disableAfterHours),
    rotationGraceSeconds: 3600 * read(env, S.secretGraceHours),
    maxLanes: read(env, S.maxLanes),
    operationsPerMinute: read(env, S.operationsPerMinute),
  };
}

/**
 * Reads and checks the cloud's environment. Unrelated variables are ignored (the environment is
 * shared with other software, some of it using CLOUD_* names too); a bad value of ours stops start-up.
 */
export function loadCloudConfig(env: Env): CloudConfig {
  const host = checked(env, S.host, (v) => /^[\w.:-]+$/.test(v)) ?? S.host.default;
  const databaseUrl = checked(env, S.databaseUrl, isPostgresUrl);
  return {
    port: read(env, S.port),
    host,
    dataDir: read(env, S.dataDir),
    databaseUrl,
    databaseSchema: schemaName(env, databaseUrl),
    redisUrl: checked(env, S.redisUrl, (v) => /^rediss?:\/\//.test(v)),
    logLevel: read(env, S.logLevel),
    trustProxy: read(env, S.trustProxy),
    rateLimit: read(env, S.rateLimit),
    anonymousTier: read(env, S.anonymousTier),
    refreshTtlSeconds: 86_400 * read(env, S.refreshTokenDays),
    keyRotationSeconds: 86_400 * read(env, S.keyRotationDays),
    hashing: { memoryCost: read(env, S.hashKib), timeCost: read(env, S.hashPasses) },
    sync: {
      feedRetentionDays: read(env, S.feedRetentionDays),
      maxConcurrentPushes: read(env, S.maxConcurrentPushes),
    },
    webhooks: webhookOptions(env),
    fleet: fleetConfig(env, host),
    publicUrl: checked(env, S.publicUrl, httpUrl),
    visionModels: { maxBytes: 1024 * 1024 * read(env, S.visionModelMaxMb) },
    releases: { ...DEFAULT_RELEASE_OPTIONS, maxBytes: 1024 * 1024 * read(env, S.releaseMaxMb) },
    rollouts: loadRolloutConfig(env),
    platformServiceUrl: checked(env, S.platformServiceUrl, httpUrl),
    notify: loadNotifyConfig(env),
    alerting: loadAlertingConfig(env),
    aiops: loadAiopsConfig(env),
    cockpit: loadCockpitConfig(env),
    chat: loadChatConfig(env),
    sso: loadSsoConfig(env),
    incidentFlow: loadIncidentFlowConfig(env),
    console: { distDir: read(env, S.consoleDir) ?? BUILT_CONSOLE_DIR },
    devices: { certificateDays: read(env, S.certificateDays) },
  };
}
