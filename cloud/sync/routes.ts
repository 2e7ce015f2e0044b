import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { ForbiddenError } from '../../shared/http/errors.ts';
import { MANAGER_ROLES, PLATFORM_ADMIN_ROLES } from '../../shared/roles.ts';
import {
  PullQuerySchema,
  PullResultSchema,
  PushBodySchema,
  PushResultSchema,
  QueueQuery,
} from '../../shared/sync/protocol.ts';
import { requireAuth } from '../gateway/index.ts';
import { type ApplianceIdentity, applianceUnauthorized } from './appliances.ts';
import { feedPageJson } from './feed-json.ts';
import type { SyncService } from './service.ts';

const Uuid = Type.String({ format: 'uuid' });

const ApplianceSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  location_id: Uuid,
  name: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  created_at: Type.String({ format: 'date-time' }),
  revoked_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});

const SyncStatusSchema = Type.Object({
  location_id: Uuid,
  online: Type.Boolean({ description: 'The appliance was heard from within the last 90 seconds' }),
  last_seen_at: Type.Union([Type.String(), Type.Null()]),
  last_push_at: Type.Union([Type.String(), Type.Null()]),
  last_pull_at: Type.Union([Type.String(), Type.Null()]),
  queue_depth: Type.Integer({ description: 'Changes waiting on the appliance, as it last reported' }),
  oldest_pending_at: Type.Union([Type.String(), Type.Null()]),
  lag_seconds: Type.Integer({ description: 'Age of the oldest change the appliance has not pushed yet' }),
  feed_seq: Type.Integer(),
  pulled_cursor: Type.Integer(),
  pending_down: Type.Integer({ description: 'Cloud changes the appliance has not pulled yet' }),
  changes_24h: Type.Integer(),
  conflicts_24h: Type.Integer(),
  conflict_rate: Type.Number({ description: 'conflicts_24h / changes_24h' }),
  trigger_pending: Type.Boolean(),
});

const RowStateOut = Type.Object({
  table: Type.String(),
  row_id: Type.String(),
  version: Type.Integer(),
  deleted: Type.Boolean(),
  hlc: Type.String(),
  fields: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  doc: Type.Optional(Type.String()),
});

const ConflictSchema = Type.Object({
  id: Uuid,
  table_name: Type.String(),
  row_id: Type.String(),
  change_id: Uuid,
  client_base_version: Type.Integer(),
  client_version: Type.Integer(),
  server_version: Type.Integer(),
  client_fields: Type.Union([Type.String(), Type.Null()]),
  server_fields: Type.Union([Type.String(), Type.Null()]),
  occurred_at: Type.String(),
});

declare module 'fastify' {
  interface FastifyRequest {
    appliance: ApplianceIdentity | null;
  }
}

/**
 * /v1/sync: appliances push and pull here with their own credential
 * (`Authorization: Appliance <credential>`); fleet admins and managers watch and nudge sync.
 */
export async function syncRoutes(app: FastifyInstance, { sync }: { sync: SyncService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  app.decorateRequest('appliance', null);
  // Open waits end when the gateway does, instead of holding its close for their whole timeout.
  app.addHook('preClose', async () => sync.close());

  async function authenticateAppliance(request: FastifyRequest) {
    const [scheme, credential] = (request.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() !== 'appliance' || !credential) throw applianceUnauthorized();
    const appliance = await sync.authenticate(credential);
    if (!appliance) throw applianceUnauthorized();
    request.appliance = appliance;
  }
  const asAppliance = { onRequest: authenticateAppliance };
  const applianceDoc = { tags: ['sync'], security: [{ appliance: [] }] };
  const staffDoc = { tags: ['sync'], security: [{ bearer: [] }] };
  const applianceOf = (request: FastifyRequest) => request.appliance!;

  r.post(
    '/push',
    {
      ...asAppliance,
      bodyLimit: 16 * 1024 * 1024,
      schema: {
        ...applianceDoc,
        summary: 'Push a batch of outbox changes; applied in one transaction, answered per change',
        body: PushBodySchema,
        response: {
          200: Envelope(PushResultSchema),
          ...errorResponses(400, 401, 403, 409, 413, 429),
        },
      },
    },
    async (request) => envelope(request.id, await sync.push(applianceOf(request), request.body)),
  );

  r.get(
    '/pull',
    {
      ...asAppliance,
      schema: {
        ...applianceDoc,
        summary: 'Changes made in the cloud for this store after a cursor',
        querystring: PullQuerySchema,
        response: { 200: Envelope(PullResultSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { cursor, limit } = request.query;
      const page = await sync.pull(applianceOf(request), cursor ?? 0, limit ?? 1000, request.query);
      // Already JSON text in the schema's shape, which Fastify sends as it is; the type provider
      // only knows replies as objects.
      return reply.type('application/json').send(feedPageJson(request.id, page) as never);
    },
  );

  r.get(
    '/snapshot',
    {
      ...asAppliance,
      schema: {
        ...applianceDoc,
        summary: 'Every row of this store, by row key, for an appliance starting over',
        querystring: Type.Object(
          {
            after: Type.Optional(Type.String({ maxLength: 300, default: '' })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000, default: 1000 })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(
            Type.Object({
              rows: Type.Array(RowStateOut),
              next_after: Type.Union([Type.String(), Type.Null()]),
              cursor: Type.Integer(),
              server_hlc: Type.String(),
            }),
          ),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await sync.snapshot(applianceOf(request), request.query.after ?? '', request.query.limit ?? 1000),
      ),
  );

  r.get(
    '/wait',
    {
      ...asAppliance,
      schema: {
        ...applianceDoc,
        summary: 'The appliance’s open channel: answers when the cloud asks it to sync now',
        querystring: Type.Object(
          {
            timeout_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 60, default: 25 })),
            ...QueueQuery,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Envelope(
            Type.Object({ triggered: Type.Boolean(), priority: Type.Union([Type.String(), Type.Null()]) }),
          ),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const closed = new AbortController();
      request.raw.once('close', () => closed.abort());
      const timeout = (request.query.timeout_seconds ?? 25) * 1000;
      const answer = await sync.waitForTrigger(applianceOf(request), timeout, closed.signal, request.query);
      return envelope(request.id, answer);
    },
  );

  const watchers = { onRequest: app.authenticate(MANAGER_ROLES) };
  const admins = { onRequest: app.authenticate(PLATFORM_ADMIN_ROLES) };
  /** A manager sees their own store only; tenant-wide roles see every store of the tenant. */
  const checkLocation = (request: FastifyRequest, locationId: string) => {
    const auth = requireAuth(request);
    if (
      auth.locationId &&
      auth.locationId !== locationId &&
      !auth.roles.some((r) => PLATFORM_ADMIN_ROLES.includes(r as never))
    )
      throw new ForbiddenError('Your session is for another location');
    return auth.tenantId;
  };

  r.get(
    '/status/:location_id',
    {
      ...watchers,
      schema: {
        ...staffDoc,
        summary: 'Sync health of one store: last push and pull, queue, lag, conflicts, online',
        params: Type.Object({ location_id: Uuid }),
        response: { 200: Envelope(SyncStatusSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const tenantId = checkLocation(request, request.params.location_id);
      return envelope(request.id, await sync.status(tenantId, request.params.location_id));
    },
  );

  r.post(
    '/trigger',
    {
      ...watchers,
      schema: {
        ...staffDoc,
        summary: 'Ask a store’s appliance to sync now',
        body: Type.Object(
          {
            location_id: Uuid,
            priority: Type.Optional(
              Type.Union([Type.Literal('low'), Type.Literal('normal'), Type.Literal('high')], {
                default: 'normal',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          202: Envelope(
            Type.Object({
              location_id: Uuid,
              priority: Type.String(),
              requested_at: Type.String(),
              delivered: Type.Boolean({ description: 'The appliance is online and will hear it at once' }),
            }),
          ),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const tenantId = checkLocation(request, request.body.location_id);
      const result = await sync.trigger(
        tenantId,
        request.body.location_id,
        request.body.priority ?? 'normal',
      );
      return reply.code(202).send(envelope(request.id, result));
    },
  );

  r.get(
    '/conflicts/:location_id',
    {
      ...watchers,
      schema: {
        ...staffDoc,
        summary: 'The newest server_wins conflicts of a store (both versions of the row)',
        params: Type.Object({ location_id: Uuid }),
        querystring: Type.Object(
          { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })) },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(Type.Array(ConflictSchema)), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const tenantId = checkLocation(request, request.params.location_id);
      const rows = await sync.conflicts(tenantId, request.params.location_id, request.query.limit ?? 50);
      return envelope(request.id, rows);
    },
  );

  r.post(
    '/appliances',
    {
      ...admins,
      schema: {
        ...staffDoc,
        summary: 'Provision a store’s appliance: its credential is shown once',
        body: Type.Object(
          { location_id: Uuid, name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) },
          { additionalProperties: false },
        ),
        response: {
          201: Envelope(Type.Intersect([ApplianceSchema, Type.Object({ credential: Type.String() })])),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const created = await sync.provisionAppliance(requireAuth(request).tenantId, request.body);
      return reply.code(201).send(envelope(request.id, created));
    },
  );

  r.get(
    '/appliances',
    {
      ...admins,
      schema: {
        ...staffDoc,
        summary: 'The tenant’s appliances',
        querystring: Type.Object({ location_id: Type.Optional(Uuid) }, { additionalProperties: false }),
        response: { 200: Envelope(Type.Array(ApplianceSchema)), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await sync.listAppliances(requireAuth(request).tenantId, request.query.location_id),
      ),
  );

  r.delete(
    '/appliances/:id',
    {
      ...admins,
      schema: {
        ...staffDoc,
        summary: 'Revoke an appliance’s credential at once',
        params: Type.Object({ id: Uuid }),
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await sync.revokeAppliance(requireAuth(request).tenantId, request.params.id);
      reply.code(204);
    },
  );
}
