import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import cron from 'node-cron';
import { DEFAULT_BATCH_SIZE, MAX_PUSH_CHANGES } from '../shared/sync/protocol.ts';
import { DEFAULT_MAX_PACKET_BYTES } from './devices/index.ts';
import { type ApplianceIdentity, readIdentity } from './identity/index.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ApplianceConfig {
  port: number;
  host: string;
  dataDir: string;
  tenantId: string;
  locationId: string;
  timezone: string;
  storeName: string;
  cloudUrl: string | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  /** The store's MQTT broker for devices; MQTT over WebSocket is always on at the API's /mqtt. */
  mqtt: MqttSettings;
  /** Sync runs when both the cloud's URL and this appliance's credential are set. */
  sync: {
    credential: string | undefined;
    batchSize: number;
    maxInFlight: number;
    schedule: string;
  };
  devices: DevicesConfig;
  /** The cloud's command link; off unless APPLIANCE_FLEET_URL is set. */
  fleet: FleetSettings | undefined;
  /**
   * What this appliance's enrolment left in `<data dir>/identity`: its certificate serves the
   * broker's TLS listener and (over mqtts) the fleet link, its credential sync, unless the
   * environment names others. Renewed before expiry while the appliance runs.
   */
  identity: ApplianceIdentity | undefined;
  vision: VisionConfig;
  /** The built operator UI served at /kiosk/: APPLIANCE_KIOSK_DIR, else the repository's build. */
  kioskDir: string;
}

export interface VisionConfig {
  /** Camera pipelines run for the registered cameras; APPLIANCE_VISION=off runs none. */
  enabled: boolean;
  /** ffmpeg for the cameras: FFMPEG_PATH, or the static build from @ffmpeg-installer/ffmpeg. */
  ffmpegPath: string | undefined;
  /** The shipped models (`<name>.onnx` + `<name>.json`); model sync installs newer ones under the data dir. */
  bundledModelsDir: string;
  snapshotsDir: string;
  snapshotBudgetBytes: number;
  /** The dining room's seats, for occupancy. */
  diningCapacity: number;
  /** A JSON file `{ "<menu item>": "<model class>" | null }` laid over the demo menu's mapping. */
  menuMappingFile: string | undefined;
}

export interface DevicesConfig {
  /** Days every telemetry sample is kept on the appliance (the cloud keeps minute summaries). */
  telemetryRetentionDays: number;
  /** How long a command passed on to a store device waits for the device's answer. */
  commandTimeoutMs: number;
}

export interface FleetSettings {
  url: string;
  prefix: string;
  /** The appliance id, read from the sync credential: the fleet broker's user name and client id. */
  applianceId: string;
  /** The sync credential, the fleet broker's password. */
  credential: string;
  tls: { keyFile: string; certFile: string; caFile: string } | undefined;
  /** The cloud's Ed25519 update key (PEM file); without it every update is refused. */
  updatePublicKeyFile: string | undefined;
}

export interface MqttSettings {
  prefix: string;
  /** Plain TCP without identity or ACL, for development: off unless APPLIANCE_MQTT_PORT is set. */
  tcpPort: number | undefined;
  /** Where the plain TCP listener binds: loopback unless APPLIANCE_MQTT_HOST says otherwise. */
  tcpHost: string;
  /** The largest packet a client may send, fixed header included; larger ones close the connection. */
  maxPacketBytes: number;
  tlsPort: number;
  /** Files of the broker's key and certificate and of the device CA; the TLS listener is off without them. */
  tls: { keyFile: string; certFile: string; caFile: string; crlFile: string | undefined } | undefined;
}

export class ApplianceConfigError extends Error {
  override name = 'ApplianceConfigError';
}

type Env = Record<string, string | undefined>;

const present = (env: Env, name: string) =>
  env[name] === undefined || env[name] === '' ? undefined : env[name];

function uuid(env: Env, name: string) {
  const raw = present(env, name);
  if (raw !== undefined && !UUID.test(raw))
    throw new ApplianceConfigError(`${name} must be a UUID, got "${raw}"`);
  return raw;
}

function requiredUuid(env: Env, name: string) {
  const value = uuid(env, name);
  if (value === undefined) throw new ApplianceConfigError(`${name} is required`);
  return value;
}

function timeZone(env: Env) {
  const zone = present(env, 'APPLIANCE_TIMEZONE') ?? 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new ApplianceConfigError(`APPLIANCE_TIMEZONE must be an IANA time zone, got "${zone}"`);
  }
  return zone;
}

function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number) {
  const raw = present(env, name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ApplianceConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return value;
}

const CREDENTIAL = /^sak_[0-9a-f-]{36}\.[A-Za-z0-9_-]{20,}$/;

function syncSettings(env: Env, identity: ApplianceIdentity | undefined): ApplianceConfig['sync'] {
  const credential = present(env, 'APPLIANCE_CLOUD_CREDENTIAL');
  if (credential !== undefined && !CREDENTIAL.test(credential))
    throw new ApplianceConfigError(
      'APPLIANCE_CLOUD_CREDENTIAL must be the sak_… credential the cloud issued at provisioning',
    );
  const enrolled = identity?.syncCredential;
  if (credential === undefined && enrolled !== undefined && !CREDENTIAL.test(enrolled))
    throw new ApplianceConfigError(`${identity!.dir}/sync.credential is not a sak_… credential`);
  const schedule = present(env, 'APPLIANCE_SYNC_SCHEDULE') ?? '* * * * *';
  if (!cron.validate(schedule))
    throw new ApplianceConfigError(`APPLIANCE_SYNC_SCHEDULE must be a cron expression, got "${schedule}"`);
  return {
    credential: credential ?? enrolled,
    batchSize: wholeNumber(env, 'APPLIANCE_SYNC_BATCH_SIZE', DEFAULT_BATCH_SIZE, 1, MAX_PUSH_CHANGES),
    maxInFlight: wholeNumber(env, 'APPLIANCE_SYNC_IN_FLIGHT', 4, 1, 32),
    schedule,
  };
}

const TLS_FILES = ['APPLIANCE_MQTT_TLS_KEY', 'APPLIANCE_MQTT_TLS_CERT', 'APPLIANCE_MQTT_TLS_CA'] as const;

function existingFile(env: Env, name: string) {
  const path = present(env, name);
  if (path !== undefined && !existsSync(path))
    throw new ApplianceConfigError(`${name}: no such file "${path}"`);
  return path;
}

/**
 * The development listener has no identity and no ACL: anyone who reaches it reads and publishes
 * every topic, so it stays on this machine unless an address is named.
 */
function devListenerHost(env: Env) {
  const host = present(env, 'APPLIANCE_MQTT_HOST') ?? '127.0.0.1';
  if (isIP(host) === 0 && host !== 'localhost')
    throw new ApplianceConfigError(
      `APPLIANCE_MQTT_HOST must be an IP address (127.0.0.1, ::1, 0.0.0.0) or localhost, got "${host}"`,
    );
  return host;
}

const KIB = 1024;

function mqttSettings(env: Env, identity: ApplianceIdentity | undefined): MqttSettings {
  const prefix = present(env, 'APPLIANCE_MQTT_PREFIX') ?? 'edge';
  if (!/^[^/+#$\s]{1,64}$/.test(prefix))
    throw new ApplianceConfigError(
      `APPLIANCE_MQTT_PREFIX must be one topic level without / + # $, got "${prefix}"`,
    );
  const [keyFile, certFile, caFile] = TLS_FILES.map((name) => existingFile(env, name));
  const given = TLS_FILES.filter((name) => present(env, name) !== undefined);
  if (given.length > 0 && given.length < TLS_FILES.length)
    throw new ApplianceConfigError(
      `${TLS_FILES.join(', ')} go together; set ${given.join(', ')} without the others`,
    );
  return {
    prefix,
    tcpPort:
      present(env, 'APPLIANCE_MQTT_PORT') === undefined
        ? undefined
        : wholeNumber(env, 'APPLIANCE_MQTT_PORT', 0, 0, 65535),
    tcpHost: devListenerHost(env),
    // From the registry's largest payload (16 KiB) to 16 MiB; the default is the broker's own.
    maxPacketBytes: wholeNumber(
      env,
      'APPLIANCE_MQTT_MAX_PACKET_BYTES',
      DEFAULT_MAX_PACKET_BYTES,
      16 * KIB,
      16 * KIB * KIB,
    ),
    tlsPort: wholeNumber(env, 'APPLIANCE_MQTT_TLS_PORT', 8883, 0, 65535),
    tls:
      keyFile && certFile && caFile
        ? { keyFile, certFile, caFile, crlFile: existingFile(env, 'APPLIANCE_MQTT_TLS_CRL') }
        : identity && {
            keyFile: identity.keyFile,
            certFile: identity.certFile,
            caFile: identity.caFile,
            crlFile: undefined,
          },
  };
}

/** The repository's (or the installed package's) models/ folder. */
const BUNDLED_MODELS_DIR = fileURLToPath(new URL('../models', import.meta.url));

/** Where `npm run kiosk:build` puts the operator UI (also right from the bundle in dist/). */
const BUILT_KIOSK_DIR = fileURLToPath(new URL('../appliance/kiosk/web/dist', import.meta.url));

function visionConfig(env: Env, dataDir: string): VisionConfig {
  const switchedOff = present(env, 'APPLIANCE_VISION');
  if (switchedOff !== undefined && switchedOff !== 'on' && switchedOff !== 'off')
    throw new ApplianceConfigError(`APPLIANCE_VISION must be on or off, got "${switchedOff}"`);
  const ffmpegPath = existingFile(env, 'FFMPEG_PATH');
  const bundledModelsDir = present(env, 'APPLIANCE_MODELS_DIR') ?? BUNDLED_MODELS_DIR;
  if (!existsSync(bundledModelsDir))
    throw new ApplianceConfigError(`APPLIANCE_MODELS_DIR: no such folder "${bundledModelsDir}"`);
  return {
    enabled: switchedOff !== 'off',
    ffmpegPath,
    bundledModelsDir,
    snapshotsDir: join(dataDir, 'snapshots'),
    snapshotBudgetBytes: wholeNumber(env, 'APPLIANCE_SNAPSHOT_BUDGET_MB', 2048, 1, 10_000_000) * 1024 * 1024,
    diningCapacity: wholeNumber(env, 'APPLIANCE_DINING_CAPACITY', 60, 0, 100_000),
    menuMappingFile: existingFile(env, 'APPLIANCE_MENU_MAPPING_FILE'),
  };
}

function devicesConfig(env: Env): DevicesConfig {
  return {
    telemetryRetentionDays: wholeNumber(env, 'APPLIANCE_TELEMETRY_RETENTION_DAYS', 7, 1, 365),
    commandTimeoutMs: wholeNumber(env, 'APPLIANCE_DEVICE_COMMAND_TIMEOUT_SECONDS', 30, 1, 3600) * 1000,
  };
}

const FLEET_TLS_FILES = [
  'APPLIANCE_FLEET_TLS_KEY',
  'APPLIANCE_FLEET_TLS_CERT',
  'APPLIANCE_FLEET_TLS_CA',
] as const;

function fleetTls(env: Env, url: string, identity: ApplianceIdentity | undefined): FleetSettings['tls'] {
  const [keyFile, certFile, caFile] = FLEET_TLS_FILES.map((name) => existingFile(env, name));
  const given = FLEET_TLS_FILES.filter((name) => present(env, name) !== undefined);
  if (given.length > 0 && given.length < FLEET_TLS_FILES.length)
    throw new ApplianceConfigError(
      `${FLEET_TLS_FILES.join(', ')} go together; set ${given.join(', ')} without the others`,
    );
  if (keyFile && certFile && caFile) return { keyFile, certFile, caFile };
  // Over TLS the enrolled appliance shows the certificate it holds; in the clear it has none to show.
  if (identity && /^(mqtts|wss):/.test(url))
    return { keyFile: identity.keyFile, certFile: identity.certFile, caFile: identity.caFile };
  return undefined;
}

function fleetSettings(
  env: Env,
  credential: string | undefined,
  identity: ApplianceIdentity | undefined,
): FleetSettings | undefined {
  const updatePublicKeyFile = existingFile(env, 'APPLIANCE_UPDATE_PUBLIC_KEY');
  const url = present(env, 'APPLIANCE_FLEET_URL');
  if (url === undefined) return undefined;
  if (!/^(mqtts?|wss?):\/\/[^\s]+$/.test(url))
    throw new ApplianceConfigError(
      `APPLIANCE_FLEET_URL must be an mqtt://, mqtts://, ws:// or wss:// URL, got "${url}"`,
    );
  if (credential === undefined)
    throw new ApplianceConfigError(
      'APPLIANCE_FLEET_URL needs APPLIANCE_CLOUD_CREDENTIAL or an enrolment (APPLIANCE_ENROLLMENT_TOKEN): the appliance signs in to the fleet broker with its credential',
    );
  const prefix = present(env, 'APPLIANCE_FLEET_PREFIX') ?? 'edge';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(prefix))
    throw new ApplianceConfigError(
      `APPLIANCE_FLEET_PREFIX must be letters, digits, _ or - (at most 64), got "${prefix}"`,
    );
  // `sak_<appliance id>.<secret>`, checked by syncSettings: the id is what the cloud knows it by.
  const applianceId = credential.slice('sak_'.length, credential.indexOf('.'));
  return { url, prefix, applianceId, credential, tls: fleetTls(env, url, identity), updatePublicKeyFile };
}

/** Reads and checks the appliance's environment; a bad value stops start-up naming the variable. */
export function loadApplianceConfig(env: Env): ApplianceConfig {
  const rawPort = present(env, 'APPLIANCE_PORT') ?? '8090';
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ApplianceConfigError(`APPLIANCE_PORT must be a whole number from 0 to 65535, got "${rawPort}"`);
  }
  const cloudUrl = cloudUrlOf(env);
  const logLevel = logLevelOf(env);
  const dataDir = present(env, 'APPLIANCE_DATA_DIR') ?? DEFAULT_DATA_DIR;
  const identity = readIdentity(dataDir);
  const sync = syncSettings(env, identity);
  return {
    port,
    // The store's LAN reaches the appliance: POS terminals and kitchen screens are other machines.
    host: present(env, 'APPLIANCE_HOST') ?? '0.0.0.0',
    dataDir,
    tenantId: requiredUuid(env, 'TENANT_ID'),
    locationId: requiredUuid(env, 'LOCATION_ID'),
    timezone: timeZone(env),
    storeName: present(env, 'APPLIANCE_STORE_NAME') ?? 'Store',
    cloudUrl,
    logLevel,
    mqtt: mqttSettings(env, identity),
    sync,
    devices: devicesConfig(env),
    fleet: fleetSettings(env, sync.credential, identity),
    identity,
    vision: visionConfig(env, dataDir),
    kioskDir: present(env, 'APPLIANCE_KIOSK_DIR') ?? BUILT_KIOSK_DIR,
  };
}

const DEFAULT_DATA_DIR = './data/appliance';

function cloudUrlOf(env: Env) {
  const cloudUrl = present(env, 'CLOUD_URL');
  if (cloudUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(cloudUrl))
    throw new ApplianceConfigError(`CLOUD_URL must be an http:// or https:// URL, got "${cloudUrl}"`);
  return cloudUrl;
}

function logLevelOf(env: Env) {
  const logLevel = present(env, 'LOG_LEVEL') ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel))
    throw new ApplianceConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  return logLevel as ApplianceConfig['logLevel'];
}

/**
 * What enrolment needs, read before the rest of the configuration (which takes the files the
 * enrolment leaves): the data dir, the cloud, and the one-time token registration gave.
 */
export function loadEnrolmentSettings(env: Env) {
  const token = present(env, 'APPLIANCE_ENROLLMENT_TOKEN');
  if (token !== undefined && !/^det_[A-Za-z0-9_-]{20,}$/.test(token))
    throw new ApplianceConfigError(
      'APPLIANCE_ENROLLMENT_TOKEN must be the det_… token the cloud gave when the appliance was registered',
    );
  const cloudUrl = cloudUrlOf(env);
  if (token !== undefined && cloudUrl === undefined)
    throw new ApplianceConfigError('APPLIANCE_ENROLLMENT_TOKEN needs CLOUD_URL: the token is traded there');
  return {
    dataDir: present(env, 'APPLIANCE_DATA_DIR') ?? DEFAULT_DATA_DIR,
    cloudUrl,
    enrollmentToken: token,
    logLevel: logLevelOf(env),
  };
}
