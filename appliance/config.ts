import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import cron from 'node-cron';
import { type Settings, settingsReader } from '../shared/config/settings.ts';
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

const read = settingsReader((message) => new ApplianceConfigError(message));

const KIB = 1024;
const FLEET_URL = 'an mqtt://, mqtts://, ws:// or wss:// URL';
const file = (name: string, description: string, defaultText?: string) =>
  ({ name, type: 'text', default: undefined, format: 'a PEM file', description, defaultText }) as const;

/** Every variable the appliance reads: its loader's table and the configuration reference's. */
export const APPLIANCE_SETTINGS = {
  tenantId: {
    name: 'TENANT_ID',
    type: 'text',
    default: undefined,
    defaultText: 'required',
    format: 'a UUID',
    description: 'the cloud tenant whose store this appliance serves',
  },
  locationId: {
    name: 'LOCATION_ID',
    type: 'text',
    default: undefined,
    defaultText: 'required',
    format: 'a UUID',
    description: 'the cloud location (store) this appliance serves',
  },
  port: {
    name: 'APPLIANCE_PORT',
    type: 'integer',
    default: 8090,
    min: 0,
    max: 65535,
    description: 'local API port (`0`: any free port)',
  },
  host: {
    name: 'APPLIANCE_HOST',
    type: 'text',
    default: '0.0.0.0',
    format: 'an address',
    description: "where the local API listens: the store's LAN reaches it (POS terminals, kitchen screens)",
  },
  dataDir: {
    name: 'APPLIANCE_DATA_DIR',
    type: 'text',
    default: './data/appliance',
    format: 'a folder',
    description: "the store's SQLite replica (`appliance.sqlite`), its identity, models and snapshots",
  },
  storeName: {
    name: 'APPLIANCE_STORE_NAME',
    type: 'text',
    default: 'Store',
    format: 'text',
    description: "the location's name, on first start",
  },
  timezone: {
    name: 'APPLIANCE_TIMEZONE',
    type: 'text',
    default: 'UTC',
    format: 'an IANA time zone',
    description: "the location's time zone, on first start (business days follow it)",
  },
  cloudUrl: {
    name: 'CLOUD_URL',
    type: 'text',
    default: undefined,
    format: 'an http:// or https:// URL',
    description: 'the cloud: its JWKS lets cloud-issued tokens in (cached for offline use); sync goes there',
  },
  enrollmentToken: {
    name: 'APPLIANCE_ENROLLMENT_TOKEN',
    type: 'text',
    default: undefined,
    format: 'the `det_…` token from registering the appliance',
    secret: true,
    description:
      'with `CLOUD_URL`, traded once at start for the appliance\'s certificate and sync credential (register it with `POST /v1/mdm/devices`, `device_type: "appliance"`)',
  },
  credential: {
    name: 'APPLIANCE_CLOUD_CREDENTIAL',
    type: 'text',
    default: undefined,
    defaultText: "the enrolment's",
    format: 'a `sak_…` credential',
    secret: true,
    description:
      'the sync credential (from enrolment, or from `POST /v1/sync/appliances`); with `CLOUD_URL`, turns sync on',
  },
  batchSize: {
    name: 'APPLIANCE_SYNC_BATCH_SIZE',
    type: 'integer',
    default: DEFAULT_BATCH_SIZE,
    min: 1,
    max: MAX_PUSH_CHANGES,
    description: 'changes per sync push',
  },
  maxInFlight: {
    name: 'APPLIANCE_SYNC_IN_FLIGHT',
    type: 'integer',
    default: 4,
    min: 1,
    max: 32,
    description: 'sync push batches in flight at once',
  },
  schedule: {
    name: 'APPLIANCE_SYNC_SCHEDULE',
    type: 'text',
    default: '* * * * *',
    format: 'a cron expression',
    description: 'the periodic sync round (pushes also follow every write within ~150 ms)',
  },
  mqttPrefix: {
    name: 'APPLIANCE_MQTT_PREFIX',
    type: 'text',
    default: 'edge',
    format: 'one topic level without / + # $',
    description: 'first level of the device topics',
  },
  mqttPort: {
    name: 'APPLIANCE_MQTT_PORT',
    type: 'integer',
    default: undefined,
    min: 0,
    max: 65535,
    description: 'a plain TCP listener for development: no identity, no ACL (off when unset)',
  },
  mqttHost: {
    name: 'APPLIANCE_MQTT_HOST',
    type: 'text',
    default: '127.0.0.1',
    format: 'an IP address or localhost',
    description:
      'where the development listener binds; with no identity or ACL it stays on this machine unless named here (the TLS listener binds `APPLIANCE_HOST`)',
  },
  // From the registry's largest payload (16 KiB) to 16 MiB; the default is the broker's own.
  maxPacketBytes: {
    name: 'APPLIANCE_MQTT_MAX_PACKET_BYTES',
    type: 'integer',
    default: DEFAULT_MAX_PACKET_BYTES,
    min: 16 * KIB,
    max: 16 * KIB * KIB,
    description:
      'the largest MQTT packet a client may send, fixed header included; a larger one closes its connection on its header',
  },
  mqttTlsPort: {
    name: 'APPLIANCE_MQTT_TLS_PORT',
    type: 'integer',
    default: 8883,
    min: 0,
    max: 65535,
    description: "the devices' TLS listener (client certificates of the device CA)",
  },
  mqttTlsKey: file(
    'APPLIANCE_MQTT_TLS_KEY',
    "the store broker's TLS key; with `_CERT` and `_CA` (together), else the enrolled certificate's; the TLS listener is off with neither",
    "the enrolment's",
  ),
  mqttTlsCert: file('APPLIANCE_MQTT_TLS_CERT', "the store broker's TLS certificate", "the enrolment's"),
  mqttTlsCa: file('APPLIANCE_MQTT_TLS_CA', 'the device CA devices are checked against', "the enrolment's"),
  mqttTlsCrl: file(
    'APPLIANCE_MQTT_TLS_CRL',
    "the device CA's CRL: certificates on it are refused at connect",
  ),
  telemetryRetentionDays: {
    name: 'APPLIANCE_TELEMETRY_RETENTION_DAYS',
    type: 'integer',
    default: 7,
    min: 1,
    max: 365,
    description:
      'days every device telemetry sample is kept on the appliance; the cloud gets minute summaries',
  },
  commandTimeoutSeconds: {
    name: 'APPLIANCE_DEVICE_COMMAND_TIMEOUT_SECONDS',
    type: 'integer',
    default: 30,
    min: 1,
    max: 3600,
    description: "how long a command passed on to a store device (a restart) waits for the device's answer",
  },
  fleetUrl: {
    name: 'APPLIANCE_FLEET_URL',
    type: 'text',
    default: undefined,
    format: FLEET_URL,
    description:
      "the cloud's fleet broker (unset: no fleet link); needs a credential: the appliance signs in with the id in it (`sak_<id>.…`) as user name and the credential as password",
  },
  fleetPrefix: {
    name: 'APPLIANCE_FLEET_PREFIX',
    type: 'text',
    default: 'edge',
    format: 'letters, digits, _ or - (at most 64)',
    description: "the fleet topics' prefix (the cloud's `CLOUD_FLEET_PREFIX`)",
  },
  fleetTlsKey: file(
    'APPLIANCE_FLEET_TLS_KEY',
    "the appliance's key for the fleet link; with `_CERT` and `_CA` (together)",
    "the enrolment's, over `mqtts://` and `wss://`",
  ),
  fleetTlsCert: file(
    'APPLIANCE_FLEET_TLS_CERT',
    "the appliance's certificate for the fleet link",
    "the enrolment's",
  ),
  fleetTlsCa: file('APPLIANCE_FLEET_TLS_CA', "the fleet broker's CA", "the enrolment's"),
  updatePublicKey: file(
    'APPLIANCE_UPDATE_PUBLIC_KEY',
    "the cloud's Ed25519 update key; without it every over-the-air update is refused",
  ),
  vision: {
    name: 'APPLIANCE_VISION',
    type: 'enum',
    values: ['on', 'off'],
    default: 'on',
    description: '`off` runs no camera pipeline (cameras can still be registered)',
  },
  ffmpegPath: {
    name: 'FFMPEG_PATH',
    type: 'text',
    default: undefined,
    defaultText: "`@ffmpeg-installer/ffmpeg`'s build",
    format: 'a file',
    description: 'the ffmpeg the cameras are decoded with',
  },
  modelsDir: {
    name: 'APPLIANCE_MODELS_DIR',
    type: 'text',
    default: undefined,
    defaultText: "the package's `models/`",
    format: 'a folder',
    description:
      'the bundled detection models; versions from model sync go under `<APPLIANCE_DATA_DIR>/models/` and take precedence',
  },
  snapshotBudgetMb: {
    name: 'APPLIANCE_SNAPSHOT_BUDGET_MB',
    type: 'integer',
    default: 2048,
    min: 1,
    max: 10_000_000,
    description:
      'disk (MB) for snapshots under `<APPLIANCE_DATA_DIR>/snapshots/` (oldest removed first; `video_retention_days` also applies)',
  },
  diningCapacity: {
    name: 'APPLIANCE_DINING_CAPACITY',
    type: 'integer',
    default: 60,
    min: 0,
    max: 100_000,
    description: "the dining room's seats, for occupancy",
  },
  menuMappingFile: {
    name: 'APPLIANCE_MENU_MAPPING_FILE',
    type: 'text',
    default: undefined,
    format: 'a JSON file `{ "<menu item>": "<model class>" | null }`',
    description: "laid over the demo menu's item-to-class mapping for order verification",
  },
  kioskDir: {
    name: 'APPLIANCE_KIOSK_DIR',
    type: 'text',
    default: undefined,
    defaultText: '`appliance/kiosk/web/dist`',
    format: 'a folder',
    description:
      'the built operator UI served at `/kiosk/` (503 `KIOSK_NOT_BUILT` with what to run when it is missing)',
  },
  logLevel: {
    name: 'LOG_LEVEL',
    type: 'enum',
    values: LOG_LEVELS,
    default: 'info',
    description: 'the least severe level logged',
  },
} as const satisfies Settings;

const S = APPLIANCE_SETTINGS;

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
  const zone = read(env, S.timezone);
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new ApplianceConfigError(`APPLIANCE_TIMEZONE must be an IANA time zone, got "${zone}"`);
  }
  return zone;
}

const CREDENTIAL = /^sak_[0-9a-f-]{36}\.[A-Za-z0-9_-]{20,}$/;

function syncSettings(env: Env, identity: ApplianceIdentity | undefined): ApplianceConfig['sync'] {
  const credential = read(env, S.credential);
  if (credential !== undefined && !CREDENTIAL.test(credential))
    throw new ApplianceConfigError(
      'APPLIANCE_CLOUD_CREDENTIAL must be the sak_… credential the cloud issued at provisioning',
    );
  const enrolled = identity?.syncCredential;
  if (credential === undefined && enrolled !== undefined && !CREDENTIAL.test(enrolled))
    throw new ApplianceConfigError(`${identity!.dir}/sync.credential is not a sak_… credential`);
  const schedule = read(env, S.schedule);
  if (!cron.validate(schedule))
    throw new ApplianceConfigError(`APPLIANCE_SYNC_SCHEDULE must be a cron expression, got "${schedule}"`);
  return {
    credential: credential ?? enrolled,
    batchSize: read(env, S.batchSize),
    maxInFlight: read(env, S.maxInFlight),
    schedule,
  };
}

const TLS_FILES = [S.mqttTlsKey.name, S.mqttTlsCert.name, S.mqttTlsCa.name];

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
  const host = read(env, S.mqttHost);
  if (isIP(host) === 0 && host !== 'localhost')
    throw new ApplianceConfigError(
      `APPLIANCE_MQTT_HOST must be an IP address (127.0.0.1, ::1, 0.0.0.0) or localhost, got "${host}"`,
    );
  return host;
}

function mqttSettings(env: Env, identity: ApplianceIdentity | undefined): MqttSettings {
  const prefix = read(env, S.mqttPrefix);
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
    tcpPort: read(env, S.mqttPort),
    tcpHost: devListenerHost(env),
    maxPacketBytes: read(env, S.maxPacketBytes),
    tlsPort: read(env, S.mqttTlsPort),
    tls:
      keyFile && certFile && caFile
        ? { keyFile, certFile, caFile, crlFile: existingFile(env, S.mqttTlsCrl.name) }
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
  const vision = read(env, S.vision);
  const ffmpegPath = existingFile(env, S.ffmpegPath.name);
  const bundledModelsDir = read(env, S.modelsDir) ?? BUNDLED_MODELS_DIR;
  if (!existsSync(bundledModelsDir))
    throw new ApplianceConfigError(`APPLIANCE_MODELS_DIR: no such folder "${bundledModelsDir}"`);
  return {
    enabled: vision !== 'off',
    ffmpegPath,
    bundledModelsDir,
    snapshotsDir: join(dataDir, 'snapshots'),
    snapshotBudgetBytes: read(env, S.snapshotBudgetMb) * 1024 * 1024,
    diningCapacity: read(env, S.diningCapacity),
    menuMappingFile: existingFile(env, S.menuMappingFile.name),
  };
}

function devicesConfig(env: Env): DevicesConfig {
  return {
    telemetryRetentionDays: read(env, S.telemetryRetentionDays),
    commandTimeoutMs: read(env, S.commandTimeoutSeconds) * 1000,
  };
}

const FLEET_TLS_FILES = [S.fleetTlsKey.name, S.fleetTlsCert.name, S.fleetTlsCa.name];

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
  const updatePublicKeyFile = existingFile(env, S.updatePublicKey.name);
  const url = read(env, S.fleetUrl);
  if (url === undefined) return undefined;
  if (!/^(mqtts?|wss?):\/\/[^\s]+$/.test(url))
    throw new ApplianceConfigError(
      `APPLIANCE_FLEET_URL must be an mqtt://, mqtts://, ws:// or wss:// URL, got "${url}"`,
    );
  if (credential === undefined)
    throw new ApplianceConfigError(
      'APPLIANCE_FLEET_URL needs APPLIANCE_CLOUD_CREDENTIAL or an enrolment (APPLIANCE_ENROLLMENT_TOKEN): the appliance signs in to the fleet broker with its credential',
    );
  const prefix = read(env, S.fleetPrefix);
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
  const port = read(env, S.port);
  const cloudUrl = cloudUrlOf(env);
  const logLevel = logLevelOf(env);
  const dataDir = read(env, S.dataDir);
  const identity = readIdentity(dataDir);
  const sync = syncSettings(env, identity);
  return {
    port,
    // The store's LAN reaches the appliance: POS terminals and kitchen screens are other machines.
    host: read(env, S.host),
    dataDir,
    tenantId: requiredUuid(env, S.tenantId.name),
    locationId: requiredUuid(env, S.locationId.name),
    timezone: timeZone(env),
    storeName: read(env, S.storeName),
    cloudUrl,
    logLevel,
    mqtt: mqttSettings(env, identity),
    sync,
    devices: devicesConfig(env),
    fleet: fleetSettings(env, sync.credential, identity),
    identity,
    vision: visionConfig(env, dataDir),
    kioskDir: read(env, S.kioskDir) ?? BUILT_KIOSK_DIR,
  };
}

function cloudUrlOf(env: Env) {
  const cloudUrl = read(env, S.cloudUrl);
  if (cloudUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(cloudUrl))
    throw new ApplianceConfigError(`CLOUD_URL must be an http:// or https:// URL, got "${cloudUrl}"`);
  return cloudUrl;
}

function logLevelOf(env: Env) {
  return read(env, S.logLevel);
}

/**
 * What enrolment needs, read before the rest of the configuration (which takes the files the
 * enrolment leaves): the data dir, the cloud, and the one-time token registration gave.
 */
export function loadEnrolmentSettings(env: Env) {
  const token = read(env, S.enrollmentToken);
  if (token !== undefined && !/^det_[A-Za-z0-9_-]{20,}$/.test(token))
    throw new ApplianceConfigError(
      'APPLIANCE_ENROLLMENT_TOKEN must be the det_… token the cloud gave when the appliance was registered',
    );
  const cloudUrl = cloudUrlOf(env);
  if (token !== undefined && cloudUrl === undefined)
    throw new ApplianceConfigError('APPLIANCE_ENROLLMENT_TOKEN needs CLOUD_URL: the token is traded there');
  return {
    dataDir: read(env, S.dataDir),
    cloudUrl,
    enrollmentToken: token,
    logLevel: logLevelOf(env),
  };
}
