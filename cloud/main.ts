import { Redis } from 'ioredis';
import pino from 'pino';
import { systemClock } from '../shared/clock.ts';
import { newId } from '../shared/ids.ts';
import { buildApp } from './app.ts';
import type { CloudConfig } from './config.ts';
import { openStore } from './db/index.ts';
import { runEntryPoint } from './entry-point.ts';
import { startFleet } from './flows/index.ts';
import { type CloudServices, createCloudServices } from './services.ts';

const KEY_CHECK_MS = 60 * 60_000;

function connectRedis(url: string) {
  // A slow or absent Redis must not stall requests: the limiter fails open after 250 ms.
  return new Redis(url, { commandTimeout: 250, maxRetriesPerRequest: 1, lazyConnect: true });
}

/** Starts the gateway; resolves once it listens. The returned stop() drains and closes everything. */
export async function startCloud(
  config: CloudConfig,
  options: { log?: pino.Logger; beforeListen?: (services: CloudServices) => Promise<unknown> } = {},
) {
  const log = options.log ?? pino({ level: config.logLevel });
  const store = await openStore({
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    schema: config.databaseSchema,
  });
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : undefined;
  await redis?.connect();
  const deps = { store, clock: systemClock, newId, redis, log };
  const services = createCloudServices(config, deps);
  const app = await buildApp(config, { ...deps, services });
  const keyTimer = setInterval(() => {
    services.identity.keys
      .rotateIfDue()
      .then(() => services.identity.keys.prune())
      .catch((error: unknown) => log.error({ err: error }, 'signing key rotation failed'));
  }, KEY_CHECK_MS);
  keyTimer.unref();
  await options.beforeListen?.(services);
  if (config.webhooks.runWorker) services.webhooks.worker.start();
  for (const module of [
    services.notify,
    services.alerting,
    services.aiops,
    services.chat,
    services.remediation,
  ])
    module.start();
  if (config.rollouts.runEngine) services.rollouts.engine.start();
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({ port, host: config.host, store: store.dialect, redis: Boolean(redis) }, 'cloud listening');
  const fleet = config.fleet.enabled
    ? await startFleet(config.fleet, { services, clock: systemClock, newId, log })
    : undefined;
  return {
    app,
    services,
    port,
    fleet,
    async stop() {
      clearInterval(keyTimer);
      await app.close();
      await services.rollouts.engine.close();
      await fleet?.close();
      await services.webhooks.close();
      for (const module of [services.notify, services.alerting, services.aiops, services.chat])
        await module.close();
      services.remediation.close();
      await services.relay.close();
      await redis?.quit();
      await store.close();
    },
  };
}

runEntryPoint('cloud', import.meta.url, (config, log) => startCloud(config, { log }));
