import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import type { Role } from '../../shared/roles.ts';
import { requireAuth } from '../gateway/index.ts';
import type { Decision } from './approvals.ts';
import type { CockpitService } from './index.ts';
import * as schemas from './schemas.ts';

/** Spec 3: the operations console requires the role cockpit_operator, and only it. */
export const COCKPIT_ROLES: readonly Role[] = ['cockpit_operator'];

const doc = { tags: ['cockpit'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;
const user = (request: FastifyRequest) => requireAuth(request).userId;

/** /api/internal/cockpit: the approval queue, agent settings and AI metrics. */
export async function cockpitRoutes(app: FastifyInstance, { cockpit }: { cockpit: CockpitService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: app.authenticate(COCKPIT_ROLES) };
  const params = schemas.ApprovalParamsSchema;
  const Approval = Envelope(schemas.ApprovalSchema);
  const decided = {
    200: Approval,
    ...errorResponses(400, 401, 403, 404, 409),
  };
  const decide = (request: FastifyRequest, id: string, decision: Omit<Decision, 'user_id'>) =>
    cockpit.approvals
      .decide(tenant(request), id, { ...decision, user_id: user(request) })
      .then((approval) => envelope(request.id, approval));

  r.get(
    '/approvals',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The approval queue, oldest first',
        querystring: schemas.ApprovalListQuerySchema,
        response: { 200: PageEnvelope(schemas.ApprovalSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { status, kind, limit, cursor } = request.query;
      const page = await cockpit.approvals.list(tenant(request), { status, kind }, { limit, cursor });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.get(
    '/approvals/:id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One approval item with every decision taken on it',
        params,
        response: { 200: Envelope(schemas.ApprovalDetailSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await cockpit.approvals.get(tenant(request), request.params.id)),
  );

  const decisionDoc = (summary: string, description: string) => ({ ...doc, summary, description, params });
  const once =
    ' A decided item answers 409 APPROVAL_ALREADY_DECIDED; the same request sent again answers the item as it is.';

  r.post(
    '/approvals/:id/approve',
    {
      ...guard,
      schema: {
        ...decisionDoc('Approve (with a note)', `pending or escalated → approved.${once}`),
        body: schemas.ApproveBodySchema,
        response: decided,
      },
    },
    async (request) => {
      const { note, operator_id } = request.body;
      return decide(request, request.params.id, {
        action: note ? 'approve_with_note' : 'approve',
        note,
        operator_id,
      });
    },
  );

  r.post(
    '/approvals/:id/modify',
    {
      ...guard,
      schema: {
        ...decisionDoc('Modify and approve', `The payload is replaced, then approved.${once}`),
        body: schemas.ModifyBodySchema,
        response: decided,
      },
    },
    async (request) => decide(request, request.params.id, { action: 'modify', ...request.body }),
  );

  r.post(
    '/approvals/:id/reject',
    {
      ...guard,
      schema: {
        ...decisionDoc('Reject with a reason', `pending or escalated → rejected.${once}`),
        body: schemas.RejectBodySchema,
        response: decided,
      },
    },
    async (request) => decide(request, request.params.id, { action: 'reject', ...request.body }),
  );

  r.post(
    '/approvals/:id/escalate',
    {
      ...guard,
      schema: {
        ...decisionDoc(
          'Escalate',
          `pending → escalated; an escalated item may still be approved or rejected, not escalated again.${once}`,
        ),
        body: schemas.EscalateBodySchema,
        response: decided,
      },
    },
    async (request) => decide(request, request.params.id, { action: 'escalate', ...request.body }),
  );

  const Settings = Envelope(schemas.AgentSettingsSchema);
  r.get(
    '/agents/settings',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The tenant’s agent settings (the defaults until changed)',
        response: { 200: Settings, ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, await cockpit.settings(tenant(request))),
  );

  r.put(
    '/agents/settings',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Change agent settings',
        description: 'The fields given change; the others keep their value.',
        body: schemas.AgentSettingsBodySchema,
        response: { 200: Settings, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) =>
      envelope(request.id, await cockpit.agentSettings.put(tenant(request), request.body, user(request))),
  );

  r.get(
    '/metrics/ai',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'AI metrics over a period (24h, 7d or 30d; 24h by default)',
        querystring: schemas.MetricsQuerySchema,
        response: { 200: Envelope(schemas.AiMetricsSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const report = await cockpit.metrics.report(tenant(request), request.query.period ?? '24h');
      // Registered sources (remediation) add their own sections; the schema lists them.
      return envelope(request.id, report as Static<typeof schemas.AiMetricsSchema>);
    },
  );
}
