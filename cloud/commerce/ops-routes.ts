import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { MANAGER_ROLES } from '../../shared/roles.ts';
import { requireAuth } from '../gateway/index.ts';
import { viewerOf } from './access.ts';
import type { SalesService } from './sales.ts';
import * as sales from './sales-schemas.ts';
import type { TimeClockService } from './timeclock.ts';
import * as punches from './timeclock-schemas.ts';

const timeclockDoc = { tags: ['commerce-timeclock'], security: [{ bearer: [] }] };
const salesDoc = { tags: ['commerce-sales'], security: [{ bearer: [] }] };

/** Head office's time clock and sales across the tenant's stores, under /v1/commerce. */
export async function commerceOpsRoutes(
  app: FastifyInstance,
  { timeclock, sales: figures }: { timeclock: TimeClockService; sales: SalesService },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };

  r.get(
    '/punches',
    {
      ...managers,
      schema: {
        ...timeclockDoc,
        summary: 'Punches across the tenant’s stores, by store, business day and staff member',
        description:
          'A punch’s business day is its store’s, from the store’s own time zone and business-day start as ' +
          'the store last synced them. A session for one store sees that store only.',
        querystring: punches.PunchListQuerySchema,
        response: { 200: Envelope(punches.PunchPageSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request.id, await timeclock.listPunches(viewerOf(request), request.query)),
  );

  r.patch(
    '/punches/:id',
    {
      ...managers,
      schema: {
        ...timeclockDoc,
        summary: 'Correct a punch from head office: its time, kind or note, saying why',
        description:
          'Only the fields that change are written, and corrected_by becomes the caller; the store applies ' +
          'the correction at its next pull and keeps its own edits of the other fields. Unlike the store’s ' +
          'own correction, the staff member’s other punches are not checked: payroll fixes sequences the ' +
          'store got wrong. A body that changes nothing writes nothing.',
        params: punches.PunchParamsSchema,
        body: punches.PunchCorrectionSchema,
        response: { 200: Envelope(punches.PunchSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await timeclock.correctPunch(
          viewerOf(request),
          request.params.id,
          request.body,
          requireAuth(request).userId,
        ),
      ),
  );

  r.get(
    '/sales/today',
    {
      ...managers,
      schema: {
        ...salesDoc,
        summary: 'One store’s sales today against the same weekday last week, as the store reports them',
        querystring: sales.SalesTodayQuerySchema,
        response: { 200: Envelope(sales.StoreSalesTodaySchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await figures.today(viewerOf(request), request.query.location_id)),
  );

  r.get(
    '/sales/summary',
    {
      ...managers,
      schema: {
        ...salesDoc,
        summary: 'Every store’s sales so far today, each on its own business day, and the tenant’s totals',
        description:
          'Orders and sales count by the store’s own rule (see GET /v1/commerce/sales/today). A session for ' +
          'one store sees that store only.',
        querystring: sales.SalesSummaryQuerySchema,
        response: { 200: Envelope(sales.SalesSummarySchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await figures.summary(viewerOf(request), {
          ...(request.query.brand_id ? { brandId: request.query.brand_id } : {}),
          ...(request.query.region_id ? { regionId: request.query.region_id } : {}),
        }),
      ),
  );
}
