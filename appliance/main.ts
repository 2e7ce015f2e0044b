import pino from 'pino';
import { systemClock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { stopOnSignal } from '../shared/process/stop-on-signal.ts';
import { buildApplianceApp } from './app.ts';
import { type ApplianceConfig, ApplianceConfigError, loadApplianceConfig } from './config.ts';
import { openApplianceDb } from './db/index.ts';

/** Opens the store, builds the API and listens; stop() drains requests, then closes the store. */
export async function startAppliance(config: ApplianceConfig) {
  const db = openApplianceDb(config.dataDir);
  const app = await buildApplianceApp(config, { db, clock: systemClock, newId });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    db.close();
    throw error;
  }
  app.sync?.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    app,
    port,
    async stop() {
      // close() stops accepting connections and waits for the requests in flight.
      await app.close();
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
  const appliance = await startAppliance(config);
  log.info(
    { port: appliance.port, dataDir: config.dataDir, locationId: config.locationId },
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
