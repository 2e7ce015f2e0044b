import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { MANAGER_ROLES } from '../../shared/roles.ts';
import * as schemas from './schemas.ts';
import type { KitchenService } from './service.ts';

export interface KitchenRestOptions {
  kitchen: KitchenService;
}

const doc = { tags: ['kitchen'], security: [{ bearer: [] }] };
const ticket = Envelope(schemas.TicketSchema);
const ticketResponses = { 200: ticket, ...errorResponses(400, 401, 403, 404, 409) };

/** The kitchen display's HTTP side: stations, routing, boards and ticket commands. */
export async function kitchenRestRoutes(app: FastifyInstance, { kitchen }: KitchenRestOptions) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const staff = { onRequest: app.authenticate() };
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };

  r.get(
    '/kds/stations',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Kitchen stations in display order',
        response: { 200: Envelope(Type.Array(schemas.StationSchema)), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, kitchen.listStations()),
  );

  r.post(
    '/kds/stations',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Add a kitchen station',
        body: schemas.NewStationSchema,
        response: { 201: Envelope(schemas.StationSchema), ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      const station = kitchen.createStation(request.body);
      reply.code(201);
      return envelope(request.id, station);
    },
  );

  r.put(
    '/kds/routes/:menu_item_id',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Send a menu item to a station',
        params: schemas.RouteParamsSchema,
        body: schemas.RouteBodySchema,
        response: { 200: Envelope(schemas.RouteSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) =>
      envelope(request.id, kitchen.routeItem(request.params.menu_item_id, request.body.station_id)),
  );

  r.get(
    '/kds/stations/:station_id/tickets',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'A station’s open tickets: rush first, then oldest first',
        params: schemas.StationParamsSchema,
        response: {
          200: Envelope(Type.Array(schemas.BoardTicketSchema)),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => envelope(request.id, kitchen.board(request.params.station_id)),
  );

  r.post(
    '/kds/tickets/:ticket_id/items/:order_item_id/bump',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Mark a ticket item done; the order’s item is prepared with it',
        params: schemas.TicketItemParamsSchema,
        response: ticketResponses,
      },
    },
    async (request) =>
      envelope(request.id, kitchen.bump(request.params.ticket_id, request.params.order_item_id)),
  );

  r.post(
    '/kds/tickets/:ticket_id/recall',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Bring a finished ticket back to the board',
        params: schemas.TicketParamsSchema,
        response: ticketResponses,
      },
    },
    async (request) => envelope(request.id, kitchen.recall(request.params.ticket_id)),
  );

  r.put(
    '/kds/tickets/:ticket_id/priority',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'Rush a ticket, or make it normal again',
        params: schemas.TicketParamsSchema,
        body: schemas.PriorityBodySchema,
        response: ticketResponses,
      },
    },
    async (request) =>
      envelope(request.id, kitchen.setPriority(request.params.ticket_id, request.body.priority)),
  );
}
