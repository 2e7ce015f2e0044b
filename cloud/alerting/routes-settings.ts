import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { requireAuth } from '../gateway/index.ts';
import { INCIDENT_ROLES } from '../incidents/index.ts';
import * as schemas from './schemas.ts';
import type { AlertSettings } from './settings.ts';

const doc = { tags: ['alerting'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;

const POLICY_NOTE =
  'A policy matches alerts by service, severity and labels (empty matches any); the first matching policy in creation order applies, else the tenant’s default. Levels notify their targets on their channels (absent: the severity’s), then wait timeout_minutes. Modes: parallel (every person of a level at once; the level’s time-out, then the next level), sequential (one person at a time in the listed order, each given the time-out; after the last, the next level), round_robin (sequential, but each new alert starts one person later than the previous). skip_when_acknowledged (default true): acknowledgement stops escalation; false: only resolution does.';
const WINDOW_NOTE =
  'Open from starts_at (inclusive) to ends_at (exclusive); matches by service, labels and location (the alert’s location_id label). full_suppress: alerts recorded as suppressed, no notification, no escalation. reduce_severity: P1→P3, P2→P4 (original_severity kept). notify_only: alerts notified on email, team chat and console only, no paging, no escalation.';

/** /api/v1/alerting/policies and /api/v1/alerting/maintenance-windows: create, list, read, replace, delete. */
export async function settingsRoutes(app: FastifyInstance, { settings }: { settings: AlertSettings }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: app.authenticate(INCIDENT_ROLES) };
  const Policy = Envelope(schemas.PolicySchema);
  const Window = Envelope(schemas.WindowSchema);
  const policyParams = schemas.PolicyParamsSchema;
  const windowParams = schemas.WindowParamsSchema;

  r.post(
    '/alerting/policies',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Create an escalation policy',
        description: `${POLICY_NOTE} 409 DEFAULT_POLICY_EXISTS for a second default.`,
        body: schemas.PolicyBodySchema,
        response: { 201: Policy, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, await settings.policies.create(tenant(request), request.body));
    },
  );
  r.get(
    '/alerting/policies',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The tenant’s escalation policies, in matching order',
        querystring: schemas.ListQuerySchema,
        response: { 200: PageEnvelope(schemas.PolicySchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await settings.policies.list(tenant(request), request.query);
      return pageEnvelope(request.id, page.items, request.query.limit, page.nextCursor);
    },
  );
  r.get(
    '/alerting/policies/:policy_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One escalation policy',
        params: policyParams,
        response: { 200: Policy, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await settings.policies.get(tenant(request), request.params.policy_id)),
  );
  r.put(
    '/alerting/policies/:policy_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Replace an escalation policy',
        description: 'Alerts already open keep the policy as it was when they opened.',
        params: policyParams,
        body: schemas.PolicyBodySchema,
        response: { 200: Policy, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await settings.policies.replace(tenant(request), request.params.policy_id, request.body),
      ),
  );
  r.delete(
    '/alerting/policies/:policy_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Delete an escalation policy',
        params: policyParams,
        response: { 204: { type: 'null' }, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await settings.policies.remove(tenant(request), request.params.policy_id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/alerting/maintenance-windows',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Create a maintenance window',
        description: WINDOW_NOTE,
        body: schemas.WindowBodySchema,
        response: { 201: Window, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, await settings.windows.create(tenant(request), request.body));
    },
  );
  r.get(
    '/alerting/maintenance-windows',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The tenant’s maintenance windows',
        querystring: schemas.WindowListQuerySchema,
        response: { 200: PageEnvelope(schemas.WindowSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const page = await settings.windows.list(tenant(request), request.query);
      return pageEnvelope(request.id, page.items, request.query.limit, page.nextCursor);
    },
  );
  r.get(
    '/alerting/maintenance-windows/:window_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One maintenance window',
        params: windowParams,
        response: { 200: Window, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await settings.windows.get(tenant(request), request.params.window_id)),
  );
  r.put(
    '/alerting/maintenance-windows/:window_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Replace a maintenance window',
        params: windowParams,
        body: schemas.WindowBodySchema,
        response: { 200: Window, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await settings.windows.replace(tenant(request), request.params.window_id, request.body),
      ),
  );
  r.delete(
    '/alerting/maintenance-windows/:window_id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Delete a maintenance window',
        params: windowParams,
        response: { 204: { type: 'null' }, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await settings.windows.remove(tenant(request), request.params.window_id);
      return reply.code(204).send();
    },
  );
}
