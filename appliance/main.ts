import { readFileSync } from 'node:fs';
import pino, { type Logger } from 'pino';
import { systemClock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { stopOnSignal } from '../shared/process/stop-on-signal.ts';
import { buildApplianceApp, createApplianceServices } from './app.ts';
import type { StaffAuth } from './auth/index.ts';
import { type ApplianceConfig, ApplianceConfigError, loadApplianceConfig } from './config.ts';
import { openApplianceDb } from './db/index.ts';
import { type BrokerOptions, type BrokerPrincipal, startBroker } from './devices/index.ts';

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

function brokerOptions(config: ApplianceConfig, auth: StaffAuth, log: Logger): BrokerOptions {
  const { mqtt } = config;
  if (!mqtt.tls)
    log.warn('APPLIANCE_MQTT_TLS_KEY, _CERT and _CA are not set: the MQTT TLS listener for devices is off');
  return {
    locationId: config.locationId,
    topicPrefix: mqtt.prefix,
    dataDir: config.dataDir,
    tcp: mqtt.tcpPort === undefined ? undefined : { host: config.host, port: mqtt.tcpPort },
    tls: mqtt.tls && {
      host: config.host,
      port: mqtt.tlsPort,
      key: readFileSync(mqtt.tls.keyFile),
      cert: readFileSync(mqtt.tls.certFile),
      ca: readFileSync(mqtt.tls.caFile),
      ...(mqtt.tls.crlFile ? { crl: readFileSync(mqtt.tls.crlFile) } : {}),
    },
    verifyToken: staffTokens(auth, config.locationId),
    log,
  };
}

/**
 * Opens the store, starts the device broker, builds the API and listens; stop() drains requests,
 * then stops the broker, then closes the store.
 */
export async function startAppliance(
  config: ApplianceConfig,
  log: Logger = pino({ level: config.logLevel }),
) {
  const db = openApplianceDb(config.dataDir);
  const deps = { db, clock: systemClock, newId };
  const services = createApplianceServices(config, deps);
  const broker = await startBroker(brokerOptions(config, services.auth, log)).catch((error: unknown) => {
    db.close();
    throw error;
  });
  const app = await buildApplianceApp(config, { ...deps, broker }, services);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    await broker.close();
    db.close();
    throw error;
  }
  app.sync?.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    app,
    port,
    broker,
    async stop() {
      // close() stops accepting connections and waits for the requests in flight.
      await app.close();
      await broker.close();
      db.close();
    },
  };
}

async function main() {
  let config: ApplianceConfig;
  try {
    config = loadApplianceConfig(process.env);
  } catch (error) {
    if (!(error instanceof ApplianceConfigError)) throw error;
    process.stderr.write(`appliance: ${error.message}\n`);
    process.exit(2);
  }
  const log = pino({ level: config.logLevel });
  const appliance = await startAppliance(config, log);
  log.info(
    {
      port: appliance.port,
      dataDir: config.dataDir,
      locationId: config.locationId,
      mqttTls: appliance.broker.tlsPort,
      mqttTcp: appliance.broker.tcpPort,
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
