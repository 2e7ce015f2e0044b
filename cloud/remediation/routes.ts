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
import type { RemediationService } from './service.ts';

const doc = { tags: ['aiops'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;

/** /api/v1/alerting/aiops/remediate and the remediations list. */
export async function remediationRoutes(
  app: FastifyInstance,
  { remediation }: { remediation: RemediationService },
) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const guard = { onRequest: app.authenticate(INCIDENT_ROLES) };
  const Remediation = Envelope(schemas.RemediationSchema);

  r.post(
    '/remediate',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'Remediate an alert',
        description:
          '200 with status executed, failed or timed_out when it ran (auto-approved), or dry_run; 202 pending_approval when it waits in the cockpit queue. Refusals: 423 AGENTS_KILL_SWITCH, 422 no_executor, 422 TARGET_NOT_FOUND, 429 REMEDIATION_RATE_LIMITED (Retry-After, and when it frees in details).',
        headers: schemas.RemediateHeadersSchema,
        body: schemas.RemediateBodySchema,
        response: {
          200: Remediation,
          202: Remediation,
          ...errorResponses(400, 401, 403, 404, 422, 423, 429),
        },
      },
    },
    async (request, reply) => {
      const record = await remediation.remediate(
        tenant(request),
        request.body,
        requireAuth(request).userId,
        request.headers['idempotency-key'],
      );
      reply.code(record.status === 'pending_approval' ? 202 : 200);
      return envelope(request.id, record);
    },
  );

  r.get(
    '/remediations',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'The tenant’s remediations, newest first',
        querystring: schemas.RemediationListQuerySchema,
        response: { 200: PageEnvelope(schemas.RemediationSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { status, alert_id, limit, cursor } = request.query;
      const page = await remediation.list(tenant(request), { status, alertId: alert_id }, { limit, cursor });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.get(
    '/remediations/:id',
    {
      ...guard,
      schema: {
        ...doc,
        summary: 'One remediation',
        params: schemas.RemediationParamsSchema,
        response: { 200: Remediation, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await remediation.get(tenant(request), request.params.id)),
  );
}
