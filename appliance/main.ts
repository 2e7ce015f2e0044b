import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { systemClock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { stopOnSignal } from '../shared/process/stop-on-signal.ts';
import { buildApplianceApp, createApplianceServices } from './app.ts';
import type { StaffAuth } from './auth/index.ts';
import {
  type ApplianceConfig,
  ApplianceConfigError,
  loadApplianceConfig,
  loadEnrolmentSettings,
} from './config.ts';
import { openApplianceDb } from './db/index.ts';
import {
  type ApplianceBroker,
  attachDeviceRegistry,
  type BrokerOptions,
  type BrokerPrincipal,
  createDeviceCommands,
  type DeviceRegistry,
  type DeviceRegistryOptions,
  startBroker,
} from './devices/index.ts';
import {
  type ApplianceFleet,
  checkHealthAnswered,
  checkMigrations,
  createApplianceFleet,
  runHealthCheck,
  settleInstall,
} from './fleet/index.ts';
import {
  CATCH_UP_WAIT_MS,
  createCertificateKeeper,
  createRevocationList,
  enrolIfNeeded,
  RENEW_WITHIN_DAYS,
  type RevocationList,
  scheduleRenewal,
} from './identity/index.ts';
import { RESTART_EXIT_CODE } from './process-codes.ts';

export { RESTART_EXIT_CODE } from './process-codes.ts';

/** A staff token (the appliance's own or the cloud's) admits a screen to the broker over WebSocket. */
const staffTokens =
  (auth: StaffAuth, locationId: string) =>
  async (token: string): Promise<BrokerPrincipal | undefined> => {
    try {
      const who = await auth.authenticate(token);
      return { kind: 'staff', userId: who.userId, roles: who.roles, locationId };
    } catch {
      return undefined;
    }
  };

function brokerOptions(
  config: ApplianceConfig,
  auth: StaffAuth,
  log: Logger,
  revocations: RevocationList | undefined,
): BrokerOptions {
  const { mqtt } = config;
  if (!mqtt.tls)
    log.warn(
      'the appliance is not enrolled and APPLIANCE_MQTT_TLS_KEY, _CERT and _CA are not set: the MQTT TLS listener for devices is off',
    );
  return {
    locationId: config.locationId,
    topicPrefix: mqtt.prefix,
    dataDir: config.dataDir,
    // Not config.host: the development listener has no identity and no ACL (APPLIANCE_MQTT_HOST).
    tcp: mqtt.tcpPort === undefined ? undefined : { host: mqtt.tcpHost, port: mqtt.tcpPort },
    maxPacketBytes: mqtt.maxPacketBytes,
    tls: mqtt.tls && {
      host: config.host,
      port: mqtt.tlsPort,
      key: readFileSync(mqtt.tls.keyFile),
      cert: readFileSync(mqtt.tls.certFile),
      ca: readFileSync(mqtt.tls.caFile),
      ...(mqtt.tls.crlFile ? { crl: readFileSync(mqtt.tls.crlFile) } : {}),
    },
    verifyToken: staffTokens(auth, config.locationId),
    ...(revocations ? { isRevoked: revocations.isRevoked } : {}),
    log,
  };
}

const readTlsFiles = async (files: NonNullable<ApplianceConfig['mqtt']['tls']>) => ({
  key: await readFile(files.keyFile),
  cert: await readFile(files.certFile),
  ca: await readFile(files.caFile),
  ...(files.crlFile ? { crl: await readFile(files.crlFile) } : {}),
});

/** With a cloud to ask, the broker refuses certificates the cloud revoked (kept on disk offline). */
function revocationList(config: ApplianceConfig, log: Logger) {
  if (!config.cloudUrl) return undefined;
  return createRevocationList({
    cloudUrl: config.cloudUrl,
    file: join(config.dataDir, 'revoked-certificates.json'),
    clock: systemClock,
    log: log.child({ module: 'revocations' }),
  });
}

/** Whatever the list learns, however it came (push, catch-up, poll), ends the sessions it admitted. */
function cutRevokedSessions(broker: ApplianceBroker, revocations: RevocationList) {
  const cut = () => void broker.disconnectRevoked(revocations.isRevoked);
  const stop = revocations.onRevoked(cut);
  // Anything learned between the catch-up and now.
  cut();
  return stop;
}

const PACKAGE_VERSION = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

export interface StartOptions {
  /**
   * A restart the cloud asked for, after the answer has gone out. Default: stop gracefully, then
   * exit with RESTART_EXIT_CODE for the supervisor; npm start and tests pass their own.
   */
  onRestart?: (() => Promise<void> | void) | undefined;
  /** The environment the configuration was read from (process.env): an update's health check starts the new version with it. */
  env?: Record<string, string | undefined> | undefined;
  /** False in `--health-check`: a check on a scratch copy confirms no install. */
  settleInstall?: boolean | undefined;
  registry?: Partial<DeviceRegistryOptions> | undefined;
  restartDelayMs?: number | undefined;
  /** How long the start waits for the revocation list before admitting devices (5 s). */
  revocationWaitMs?: number | undefined;
}

/** The registry hears the broker, and commands for store devices go out through it. */
function wireDevices(config: ApplianceConfig, broker: ApplianceBroker, devices: DeviceRegistry, log: Logger) {
  const commands = createDeviceCommands({
    aedes: broker.aedes,
    prefix: config.mqtt.prefix,
    locationId: config.locationId,
    device: (id) => devices.device(id),
    timeoutMs: config.devices.commandTimeoutMs,
    log: log.child({ module: 'device-commands' }),
  });
  const detach = attachDeviceRegistry({
    aedes: broker.aedes,
    registry: devices,
    commands,
    prefix: config.mqtt.prefix,
    locationId: config.locationId,
    log: log.child({ module: 'devices' }),
  });
  return { commands, detach };
}

/**
 * Opens the store, catches up on revoked device certificates (waiting a few seconds at most),
 * starts the device broker and its registry, builds the API and listens, then opens the fleet
 * link; stop() closes the fleet link first (no command starts while stopping), drains requests,
 * then stops the registry and the broker, then closes the store.
 */
export async function startAppliance(
  config: ApplianceConfig,
  log: Logger = pino({ level: config.logLevel }),
  options: StartOptions = {},
) {
  const db = openApplianceDb(config.dataDir);
  const deps = { db, clock: systemClock, newId, log, registry: options.registry };
  const services = createApplianceServices(config, deps);
  services.devices.start();
  const revocations = revocationList(config, log);
  // No device is admitted before the list is as fresh as the cloud can make it in a few seconds.
  await revocations?.catchUp(options.revocationWaitMs ?? CATCH_UP_WAIT_MS);
  const broker = await startBroker(brokerOptions(config, services.auth, log, revocations)).catch(
    (error: unknown) => {
      revocations?.stop();
      services.devices.stop();
      db.close();
      throw error;
    },
  );
  const stopCutting = revocations ? cutRevokedSessions(broker, revocations) : () => {};
  revocations?.start();
  const wired = wireDevices(config, broker, services.devices, log);
  const app = await buildApplianceApp(config, { ...deps, broker, deviceCommands: wired.commands }, services);
  const closeDevices = async () => {
    wired.commands.close();
    wired.detach();
    services.devices.stop();
    stopCutting();
    revocations?.stop();
    await broker.close();
  };
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    await closeDevices();
    db.close();
    throw error;
  }
  app.sync?.start();
  app.vision?.start();
  const stopRenewal = renewIdentity(config, log, async () => {
    if (config.mqtt.tls) broker.renewTls(await readTlsFiles(config.mqtt.tls));
    await fleet?.renewTls();
  });
  let fleet: ApplianceFleet | undefined;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      stopRenewal();
      await fleet?.link.close();
      // close() stops accepting connections and waits for the requests in flight.
      await app.close();
      await closeDevices();
      db.close();
    })();
    return stopping;
  };
  const restart =
    options.onRestart ??
    (async () => {
      await stop();
      process.exit(RESTART_EXIT_CODE);
    });
  const restartSelf = (why: string) => {
    log.warn(why);
    Promise.resolve(restart()).catch((error: unknown) => log.error({ err: error }, 'restart failed'));
  };
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  if (options.settleInstall !== false)
    await settleInstall({
      dataDir: config.dataDir,
      runningVersion: PACKAGE_VERSION,
      check: async () => [await checkHealthAnswered(ownAddress(address, port)), checkMigrations(db)],
      clock: systemClock,
      log,
      restart: () => restartSelf('restarting into the version before the update'),
    });
  if (config.fleet) {
    fleet = await createApplianceFleet(config.fleet, {
      db,
      clock: systemClock,
      log,
      tenantId: config.tenantId,
      dataDir: config.dataDir,
      version: PACKAGE_VERSION,
      env: options.env ?? process.env,
      syncNow: app.sync ? () => app.sync!.syncNow() : undefined,
      restartSelf: () => restartSelf('restarting at the cloud’s request'),
      devices: services.devices,
      deviceCommands: wired.commands,
      vision: app.vision?.fleet,
      restartDelayMs: options.restartDelayMs,
      actions: services.actions,
      revocations,
    });
  }
  // Not awaited: the store works with the cloud away, and the link keeps trying to reach it.
  const fleetConnected = fleet?.link.start();
  return { app, port, db, broker, services, fleet, fleetConnected, stop };
}

/** Where this process answers HTTP itself: a wildcard listener is reached on loopback. */
function ownAddress(address: ReturnType<FastifyInstance['server']['address']>, port: number) {
  const host = typeof address === 'object' && address ? address.address : '127.0.0.1';
  if (host === '0.0.0.0') return `http://127.0.0.1:${port}`;
  if (host === '::') return `http://[::1]:${port}`;
  return host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

export type RunningAppliance = Awaited<ReturnType<typeof startAppliance>>;

/**
 * The enrolled appliance renews its certificate before it expires (checked at start and daily).
 * The files are replaced in place, then `onRenewed` hands them to the broker's TLS listener and
 * the fleet link: the cloud revokes the certificate a renewal replaces.
 */
function renewIdentity(config: ApplianceConfig, log: Logger, onRenewed: () => Promise<void>) {
  if (!config.identity || !config.cloudUrl) return () => {};
  const keeper = createCertificateKeeper({
    dir: config.identity.dir,
    cloudUrl: config.cloudUrl,
    clock: systemClock,
    log: log.child({ module: 'identity' }),
    renewWithinDays: RENEW_WITHIN_DAYS,
  });
  return scheduleRenewal(keeper, log, () => {
    log.info('appliance certificate renewed');
    onRenewed().catch((error: unknown) =>
      log.error(
        { err: error },
        'the renewed certificate could not be put to use; it will be at the next start',
      ),
    );
  });
}

/**
 * `appliance.mjs --health-check`: this version checks itself on the data directory it is given
 * (an updater's scratch copy; see appliance/fleet/health-check.ts) and prints one line of JSON
 * on stdout, its logs going to stderr; exit code 0 when healthy, 1 otherwise.
 */
async function healthCheckMode() {
  const report = await runHealthCheck({
    env: process.env,
    version: PACKAGE_VERSION,
    loadConfig: loadApplianceConfig,
    start: (config) =>
      startAppliance(config, pino({ level: config.logLevel }, pino.destination({ dest: 2, sync: true })), {
        settleInstall: false,
      }),
    newId,
  });
  process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(report.healthy ? 0 : 1));
}

async function main() {
  if (process.argv.includes('--health-check')) return healthCheckMode();
  let config: ApplianceConfig;
  try {
    const enrolment = loadEnrolmentSettings(process.env);
    await enrolIfNeeded({ ...enrolment, log: pino({ level: enrolment.logLevel }) });
    config = loadApplianceConfig(process.env);
  } catch (error) {
    if (!(error instanceof ApplianceConfigError)) throw error;
    process.stderr.write(`appliance: ${error.message}\n`);
    process.exit(2);
  }
  const log = pino({ level: config.logLevel });
  const appliance = await startAppliance(config, log, { env: process.env });
  log.info(
    {
      port: appliance.port,
      dataDir: config.dataDir,
      locationId: config.locationId,
      mqttTls: appliance.broker.tlsPort,
      mqttTcp: appliance.broker.tcpPort,
      fleet: config.fleet?.url ?? null,
    },
    'appliance listening',
  );
  stopOnSignal(() => appliance.stop(), log);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stderr.write(`appliance: failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
