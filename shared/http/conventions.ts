import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { areaOf, initialErrorAreas } from './areas.ts';
import { Envelope, envelope } from './envelope.ts';
import { AppError, InvalidRequestError } from './errors.ts';
import { metricsPlugin } from './metrics.ts';
import { REQUEST_ID_HEADER } from './request-id.ts';
import { jsonTextProblem, MAX_JSON_DEPTH, unboundedNumbers } from './validation.ts';

export type HealthCheck = () => Promise<void>;

export interface ConventionsOptions {
  title: string;
  version: string;
  description: string;
  /** Named dependencies /health probes; any failure answers 503. */
  healthChecks?: Record<string, HealthCheck>;
  metricsPrefix?: string;
}

const HealthSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  checks: Type.Record(Type.String(), Type.String()),
});

async function runChecks(checks: Record<string, HealthCheck>) {
  const results: Record<string, string> = {};
  for (const [name, check] of Object.entries(checks)) {
    results[name] = await check().then(
      () => 'ok',
      (error: Error) => `failed: ${error.message}`,
    );
  }
  return results;
}

const REQUEST_PARTS = ['body', 'querystring', 'params', 'headers'] as const;

/** A route whose request may carry a number without a finite range is a bug: it does not start. */
function refuseUnboundedNumbers(route: { method: string | string[]; url: string; schema?: unknown }) {
  const schema = (route.schema ?? {}) as Record<string, unknown>;
  const unbounded = REQUEST_PARTS.flatMap((part) =>
    unboundedNumbers(schema[part]).map((path) => `${part}${path.replace(/\//g, '.')}`),
  );
  if (unbounded.length > 0)
    throw new Error(
      `${route.method} ${route.url}: every number a request carries needs a finite minimum and maximum; missing on ${unbounded.join(', ')}`,
    );
}

type JsonParser = (
  request: FastifyRequest,
  body: string,
  done: (error: Error | null, body?: unknown) => void,
) => void;

/**
 * JSON bodies parsed as Fastify does (prototype poisoning refused), nested at most MAX_JSON_DEPTH
 * deep, and without U+0000 in a string.
 */
function boundedJsonParser(app: FastifyInstance): JsonParser {
  const parse = app.getDefaultJsonParser('error', 'error') as JsonParser;
  return (request, body, done) => {
    const problem = jsonTextProblem(body, MAX_JSON_DEPTH);
    if (problem === 'too deep')
      return done(new InvalidRequestError(`The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`));
    if (problem === 'nul')
      return done(new InvalidRequestError(`A string of the JSON body holds U+0000, which no field accepts`));
    parse(request, body, done);
  };
}

/**
 * The HTTP conventions both processes share: request ids, the general error envelope, 404s in the
 * envelope of their area, bounded JSON bodies, a finite range for every number a route accepts,
 * OpenAPI at /openapi.json with docs at /docs, /health and /metrics.
 * Register it first, before any module, so every route is documented, measured and checked.
 */
export const conventionsPlugin = fp(
  async function conventions(app: FastifyInstance, opts: ConventionsOptions) {
    app.decorate('errorAreas', initialErrorAreas());
    app.addHook('onRoute', refuseUnboundedNumbers);
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, boundedJsonParser(app));
    app.addHook('onRequest', (request, reply, done) => {
      reply.header(REQUEST_ID_HEADER, request.id);
      done();
    });
    // A keep-alive connection whose request was still running when shutdown began would hold
    // close() until its idle timeout: answers given while closing end their connection.
    let closing = false;
    app.addHook('preClose', (done) => {
      closing = true;
      done();
    });
    app.addHook('onSend', (_request, reply, payload, done) => {
      if (closing) reply.header('connection', 'close');
      done(null, payload);
    });
    // An absent body is an empty object: optional bodies just work, and a required field that is
    // missing is reported by name rather than as "body must be object".
    app.addHook('preValidation', (request, _reply, done) => {
      if (request.body === undefined && request.routeOptions.schema?.body) request.body = {};
      done();
    });
    app.setErrorHandler(areaOf(app.errorAreas, '').handler);
    // Log lines are written asynchronously; the last ones must still reach stdout on shutdown.
    app.addHook('onClose', (instance, done) => {
      const log = instance.log as Partial<Logger>;
      if (log.flush) log.flush(() => done());
      else done();
    });
    app.setNotFoundHandler((request, reply) => {
      const notFound = new AppError(404, 'NOT_FOUND', `No route for ${request.method} ${request.url}`);
      return areaOf(app.errorAreas, request.url).handler(notFound, request, reply);
    });

    await app.register(swagger, {
      openapi: {
        openapi: '3.1.0',
        info: { title: opts.title, version: opts.version, description: opts.description },
        components: {
          securitySchemes: {
            bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
            // Appliances sync with the credential issued at provisioning: `Authorization: Appliance sak_…`.
            appliance: { type: 'apiKey', in: 'header', name: 'Authorization' },
          },
        },
      },
    });
    await app.register(swaggerUi, { routePrefix: '/docs' });
    app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

    await app.register(metricsPlugin, { prefix: opts.metricsPrefix });

    app.get(
      '/health',
      {
        logLevel: 'warn',
        schema: {
          tags: ['operations'],
          summary: 'Liveness and dependency health',
          response: { 200: Envelope(HealthSchema), 503: Envelope(HealthSchema) },
        },
      },
      async (request, reply) => {
        const checks = await runChecks(opts.healthChecks ?? {});
        const healthy = Object.values(checks).every((result) => result === 'ok');
        reply.code(healthy ? 200 : 503);
        return envelope(request.id, { status: healthy ? 'ok' : 'degraded', checks });
      },
    );
  },
  { name: 'conventions' },
);
