import pino from 'pino';
import { systemClock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { stopOnSignal } from '../shared/process/stop-on-signal.ts';
import { type CloudConfig, ConfigError, loadCloudConfig } from './config.ts';
import { openStore } from './db/index.ts';
import { createCloudServices } from './services.ts';

/**
 * The webhook delivery worker on its own, for fleets that scale delivery apart from the gateway
 * (run the gateway with WEBHOOK_WORKER=false then). Any number can run against one store.
 */
export async function startWebhookWorker(config: CloudConfig, log = pino({ level: config.logLevel })) {
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    schema: config.databaseSchema,
  });
  const services = createCloudServices(config, { store, clock: systemClock, newId, log });
  services.webhooks.worker.start();
  log.info({ owner: services.webhooks.worker.owner, store: store.dialect }, 'webhook worker running');
  return {
    async stop() {
      await services.webhooks.close();
      await store.close();
    },
  };
}

async function main() {
  let config: CloudConfig;
  try {
    config = loadCloudConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`webhook worker: ${error.message}\n`);
    process.exit(2);
  }
  const log = pino({ level: config.logLevel });
  const worker = await startWebhookWorker(config, log);
  stopOnSignal(() => worker.stop(), log);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stderr.write(`webhook worker: failed to start: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
