import { join } from 'node:path';
import { type Env, flag, integer, oneOf } from '../config-env.ts';
import { ConfigError } from '../config-error.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export type StorageConfig =
  | { kind: 'disk'; dir: string }
  | {
      kind: 's3';
      bucket: string;
      /** An S3-compatible endpoint (MinIO, R2, s3rver); unset means AWS itself. */
      endpoint: string | undefined;
      region: string;
      forcePathStyle: boolean;
    };

export interface EdgeConfig {
  port: number;
  host: string;
  /** Where `/api/v1/*` and WebSocket upgrades go: `http(s)://host:port`. */
  gatewayUrl: URL;
  /** Tenants are `<slug>.<serviceDomain>`. */
  serviceDomain: string;
  storage: StorageConfig;
  /** Shares the limiter's windows between router replicas; in memory when absent. */
  redisUrl: string | undefined;
  redisKeyPrefix: string;
  connectTimeoutMs: number;
  upstreamTimeoutMs: number;
  logLevel: (typeof LOG_LEVELS)[number];
}

export { ConfigError };

/** Every variable the edge router reads: the README's table. */
export const EDGE_VARIABLES = [
  'EDGE_PORT',
  'EDGE_HOST',
  'GATEWAY_URL',
  'SERVICE_DOMAIN',
  'DATA_DIR',
  'STATIC_DIR',
  'STATIC_S3_BUCKET',
  'STATIC_S3_ENDPOINT',
  'STATIC_S3_REGION',
  'STATIC_S3_FORCE_PATH_STYLE',
  'REDIS_URL',
  'EDGE_REDIS_KEY_PREFIX',
  'EDGE_CONNECT_TIMEOUT_MS',
  'EDGE_UPSTREAM_TIMEOUT_MS',
  'LOG_LEVEL',
] as const;

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** http(s)://host:port with nothing after it: the router appends each request's own path. */
function gatewayUrl(env: Env) {
  const raw = env.GATEWAY_URL;
  if (raw === undefined || raw === '')
    throw new ConfigError('GATEWAY_URL is required: the cloud gateway as http(s)://host:port');
  const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
  const bare = parsed && (parsed.pathname === '/' || parsed.pathname === '') && !parsed.search;
  if (!parsed || !/^https?:$/.test(parsed.protocol) || !parsed.port || !bare || parsed.username)
    throw new ConfigError(`GATEWAY_URL must be http(s)://host:port, got "${raw}"`);
  return parsed;
}

function serviceDomain(env: Env) {
  const domain = (env.SERVICE_DOMAIN || 'localhost').toLowerCase();
  if (!HOST_NAME.test(domain))
    throw new ConfigError(`SERVICE_DOMAIN must be a host name like example.com, got "${domain}"`);
  return domain;
}

function httpUrl(env: Env, name: string) {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!URL.canParse(raw) || !/^https?:\/\//.test(raw))
    throw new ConfigError(`${name} must be an http:// or https:// URL, got "${raw}"`);
  return raw;
}

/** S3 when a bucket is named (credentials from the AWS SDK's default chain), else a directory. */
function storage(env: Env): StorageConfig {
  const bucket = env.STATIC_S3_BUCKET;
  if (bucket === undefined || bucket === '') {
    const dir = env.STATIC_DIR || join(env.DATA_DIR || './data', 'static');
    return { kind: 'disk', dir };
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(`STATIC_S3_BUCKET must be an S3 bucket name, got "${bucket}"`);
  const region = env.STATIC_S3_REGION || 'us-east-1';
  if (!/^[a-z0-9-]{1,32}$/.test(region))
    throw new ConfigError(`STATIC_S3_REGION must be a region name like us-east-1, got "${region}"`);
  return {
    kind: 's3',
    bucket,
    endpoint: httpUrl(env, 'STATIC_S3_ENDPOINT'),
    region,
    forcePathStyle: flag(env, 'STATIC_S3_FORCE_PATH_STYLE', false),
  };
}

function redisUrl(env: Env) {
  const raw = env.REDIS_URL;
  if (raw === undefined || raw === '') return undefined;
  if (!/^rediss?:\/\//.test(raw))
    throw new ConfigError(
      `REDIS_URL must be a redis:// or rediss:// URL, got "${raw.replace(/\/\/[^@]*@/, '//***@')}"`,
    );
  return raw;
}

/**
 * Reads and checks the edge router's environment; a bad value stops start-up with a ConfigError
 * naming the variable. Variables of other processes sharing the environment are ignored.
 */
export function loadEdgeConfig(env: Env): EdgeConfig {
  const host = env.EDGE_HOST || '127.0.0.1';
  if (!/^[\w.:-]+$/.test(host))
    throw new ConfigError(`EDGE_HOST must be a host name or address, got "${host}"`);
  const prefix = env.EDGE_REDIS_KEY_PREFIX || 'edge:ratelimit:';
  if (!/^[\w:.-]{1,64}$/.test(prefix))
    throw new ConfigError(
      `EDGE_REDIS_KEY_PREFIX must be letters, digits, _ : . or - (at most 64), got "${prefix}"`,
    );
  return {
    port: integer(env, 'EDGE_PORT', 8000, 0, 65535),
    host,
    gatewayUrl: gatewayUrl(env),
    serviceDomain: serviceDomain(env),
    storage: storage(env),
    redisUrl: redisUrl(env),
    redisKeyPrefix: prefix,
    connectTimeoutMs: integer(env, 'EDGE_CONNECT_TIMEOUT_MS', 2000, 1, 60_000),
    upstreamTimeoutMs: integer(env, 'EDGE_UPSTREAM_TIMEOUT_MS', 30_000, 1, 3_600_000),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
  };
}
