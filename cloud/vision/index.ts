/**
 * Vision in the cloud: what the stores' camera pipelines sync up (camera states, detections,
 * drive-thru tracks and lane states, order verifications, per-minute model figures, occupancy),
 * answered per tenant under /api/vision and /v1/vision, and the settings and calibration
 * the cloud asks of a store, sent to its appliance as fleet commands of the device registry. Owns
 * the vision_* tables; synced rows reach it through cloud/flows/vision.ts. Model sync
 * (cloud/vision/models/) is its own plugin.
 */
import type { FastifyInstance } from 'fastify';
import type { AuditLog } from '../audit/index.ts';
import { visionReadRoutes } from './routes.ts';
import { visionSettingsRoutes } from './routes-settings.ts';
import type { VisionService } from './service.ts';

export { VISION_MANAGER_ROLES, VISION_READER_ROLES } from './access.ts';
export type { EdgeCommand, QueuedCommand, VisionEdges } from './context.ts';
export { VISION_THRESHOLDS } from './metrics.ts';
export { visionApiRoutes } from './routes-api.ts';
export { createVisionService, type VisionService } from './service.ts';

/** /v1/vision; every change that succeeded goes to the audit trail with its actor. */
export async function visionRoutes(
  app: FastifyInstance,
  options: { vision: VisionService; audit: AuditLog },
) {
  app.addHook('onResponse', async (request, reply) => {
    if (request.method === 'GET' || reply.statusCode >= 400 || !request.auth) return;
    await options.audit.record({
      action: `vision.${request.method.toLowerCase()} ${request.routeOptions.url ?? request.url}`,
      outcome: 'success',
      tenantId: request.auth.tenantId,
      userId: request.auth.userId,
      ipAddress: request.ip,
      details: { params: request.params, status: reply.statusCode, request_id: request.id },
    });
  });
  await app.register(visionReadRoutes, { vision: options.vision });
  await app.register(visionSettingsRoutes, { vision: options.vision });
}
export {
  createEdgeFleet,
  createVisionModelService,
  DEFAULT_VISION_MODEL_OPTIONS,
  type VisionModelOptions,
  visionModelRoutes,
} from './models/index.ts';
export type { VisionModelTables } from './models/tables.ts';
export type { VisionTables } from './tables.ts';
