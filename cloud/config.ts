import { isIP } from 'node:net';
import { AIOPS_VARIABLES, type AiopsConfig, loadAiopsConfig } from './aiops/config.ts';
import { ALERTING_VARIABLES, type AlertingConfig, loadAlertingConfig } from './alerting/config.ts';
import { CHAT_VARIABLES, type ChatConfig, loadChatConfig } from './chat/config.ts';
import { COCKPIT_VARIABLES, type CockpitConfig, loadCockpitConfig } from './cockpit/config.ts';
import { type Env, flag, integer, oneOf } from './config-env.ts';
import { ConfigError } from './config-error.ts';
import { isPostgresUrl } from './db/index.ts';
import { DEFAULT_DEVICE_OPTIONS, type DeviceOptions } from './devices/index.ts';
import type { FleetConfig } from './fleet/index.ts';
import {
  INCIDENT_FLOW_VARIABLES,
  type IncidentFlowConfig,
  loadIncidentFlowConfig,
} from './incidents/config.ts';
import { loadNotifyConfig, NOTIFY_VARIABLES, type NotifyConfig } from './notify/config.ts';
import { loadSsoConfig, SSO_VARIABLES, type SsoConfig } from './sso/config.ts';
import { TIERS, type Tier } from './tenancy/tables.ts';
import { DEFAULT_VISION_MODEL_OPTIONS, type VisionModelOptions } from './vision/models/index.ts';
import { DEFAULT_WEBHOOK_OPTIONS, type WebhookOptions } from './webhooks/service.ts';

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
  /** Where billing forwards pause and resume; unset: the cloud's own tenancy, in process. */
  platformServiceUrl: string | undefined;
  notify: NotifyConfig;
  alerting: AlertingConfig;
  aiops: AiopsConfig;
  cockpit: CockpitConfig;
  chat: ChatConfig;
  incidentFlow: IncidentFlowConfig;
  sso: SsoConfig;
}

export { ConfigError };

/** Every variable the cloud reads, with its default: the README's configuration table. */
export const CLOUD_VARIABLES = [
  'CLOUD_PORT',
  'CLOUD_HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'DATABASE_SCHEMA',
  'REDIS_URL',
  'LOG_LEVEL',
  'CLOUD_TRUST_PROXY',
  'CLOUD_RATE_LIMIT',
  'CLOUD_ANONYMOUS_TIER',
  'CLOUD_REFRESH_TOKEN_DAYS',
  'CLOUD_SYNC_FEED_RETENTION_DAYS',
  'CLOUD_SYNC_MAX_CONCURRENT_PUSHES',
  'CLOUD_KEY_ROTATION_DAYS',
  'CLOUD_PASSWORD_HASH_KIB',
  'CLOUD_PASSWORD_HASH_PASSES',
  'WEBHOOK_ALLOW_PRIVATE_URLS',
  'WEBHOOK_WORKER',
  'WEBHOOK_DISABLE_AFTER_HOURS',
  'WEBHOOK_SECRET_GRACE_HOURS',
  'WEBHOOK_MAX_LANES',
  'WEBHOOK_OPERATIONS_PER_MINUTE',
  'CLOUD_DEVICE_CERT_DAYS',
  'CLOUD_FLEET',
  'CLOUD_FLEET_URL',
  'CLOUD_FLEET_USERNAME',
  'CLOUD_FLEET_PASSWORD',
  'CLOUD_FLEET_PORT',
  'CLOUD_FLEET_TLS_PORT',
  'CLOUD_FLEET_TLS_HOSTS',
  'CLOUD_FLEET_PREFIX',
  'CLOUD_PUBLIC_URL',
  'CLOUD_VISION_MODEL_MAX_MB',
  'PLATFORM_SERVICE_URL',
  ...NOTIFY_VARIABLES,
  ...ALERTING_VARIABLES,
  ...AIOPS_VARIABLES,
  ...COCKPIT_VARIABLES,
  ...CHAT_VARIABLES,
  ...SSO_VARIABLES,
  ...INCIDENT_FLOW_VARIABLES,
] as const;

function url(env: Env, name: string, accepts: (value: string) => boolean, expected: string) {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!accepts(raw))
    throw new ConfigError(`${name} must be ${expected}, got "${raw.replace(/\/\/[^@]*@/, '//***@')}"`);
  return raw;
}

/**
 * A plain lower-case identifier: it reaches PostgreSQL unquoted in the connection's search path, so
 * nothing else may pass, and it makes no sense without PostgreSQL.
 */
function schemaName(env: Env, databaseUrl: string | undefined) {
  const raw = env.DATABASE_SCHEMA;
  if (raw === undefined || raw === '') return undefined;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(raw))
    throw new ConfigError(
      `DATABASE_SCHEMA must be a lower-case identifier (letters, digits, _; at most 63), got "${raw}"`,
    );
  if (databaseUrl === undefined)
    throw new ConfigError('DATABASE_SCHEMA needs a postgres:// DATABASE_URL (SQLite has no schemas)');
  return raw;
}

/** The names appliances reach the fleet broker by, for its TLS certificate. */
function fleetTlsHosts(env: Env) {
  const raw = env.CLOUD_FLEET_TLS_HOSTS || 'localhost,127.0.0.1';
  const hosts = raw.split(',').map((host) => host.trim());
  const bad = hosts.find(
    (host) => !(isIP(host) || /^(?=.{1,253}$)[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/.test(host)),
  );
  if (bad !== undefined)
    throw new ConfigError(
      `CLOUD_FLEET_TLS_HOSTS must be host names or IP addresses separated by commas, got "${bad}"`,
    );
  return {
    dns: hosts.filter((host) => !isIP(host)),
    ip: hosts.filter((host) => isIP(host)),
  };
}

function fleetConfig(env: Env, host: string): CloudConfig['fleet'] {
  const prefix = env.CLOUD_FLEET_PREFIX || 'edge';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(prefix))
    throw new ConfigError(`CLOUD_FLEET_PREFIX must be letters, digits, _ or - (at most 64), got "${prefix}"`);
  return {
    enabled: flag(env, 'CLOUD_FLEET', true),
    url: url(
      env,
      'CLOUD_FLEET_URL',
      (v) => /^(mqtts?|wss?):\/\//.test(v),
      'an mqtt://, mqtts://, ws:// or wss:// URL',
    ),
    username: env.CLOUD_FLEET_USERNAME || undefined,
    password: env.CLOUD_FLEET_PASSWORD || undefined,
    // 0: any free port (the embedded broker's address is logged); set it for appliances to find.
    port: integer(env, 'CLOUD_FLEET_PORT', 0, 0, 65535),
    tlsPort: integer(env, 'CLOUD_FLEET_TLS_PORT', 0, 0, 65535),
    tlsHosts: fleetTlsHosts(env),
    host,
    prefix,
    dispatchMs: 1000,
  };
}

function webhookOptions(env: Env): CloudConfig['webhooks'] {
  const defaults = DEFAULT_WEBHOOK_OPTIONS;
  return {
    ...defaults,
    // Loopback and private addresses are how an attacker reaches our own network (SSRF): only
    // tests and local development may allow them.
    allowPrivateUrls: flag(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
    runWorker: flag(env, 'WEBHOOK_WORKER', true),
    disableAfterHours: integer(env, 'WEBHOOK_DISABLE_AFTER_HOURS', defaults.disableAfterHours, 1, 24 * 30),
    rotationGraceSeconds: 3600 * integer(env, 'WEBHOOK_SECRET_GRACE_HOURS', 24, 1, 24 * 30),
    maxLanes: integer(env, 'WEBHOOK_MAX_LANES', defaults.maxLanes, 1, 10_000),
    operationsPerMinute: integer(
      env,
      'WEBHOOK_OPERATIONS_PER_MINUTE',
      defaults.operationsPerMinute,
      1,
      100_000,
    ),
  };
}

/**
 * Reads and checks the cloud's environment. Unrelated variables are ignored (the environment is
 * shared with other software, some of it using CLOUD_* names too); a bad value of ours stops start-up.
 */
export function loadCloudConfig(env: Env): CloudConfig {
  const host = env.CLOUD_HOST || '127.0.0.1';
  if (!/^[\w.:-]+$/.test(host))
    throw new ConfigError(`CLOUD_HOST must be a host name or address, got "${host}"`);
  const databaseUrl = url(
    env,
    'DATABASE_URL',
    isPostgresUrl,
    'a postgres:// URL (leave it unset for SQLite in DATA_DIR)',
  );
  return {
    port: integer(env, 'CLOUD_PORT', 8080, 0, 65535),
    host,
    dataDir: env.DATA_DIR || './data',
    databaseUrl,
    databaseSchema: schemaName(env, databaseUrl),
    redisUrl: url(env, 'REDIS_URL', (v) => /^rediss?:\/\//.test(v), 'a redis:// or rediss:// URL'),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    trustProxy: flag(env, 'CLOUD_TRUST_PROXY', false),
    rateLimit: flag(env, 'CLOUD_RATE_LIMIT', true),
    anonymousTier: oneOf(env, 'CLOUD_ANONYMOUS_TIER', TIERS, 'professional'),
    refreshTtlSeconds: 86_400 * integer(env, 'CLOUD_REFRESH_TOKEN_DAYS', 30, 1, 365),
    keyRotationSeconds: 86_400 * integer(env, 'CLOUD_KEY_ROTATION_DAYS', 30, 1, 365),
    hashing: {
      memoryCost: integer(env, 'CLOUD_PASSWORD_HASH_KIB', 19_456, 1024, 1_048_576),
      timeCost: integer(env, 'CLOUD_PASSWORD_HASH_PASSES', 2, 1, 10),
    },
    sync: {
      feedRetentionDays: integer(env, 'CLOUD_SYNC_FEED_RETENTION_DAYS', 30, 1, 3650),
      maxConcurrentPushes: integer(env, 'CLOUD_SYNC_MAX_CONCURRENT_PUSHES', 8, 1, 256),
    },
    webhooks: webhookOptions(env),
    fleet: fleetConfig(env, host),
    publicUrl: url(
      env,
      'CLOUD_PUBLIC_URL',
      (v) => URL.canParse(v) && /^https?:\/\//.test(v),
      'an http:// or https:// URL',
    ),
    visionModels: {
      maxBytes:
        1024 *
        1024 *
        integer(
          env,
          'CLOUD_VISION_MODEL_MAX_MB',
          DEFAULT_VISION_MODEL_OPTIONS.maxBytes / 1024 / 1024,
          1,
          2048,
        ),
    },
    platformServiceUrl: url(
      env,
      'PLATFORM_SERVICE_URL',
      (v) => URL.canParse(v) && /^https?:\/\//.test(v),
      'an http:// or https:// URL',
    ),
    notify: loadNotifyConfig(env),
    alerting: loadAlertingConfig(env),
    aiops: loadAiopsConfig(env),
    cockpit: loadCockpitConfig(env),
    chat: loadChatConfig(env),
    sso: loadSsoConfig(env),
    incidentFlow: loadIncidentFlowConfig(env),
    devices: {
      // 825 days is the longest any TLS client still accepts for a leaf certificate.
      certificateDays: integer(env, 'CLOUD_DEVICE_CERT_DAYS', DEFAULT_DEVICE_OPTIONS.certificateDays, 1, 825),
    },
  };
}
