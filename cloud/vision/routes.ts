import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import {
  Envelope,
  envelope,
  errorResponses,
  PageEnvelope,
  pageEnvelope,
} from '../../shared/http/envelope.ts';
import { READ_ROLES_NOTE, VISION_READER_ROLES, viewerOf } from './access.ts';
import { DRIVE_THRU_STATUS_NOTE, driveThruStatusRoute } from './routes-api.ts';
import * as schemas from './schemas.ts';
import type { VisionService } from './service.ts';

const doc = { tags: ['vision'], security: [{ bearer: [] }] };

/** `/v1/vision`: cameras, their detections, the drive-thru, and model metrics. Settings: routes-settings.ts. */
export async function visionReadRoutes(app: FastifyInstance, { vision }: { vision: VisionService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const readers = { onRequest: app.authenticate(VISION_READER_ROLES) };

  r.get(
    '/cameras/:camera_id',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'A camera’s status as its store last synced it',
        description: `Another tenant’s camera, or another store’s for a session signed in at one, is 404 CAMERA_NOT_FOUND. ${READ_ROLES_NOTE}`,
        params: schemas.CameraParamsSchema,
        response: { 200: Envelope(schemas.CameraSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await vision.getCamera(viewerOf(request), request.params.camera_id)),
  );

  r.get(
    '/cameras/:camera_id/detections',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'A camera’s detections, newest first',
        description: `One per object the camera started tracking (not per frame), as the store synced them; pages of \`limit\` (default 50, at most 500) follow \`next_cursor\`. ${READ_ROLES_NOTE}`,
        params: schemas.CameraParamsSchema,
        querystring: schemas.DetectionsQuerySchema,
        response: { 200: PageEnvelope(schemas.DetectionSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const page = await vision.detections(viewerOf(request), request.params.camera_id, request.query);
      return pageEnvelope(request.id, page.items, request.query.limit, page.nextCursor);
    },
  );

  driveThruStatusRoute(
    app,
    vision,
    `The same answer as GET /api/vision/drive-thru/status. ${DRIVE_THRU_STATUS_NOTE}`,
  );

  r.get(
    '/drive-thru/tracks',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'Cars that left the drive-thru lanes in the period, newest first',
        description: `Each visit with its times at every point, its events, how it ended and the order paid at the pay window. \`period\` (default 1h, at most 30d) counts back from now by when the car left; pages of \`limit\` follow \`next_cursor\`. ${READ_ROLES_NOTE}`,
        querystring: schemas.TracksQuerySchema,
        response: { 200: PageEnvelope(schemas.TrackSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => {
      const page = await vision.tracks(viewerOf(request), request.query);
      return pageEnvelope(request.id, page.items, request.query.limit, page.nextCursor);
    },
  );

  r.get(
    '/models/:model_id/metrics',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'A model’s figures over a period, per camera, with threshold alerts',
        description: `Summed from the per-minute figures every camera running the model synced (optionally one store's). Counts are sums; fps figures are means over the minutes; latency percentiles cannot be rebuilt from minutes, so each is the mean of the minutes' figures weighted by their inferences. Alerts per camera by these thresholds: camera_fps under 10 warning, under 5 critical; inference_latency_p99 over 500 ms warning, over 1000 ms critical. \`period\` default 24h, at most 30d. 404 MODEL_NOT_FOUND when no store of the tenant ever reported the model. ${READ_ROLES_NOTE}`,
        params: schemas.ModelParamsSchema,
        querystring: schemas.MetricsQuerySchema,
        response: { 200: Envelope(schemas.ModelMetricsSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await vision.modelMetrics(viewerOf(request), request.params.model_id, request.query),
      ),
  );
}
