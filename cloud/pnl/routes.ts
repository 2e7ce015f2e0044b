import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { pnlSuccess } from '../../shared/http/envelope.ts';
import { PNL_READER_ROLES, pnlGuard, tenantOf } from './access.ts';
import * as s from './schemas.ts';
import type { PnlService } from './service.ts';

const doc = { tags: ['pnl'], security: [{ bearer: [] }] };
const reportErrors = s.pnlErrorResponses(400, 401, 403, 404, 500);

/** The reports and catalogs of the API under /api/v1/pnl. */
export async function pnlReportRoutes(app: FastifyInstance, { pnl }: { pnl: PnlService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: pnlGuard(app, PNL_READER_ROLES) };

  r.post(
    '/consolidated',
    {
      ...guard,
      schema: {
        ...doc,
        summary:
          'Consolidated P&L of the tenant (or of the brands named), with budget and prior period on request',
        body: s.ConsolidatedBodySchema,
        response: { 200: s.Success(s.ConsolidatedSchema), ...reportErrors },
      },
    },
    async (request) => pnlSuccess(await pnl.consolidated(tenantOf(request), request.body)),
  );

  r.post(
    '/brand/:brand_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: "A brand's P&L: the sum of its locations",
        params: s.BrandParamsSchema,
        body: s.PeriodBodySchema,
        response: { 200: s.Success(s.BrandReportSchema), ...reportErrors },
      },
    },
    async (request) => pnlSuccess(await pnl.brand(tenantOf(request), request.params.brand_id, request.body)),
  );

  r.post(
    '/region/:region_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: "A region's P&L: the sum of its locations",
        params: s.RegionParamsSchema,
        body: s.PeriodBodySchema,
        response: { 200: s.Success(s.RegionReportSchema), ...reportErrors },
      },
    },
    async (request) =>
      pnlSuccess(await pnl.region(tenantOf(request), request.params.region_id, request.body)),
  );

  r.post(
    '/compare',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Brands side by side, with rankings per metric (best first)',
        body: s.CompareBodySchema,
        response: { 200: s.Success(s.CompareSchema), ...reportErrors },
      },
    },
    async (request) => pnlSuccess(await pnl.compare(tenantOf(request), request.body)),
  );

  r.post(
    '/custom',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'A report of chosen sections grouped by brand, region or location, with filters',
        body: s.CustomBodySchema,
        response: { 200: s.Success(s.CustomSchema), ...reportErrors },
      },
    },
    async (request) => pnlSuccess(await pnl.custom(tenantOf(request), request.body)),
  );

  r.post(
    '/trend',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One metric over time by day, week or month',
        body: s.TrendBodySchema,
        response: { 200: s.Success(s.TrendSchema), ...reportErrors },
      },
    },
    async (request) => pnlSuccess(await pnl.trend(tenantOf(request), request.body)),
  );

  r.get(
    '/metrics',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The metric catalog',
        response: { 200: s.Success(s.MetricCatalogSchema), ...s.pnlErrorResponses(400, 401, 403) },
      },
    },
    async () => pnlSuccess(pnl.metrics()),
  );

  r.get(
    '/sections',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The section catalog of custom reports',
        response: { 200: s.Success(s.SectionCatalogSchema), ...s.pnlErrorResponses(400, 401, 403) },
      },
    },
    async () => pnlSuccess(pnl.sections()),
  );
}
