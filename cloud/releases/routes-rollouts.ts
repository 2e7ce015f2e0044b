import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { DEVICE_ADMIN_ROLES, DEVICE_READER_ROLES } from '../devices/index.ts';
import { requireAuth } from '../gateway/index.ts';
import type { Rollouts } from './rollouts.ts';
import * as schemas from './schemas-rollouts.ts';

const doc = { tags: ['rollouts'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;
const actor = (request: FastifyRequest) => requireAuth(request).userId;

const CREATE = `The target resolves now to the active stores it names that have an enrolled appliance (a store without one is left out), ordered by location id, or as \`location_ids\` lists them. Wave sizes come from the targeted stores: a \`count\` adds that many, a \`percent\` reaches that share of all of them (rounded up); each wave must add a store and the last must reach them all (422 INVALID_WAVES; the default waves shrink to fit). A store is sent its update only inside the window of its own local time, when its appliance is online and, unless \`allow_open_hours\`, while it is closed by the opening hours it syncs (a store that never synced hours is never open). Refusals: 400 INVALID_REQUEST (an unknown release, brand, region or location), 409 RELEASE_RETIRED, 422 EMPTY_TARGET, 409 STORES_IN_ANOTHER_ROLLOUT. With an \`Idempotency-Key\`, a retry answers the rollout the first request made (200).`;

/** /v1/mdm/rollouts: a release shipped to the tenant's appliances in waves. */
export async function rolloutRoutes(app: FastifyInstance, { rollouts }: { rollouts: Rollouts }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const admins = { onRequest: app.authenticate(DEVICE_ADMIN_ROLES) };
  const readers = { onRequest: app.authenticate(DEVICE_READER_ROLES) };
  const params = schemas.RolloutParamsSchema;
  const Rollout = Envelope(schemas.RolloutSchema);
  const changed = { 200: Rollout, ...errorResponses(400, 401, 403, 404, 409, 422) };

  r.post(
    '/rollouts',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Start rolling a release out to the tenant’s stores in waves',
        description: CREATE,
        headers: schemas.IdempotencyHeadersSchema,
        body: schemas.NewRolloutSchema,
        response: { 200: Rollout, 201: Rollout, ...errorResponses(400, 401, 403, 409, 422) },
      },
    },
    async (request, reply) => {
      const key = request.headers['idempotency-key'];
      const result = await rollouts.create(tenant(request), request.body, actor(request), key);
      reply.code(result.created ? 201 : 200);
      return envelope(request.id, result.rollout);
    },
  );

  r.get(
    '/rollouts',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'The tenant’s rollouts, newest first',
        querystring: schemas.RolloutListQuerySchema,
        response: { 200: PageEnvelope(schemas.RolloutSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { state, limit, cursor } = request.query;
      const page = await rollouts.list(tenant(request), { state }, { limit, cursor });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.get(
    '/rollouts/:rollout_id',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'One rollout: its waves with their stores’ states, the current wave and its soak',
        params,
        response: { 200: Rollout, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await rollouts.get(tenant(request), request.params.rollout_id)),
  );

  r.get(
    '/rollouts/:rollout_id/stores',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'The rollout’s stores in rollout order, each with its state, progress and reason',
        params,
        querystring: schemas.StoreListQuerySchema,
        response: { 200: PageEnvelope(schemas.RolloutStoreSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const { state, wave, limit, cursor } = request.query;
      const page = await rollouts.stores(
        tenant(request),
        request.params.rollout_id,
        { state, wave },
        { limit, cursor: cursor === undefined ? undefined : Number(cursor) },
      );
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  const actions = [
    ['pause', 'Pause: no store is sent anything new; updates already sent carry on and are followed'],
    [
      'resume',
      'Resume a paused or halted rollout; a halted one only once its current wave is back under the threshold (409 FAILURES_OVER_THRESHOLD: exclude or retry the failed stores first)',
    ],
    ['abort', 'Abort: every store that has not ended is cancelled, with its update command'],
  ] as const;
  for (const [action, summary] of actions)
    r.post(
      `/rollouts/:rollout_id/${action}`,
      { ...admins, schema: { ...doc, summary, params, response: changed } },
      async (request) =>
        envelope(
          request.id,
          await rollouts[action](tenant(request), request.params.rollout_id, actor(request)),
        ),
    );

  r.post(
    '/rollouts/:rollout_id/exclude',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Take stores out of the rollout; their update commands are cancelled',
        description:
          "Their wave's failure share is counted without them: how a halted rollout is made to resume after a bad store. A store that is healthy or already excluded, or not in the rollout, is 422 STORES_NOT_APPLICABLE.",
        params,
        body: schemas.ExcludeSchema,
        response: changed,
      },
    },
    async (request) =>
      envelope(
        request.id,
        await rollouts.exclude(
          tenant(request),
          request.params.rollout_id,
          request.body.location_ids,
          actor(request),
        ),
      ),
  );

  r.post(
    '/rollouts/:rollout_id/retry',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Send failed, rolled-back or cancelled stores their update again, in their window',
        params,
        body: schemas.RetrySchema,
        response: changed,
      },
    },
    async (request) =>
      envelope(
        request.id,
        await rollouts.retry(
          tenant(request),
          request.params.rollout_id,
          request.body.location_ids,
          actor(request),
        ),
      ),
  );
}
