import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Registry;
  }
}

/**
 * Prometheus metrics at /metrics. Each app owns its registry (tests build many apps in one
 * process). Routes are labelled by their pattern, never the raw URL, so ids do not explode the
 * series count.
 */
export const metricsPlugin = fp(
  async function metrics(app: FastifyInstance, opts: { prefix?: string }) {
    const registry = new Registry();
    const prefix = opts.prefix ?? '';
    collectDefaultMetrics({ register: registry, prefix });
    const labelNames = ['method', 'route', 'status_code'] as const;
    const requests = new Counter({
      name: `${prefix}http_requests_total`,
      help: 'HTTP requests answered',
      labelNames,
      registers: [registry],
    });
    const duration = new Histogram({
      name: `${prefix}http_request_duration_seconds`,
      help: 'HTTP request latency',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });

    app.decorate('metrics', registry);
    app.addHook('onResponse', async (request, reply) => {
      const labels = {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status_code: String(reply.statusCode),
      };
      requests.inc(labels);
      duration.observe(labels, reply.elapsedTime / 1000);
    });
    app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    });
  },
  { name: 'metrics' },
);
