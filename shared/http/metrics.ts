import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

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
    const duration = new Histogram({
      name: `${prefix}http_request_duration_seconds`,
      // Its _count series is the request count by route and status: no separate counter needed.
      help: 'HTTP request latency; _count is the number of requests',
      labelNames,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });

    app.decorate('metrics', registry);
    // prom-client hashes the label object on every observation; the few (method, route, status)
    // combinations a server has are resolved to their series once instead.
    const series = new Map<string, Histogram.Internal<(typeof labelNames)[number]>>();
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      const key = `${request.method} ${reply.statusCode} ${route}`;
      let child = series.get(key);
      if (!child) {
        child = duration.labels({ method: request.method, route, status_code: reply.statusCode });
        series.set(key, child);
      }
      child.observe(reply.elapsedTime / 1000);
      done();
    });
    app.get('/metrics', { schema: { hide: true }, logLevel: 'warn' }, async (_request, reply) => {
      reply.type(registry.contentType);
      return registry.metrics();
    });
  },
  { name: 'metrics' },
);
