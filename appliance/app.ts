import Fastify, { type FastifyInstance } from 'fastify';
import { conventionsPlugin } from '../shared/http/conventions.ts';
import { serverOptions } from '../shared/http/server-options.ts';
import type { ApplianceConfig } from './config.ts';

/**
 * The store's local API. It follows the same HTTP conventions as the cloud (request ids,
 * envelopes, OpenAPI at /docs, /health, /metrics); its domain modules register here.
 */
export async function buildApplianceApp(config: ApplianceConfig): Promise<FastifyInstance> {
  const app = Fastify(serverOptions({ level: config.logLevel }));
  await app.register(conventionsPlugin, {
    title: 'Edge appliance local API',
    version: '1.0.0',
    description: 'The store appliance: orders, kitchen flow, payments and devices on the LAN.',
    metricsPrefix: 'appliance_',
  });
  return app;
}
