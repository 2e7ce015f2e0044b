/**
 * Vision model versions in the cloud (issue 7): a tenant's detection models, each version
 * registered with its manifest and its .onnx uploaded and checked against the manifest's digest,
 * downloads for administrators and the tenant's appliances, and model syncs that send an edge
 * appliance the versions to install as a `models_sync` command over the fleet link. Owns the
 * vision_models, vision_model_versions and vision_model_chunks tables; served under /v1/vision.
 */
import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../../audit/index.ts';
import { type AuthenticateAppliance, createModelAccess } from './access.ts';
import { modelRoutes } from './routes-models.ts';
import { syncRoutes } from './routes-sync.ts';
import type { VisionModelService } from './service.ts';

export { createEdgeFleet, type EdgeFleet } from './edges.ts';
export {
  createVisionModelService,
  DEFAULT_VISION_MODEL_OPTIONS,
  type VisionModelOptions,
  type VisionModelService,
} from './service.ts';

export interface VisionModelRouteOptions {
  models: VisionModelService;
  audit: AuditLog;
  authenticateAppliance: AuthenticateAppliance;
  /** The address appliances reach this cloud by (download URLs); the request's own when unset. */
  publicUrl: string | undefined;
  maxBytes: number;
}

/** Registered under /v1/vision; every administrator's change that succeeded goes to the audit trail. */
export async function visionModelRoutes(app: FastifyInstance, options: VisionModelRouteOptions) {
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'GET' || request.method === 'HEAD' || reply.statusCode >= 400 || !request.auth)
      return;
    await options.audit.record({
      action: `vision.models.${request.method.toLowerCase()} ${request.routeOptions.url ?? request.url}`,
      outcome: 'success',
      tenantId: request.auth.tenantId,
      userId: request.auth.userId,
      ipAddress: request.ip,
      details: { params: request.params, status: reply.statusCode, request_id: request.id },
    });
  });
  const access = createModelAccess(app, options.authenticateAppliance);
  await app.register(modelRoutes, { models: options.models, access, maxBytes: options.maxBytes });
  await app.register(syncRoutes, {
    models: options.models,
    access,
    publicUrl: options.publicUrl,
    modelsPrefix: app.prefix,
  });
}
