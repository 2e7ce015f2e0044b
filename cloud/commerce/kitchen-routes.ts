import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { MANAGER_ROLES } from '../../shared/roles.ts';
import { BRAND_ROLES, checkStores, published, tenantOf } from './access.ts';
import type { KitchenService } from './kitchen.ts';
import * as k from './kitchen-schemas.ts';
import { IdParamsSchema } from './menu-schemas.ts';

/** A brand's kitchen stations and where each item is prepared, under /v1/commerce. */
export function kitchenRoutes(app: FastifyInstance, kitchen: KitchenService) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };
  const brandAdmins = { onRequest: app.authenticate(BRAND_ROLES) };
  const doc = { tags: ['commerce-kitchen'], security: [{ bearer: [] }] };

  r.post(
    '/kitchen/stations',
    {
      ...brandAdmins,
      schema: {
        ...doc,
        summary: 'Add a kitchen station to a brand',
        description: published(
          'Every store of the brand gets it under an id derived from its own. A name the brand has ' +
            'already (whatever its case) is 409.',
        ),
        body: k.NewStationSchema,
        response: { 201: Envelope(k.PublishedStationSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(envelope(request.id, await kitchen.createStation(tenantOf(request), request.body))),
  );

  r.patch(
    '/kitchen/stations/:id',
    {
      ...brandAdmins,
      schema: {
        ...doc,
        summary: 'Rename or move a brand’s station',
        description: published('A store’s own change of the same station is replaced.'),
        params: IdParamsSchema,
        body: k.StationPatchSchema,
        response: { 200: Envelope(k.PublishedStationSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(request.id, await kitchen.updateStation(tenantOf(request), request.params.id, request.body)),
  );

  r.get(
    '/kitchen/stations',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'A brand’s stations',
        querystring: k.StationListQuerySchema,
        response: { 200: Envelope(k.StationPageSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await kitchen.listStations(tenantOf(request), request.query.brand_id, request.query),
      ),
  );

  r.get(
    '/kitchen/stations/:id',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'One station of a brand',
        params: IdParamsSchema,
        response: { 200: Envelope(k.StationSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await kitchen.getStation(tenantOf(request), request.params.id)),
  );

  r.put(
    '/kitchen/routing/:menu_item_id',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Route a brand item to a station, at every store of the brand or at the stores named',
        description: published(
          'Without location_ids (tenant admins only) the brand’s route changes and stores’ own routes ' +
            'are dropped; with them, those stores keep this route as their own. A station of another ' +
            'brand is 400.',
        ),
        params: k.RoutingParamsSchema,
        body: k.RoutingBodySchema,
        response: { 200: Envelope(k.PublishedRoutingSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const tenantId = checkStores(request, request.body.location_ids);
      return envelope(
        request.id,
        await kitchen.route(
          tenantId,
          request.params.menu_item_id,
          request.body.station_id,
          request.body.location_ids,
        ),
      );
    },
  );

  r.get(
    '/kitchen/routing/:menu_item_id',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Where a brand item is prepared, for the brand and for stores with their own route',
        params: k.RoutingParamsSchema,
        response: { 200: Envelope(k.RoutingSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await kitchen.routing(tenantOf(request), request.params.menu_item_id)),
  );
}
