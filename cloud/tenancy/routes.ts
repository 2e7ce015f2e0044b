import type { FastifyInstance } from 'fastify';
import type { CloudServices } from '../services.ts';
import { ssoAdminRoutes } from '../sso/index.ts';
import { structureRoutes } from './routes-structure.ts';
import { userRoutes } from './routes-users.ts';

/** /v1/platform: tenant administration for platform_admin, tenant_admin and system_admin. */
export async function platformRoutes(app: FastifyInstance, { services }: { services: CloudServices }) {
  // Administration is security-relevant: every change that succeeded is recorded with its actor.
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'GET' || reply.statusCode >= 400 || !request.auth) return;
    await services.audit.record({
      action: `platform.${request.method.toLowerCase()} ${request.routeOptions.url ?? request.url}`,
      outcome: 'success',
      tenantId: request.auth.tenantId,
      userId: request.auth.userId,
      ipAddress: request.ip,
      details: { params: request.params, status: reply.statusCode, request_id: request.id },
    });
  });
  await app.register(structureRoutes, { services });
  await app.register(userRoutes, { services });
  await app.register(ssoAdminRoutes, { prefix: '/sso', sso: services.sso });
}
