import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../audit/index.ts';
import { acceptRawBodies } from './http.ts';
import type { RolloutService } from './rollouts.ts';
import { keyRoutes } from './routes-keys.ts';
import { releaseRoutes } from './routes-releases.ts';
import { rolloutRoutes } from './routes-rollouts.ts';
import { uploadRoutes } from './routes-uploads.ts';
import type { ReleaseService } from './service.ts';

export interface ReleaseRouteOptions {
  releases: ReleaseService;
  rollouts: RolloutService;
  audit: AuditLog;
  /** The largest archive an upload may carry, for the docs. */
  maxBytes: number;
}

/** Registered under /v1/mdm; every administrator's change that succeeded goes to the audit trail. */
export async function releasesRoutes(app: FastifyInstance, options: ReleaseRouteOptions) {
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 400 || !request.auth)
      return;
    await options.audit.record({
      action: `releases.${request.method.toLowerCase()} ${request.routeOptions.url ?? request.url}`,
      outcome: 'success',
      tenantId: request.auth.tenantId,
      userId: request.auth.userId,
      ipAddress: request.ip,
      details: { params: request.params, status: reply.statusCode, request_id: request.id },
    });
  });
  acceptRawBodies(app);
  const { releases, maxBytes } = options;
  await app.register(keyRoutes, { releases });
  await app.register(releaseRoutes, { releases, maxBytes });
  await app.register(uploadRoutes, { releases, maxBytes });
  await app.register(rolloutRoutes, { rollouts: options.rollouts });
}
