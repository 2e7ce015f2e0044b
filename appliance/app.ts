import Fastify, { type FastifyInstance } from 'fastify';
import type { Clock } from '../shared/clock.ts';
import { conventionsPlugin } from '../shared/http/conventions.ts';
import { serverOptions } from '../shared/http/server-options.ts';
import type { IdGenerator } from '../shared/ids.ts';
import type { ApplianceConfig } from './config.ts';
import type { ApplianceDatabase } from './db/index.ts';

export interface ApplianceDeps {
  db: ApplianceDatabase;
  clock: Clock;
  newId: IdGenerator;
}

/**
 * The store's local API. It follows the same HTTP conventions as the cloud (request ids,
 * envelopes, OpenAPI at /docs, /health, /metrics); its domain modules register here, in one list.
 */
export async function buildApplianceApp(
  config: ApplianceConfig,
  deps: ApplianceDeps,
): Promise<FastifyInstance> {
  const app = Fastify(serverOptions({ level: config.logLevel }));
  await app.register(conventionsPlugin, {
    title: 'Edge appliance local API',
    version: '1.0.0',
    description: 'The store appliance: orders, kitchen flow, payments and devices on the LAN.',
    metricsPrefix: 'appliance_',
    healthChecks: {
      database: async () => {
        deps.db.prepare('select 1').get();
      },
    },
  });
  return app;
}
