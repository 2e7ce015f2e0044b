import { join } from 'node:path';
import { type Settings, settingNames, type TextSetting } from '../../shared/config/settings.ts';
import { type Env, read } from '../config-env.ts';
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

const text = <D extends string | undefined>(name: string, fallback: D, format: string, description: string) =>
  ({ name, type: 'text', default: fallback, format, description }) as const;
const HTTP_URL = 'an http:// or https:// URL';

/** Every variable the edge router reads: its loader's table and the configuration reference's. */
export const EDGE_SETTINGS = {
  port: {
    name: 'EDGE_PORT',
    type: 'integer',
    default: 8000,
    min: 0,
    max: 65535,
    description: 'HTTP port (`0`: any free port, logged)',
  },
  host: text('EDGE_HOST', '127.0.0.1', 'a host name or address', 'address to listen on'),
  gatewayUrl: {
    ...text(
      'GATEWAY_URL',
      undefined,
      'http(s)://host:port, nothing after it',
      'the cloud gateway requests are forwarded to',
    ),
    defaultText: 'required',
  },
  serviceDomain: text(
    'SERVICE_DOMAIN',
    'localhost',
    'a host name like example.com',
    'tenants are `<slug>.<SERVICE_DOMAIN>`',
  ),
  dataDir: text(
    'DATA_DIR',
    './data',
    'a folder',
    "the cloud's data folder, under which `static/` is the object store on disk",
  ),
  staticDir: {
    ...text('STATIC_DIR', undefined, 'a folder', 'the object store on disk, when no bucket is named'),
    defaultText: '`$DATA_DIR/static`',
  },
  bucket: text(
    'STATIC_S3_BUCKET',
    undefined,
    'an S3 bucket name',
    "serve `/static/*` from this S3 bucket instead; credentials from the AWS SDK's default chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, profile, instance role)",
  ),
  endpoint: {
    ...text('STATIC_S3_ENDPOINT', undefined, HTTP_URL, 'an S3-compatible endpoint (MinIO, R2, s3rver)'),
    defaultText: 'unset (AWS)',
  },
  region: text('STATIC_S3_REGION', 'us-east-1', 'a region name like us-east-1', "the bucket's region"),
  forcePathStyle: {
    name: 'STATIC_S3_FORCE_PATH_STYLE',
    type: 'flag',
    default: false,
    description: '`http://endpoint/bucket/key` addressing (MinIO and s3rver need it)',
  },
  redisUrl: {
    ...text(
      'REDIS_URL',
      undefined,
      'a redis:// or rediss:// URL',
      "the limiter's windows shared by every router replica (in memory when unset)",
    ),
    secret: true,
  },
  redisKeyPrefix: text(
    'EDGE_REDIS_KEY_PREFIX',
    'edge:ratelimit:',
    'letters, digits, _ : . or - (at most 64)',
    "prefix of the limiter's keys in that Redis",
  ),
  connectTimeoutMs: {
    name: 'EDGE_CONNECT_TIMEOUT_MS',
    type: 'integer',
    default: 2000,
    min: 1,
    max: 60_000,
    description: 'connecting to the gateway (ms); beyond it, 504',
  },
  upstreamTimeoutMs: {
    name: 'EDGE_UPSTREAM_TIMEOUT_MS',
    type: 'integer',
    default: 30_000,
    min: 1,
    max: 3_600_000,
    description:
      "the gateway's silence (ms) before its answer's headers, or between two pieces of its body; beyond it, 504 (or the connection is cut once the answer has begun)",
  },
  logLevel: {
    name: 'LOG_LEVEL',
    type: 'enum',
    values: LOG_LEVELS,
    default: 'info',
    description: 'the least severe level logged (pino, JSON lines)',
  },
} as const satisfies Settings;

const S = EDGE_SETTINGS;

/** Every variable the edge router reads. */
export const EDGE_VARIABLES = settingNames(EDGE_SETTINGS);

const HOST_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** http(s)://host:port with nothing after it: the router appends each request's own path. */
function gatewayUrl(env: Env) {
  const raw = read(env, S.gatewayUrl);
  if (raw === undefined)
    throw new ConfigError('GATEWAY_URL is required: the cloud gateway as http(s)://host:port');
  const parsed = URL.canParse(raw) ? new URL(raw) : undefined;
  const bare = parsed && (parsed.pathname === '/' || parsed.pathname === '') && !parsed.search;
  if (!parsed || !/^https?:$/.test(parsed.protocol) || !parsed.port || !bare || parsed.username)
    throw new ConfigError(`GATEWAY_URL must be http(s)://host:port, got "${raw}"`);
  return parsed;
}

function serviceDomain(env: Env) {
  const domain = read(env, S.serviceDomain).toLowerCase();
  if (!HOST_NAME.test(domain))
    throw new ConfigError(`SERVICE_DOMAIN must be a host name like example.com, got "${domain}"`);
  return domain;
}

function httpUrl(env: Env, setting: TextSetting) {
  const { name } = setting;
  const raw = read(env, setting);
  if (raw === undefined) return undefined;
  if (!URL.canParse(raw) || !/^https?:\/\//.test(raw))
    throw new ConfigError(`${name} must be an http:// or https:// URL, got "${raw}"`);
  return raw;
}

/** S3 when a bucket is named (credentials from the AWS SDK's default chain), else a directory. */
function storage(env: Env): StorageConfig {
  const bucket = read(env, S.bucket);
  if (bucket === undefined) {
    const dir = read(env, S.staticDir) ?? join(read(env, S.dataDir), 'static');
    return { kind: 'disk', dir };
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new ConfigError(`STATIC_S3_BUCKET must be an S3 bucket name, got "${bucket}"`);
  const region = read(env, S.region);
  if (!/^[a-z0-9-]{1,32}$/.test(region))
    throw new ConfigError(`STATIC_S3_REGION must be a region name like us-east-1, got "${region}"`);
  return {
    kind: 's3',
    bucket,
    endpoint: httpUrl(env, S.endpoint),
    region,
    forcePathStyle: read(env, S.forcePathStyle),
  };
}

function redisUrl(env: Env) {
  const raw = read(env, S.redisUrl);
  if (raw === undefined) return undefined;
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
  const host = read(env, S.host);
  if (!/^[\w.:-]+$/.test(host))
    throw new ConfigError(`EDGE_HOST must be a host name or address, got "${host}"`);
  const prefix = read(env, S.redisKeyPrefix);
  if (!/^[\w:.-]{1,64}$/.test(prefix))
    throw new ConfigError(
      `EDGE_REDIS_KEY_PREFIX must be letters, digits, _ : . or - (at most 64), got "${prefix}"`,
    );
  return {
    port: read(env, S.port),
    host,
    gatewayUrl: gatewayUrl(env),
    serviceDomain: serviceDomain(env),
    storage: storage(env),
    redisUrl: redisUrl(env),
    redisKeyPrefix: prefix,
    connectTimeoutMs: read(env, S.connectTimeoutMs),
    upstreamTimeoutMs: read(env, S.upstreamTimeoutMs),
    logLevel: read(env, S.logLevel),
  };
}
