import pino from 'pino';
import { systemClock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import type { CloudConfig } from './config.ts';
import { openStore } from './db/index.ts';
import { runEntryPoint } from './entry-point.ts';
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

runEntryPoint('webhook worker', import.meta.url, startWebhookWorker);
