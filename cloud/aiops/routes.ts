import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Envelope, envelope, errorResponses, meta, PageMetaSchema } from '../../shared/http/envelope.ts';
import { requireAuth } from '../gateway/index.ts';
import { INCIDENT_ROLES } from '../incidents/index.ts';
import * as schemas from './schemas.ts';
import type { AiopsService } from './service.ts';

const doc = { tags: ['aiops'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;

/** /api/v1/alerting/aiops: samples in, insights, predictions, correlation, RCA, debug, the dependency graph. */
export async function aiopsRoutes(app: FastifyInstance, { aiops }: { aiops: AiopsService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: app.authenticate(INCIDENT_ROLES) };

  r.post(
    '/metrics',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Record metric samples from an external source',
        description:
          'Up to 1000 samples; each is judged against its 30-day baseline on arrival and the insights it raised are answered. A sample already recorded (same metric, subject and time) is not counted again. One invalid sample refuses the batch.',
        body: schemas.MetricsBodySchema,
        response: { 200: Envelope(schemas.MetricsResultSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request.id, await aiops.recordSamples(tenant(request), request.body.samples)),
  );

  r.get(
    '/insights',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Insights (anomalies, predictions, correlations), newest first',
        querystring: schemas.InsightQuerySchema,
        response: {
          200: Type.Object({ data: schemas.InsightListSchema, meta: PageMetaSchema }),
          ...errorResponses(400, 401, 403),
        },
      },
    },
    async (request) => {
      const { type, since, metric, limit, cursor } = request.query;
      const page = await aiops.insights(tenant(request), { type, since, metric }, { limit, cursor });
      return {
        data: { insights: page.items },
        meta: { ...meta(request.id), pagination: { limit, next_cursor: page.nextCursor } },
      };
    },
  );

  r.get(
    '/predictions',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Confident trend forecasts of the recent metric series',
        description:
          'Only trends whose R² reaches the confidence threshold (0.8); hours_until_full for capacity metrics.',
        querystring: schemas.PredictionQuerySchema,
        response: { 200: Envelope(schemas.PredictionListSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) =>
      envelope(request.id, { predictions: await aiops.predictions(tenant(request), request.query) }),
  );

  r.post(
    '/correlate',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Correlate alerts',
        description:
          'Scores the alerts from start-time proximity, the dependency graph and shared location or device labels; correlated from 0.7 within 5 minutes.',
        body: schemas.CorrelateBodySchema,
        response: { 200: Envelope(schemas.CorrelationSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, { correlation: await aiops.correlate(tenant(request), request.body.alert_ids) }),
  );

  r.get(
    '/correlations/:correlation_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'A correlation group built as its alerts fired',
        params: schemas.CorrelationParamsSchema,
        response: { 200: Envelope(schemas.CorrelationGroupSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await aiops.correlationGroup(tenant(request), request.params.correlation_id)),
  );

  r.get(
    '/rca/:incident_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Root-cause analysis of an incident or an alert',
        params: schemas.RcaParamsSchema,
        response: { 200: Envelope(schemas.RcaSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await aiops.rca(tenant(request), request.params.incident_id)),
  );

  r.post(
    '/debug',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Baselines, scores and correlation factors behind an alert',
        body: schemas.DebugBodySchema,
        response: { 200: Envelope(schemas.DebugSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await aiops.debug(tenant(request), request.body.alert_id, request.body.debug_options ?? {}),
      ),
  );

  r.get(
    '/dependencies',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The service dependency graph correlation and RCA use',
        response: { 200: Envelope(schemas.DependenciesSchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, await aiops.dependencies(tenant(request))),
  );

  r.put(
    '/dependencies',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Replace the tenant’s dependency graph',
        description:
          'Each service names the services it depends on; cycles are refused. An empty list restores the default graph.',
        body: schemas.DependenciesBodySchema,
        response: { 200: Envelope(schemas.DependenciesSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) =>
      envelope(request.id, await aiops.putDependencies(tenant(request), request.body.services)),
  );
}
