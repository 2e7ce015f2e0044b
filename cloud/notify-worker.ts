/**
 * The notification worker on its own (`node --import tsx cloud/notify-worker.ts`), for
 * deployments that send apart from the gateway (run the gateway with NOTIFY_WORKER=false then).
 * Any number can run against one store: claims are leased. Console notifications reach the
 * gateways' console WebSockets through the relay when REDIS_URL is set (cloud/relay.ts); without
 * Redis they stay in this process, so a gateway should keep that channel then.
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import { systemClock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { createConsoleFeed } from './cockpit/index.ts';
import type { CloudConfig } from './config.ts';
import { openStore } from './db/index.ts';
import { runEntryPoint } from './entry-point.ts';
import { createNotifyService } from './notify/index.ts';
import { createRelay } from './relay.ts';

export async function startNotifyWorker(config: CloudConfig, log = pino({ level: config.logLevel })) {
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    schema: config.databaseSchema,
  });
  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 3 }) : undefined;
  const relay = createRelay({ redis, log: log.child({ module: 'relay' }) });
  const notify = createNotifyService({
    store,
    clock: systemClock,
    newId,
    log: log.child({ module: 'notify' }),
    options: { ...config.notify, runWorker: true },
    consoleFeed: createConsoleFeed(relay),
  });
  notify.start();
  return {
    async stop() {
      await notify.close();
      await relay.close();
      await redis?.quit();
      await store.close();
    },
  };
}

runEntryPoint('notify worker', import.meta.url, startNotifyWorker);
