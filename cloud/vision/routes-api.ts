import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { READ_ROLES_NOTE, VISION_READER_ROLES, viewerOf } from './access.ts';
import * as schemas from './schemas.ts';
import type { VisionService } from './service.ts';

const doc = { tags: ['vision'], security: [{ bearer: [] }] };

export const DRIVE_THRU_STATUS_NOTE =
  'One lane: the only one the tenant has, or the one location_id (and, for a store with several lanes, camera_id) names; several lanes and no choice is 400 LOCATION_REQUIRED or CAMERA_REQUIRED. From the lane state the store last synced; `stale` when it is over 2 minutes old or the camera is offline.';

/** `GET /drive-thru/status`, the same under /api/vision and /v1/vision. */
export function driveThruStatusRoute(app: FastifyInstance, vision: VisionService, description: string) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/drive-thru/status',
    {
      onRequest: app.authenticate(VISION_READER_ROLES),
      schema: {
        ...doc,
        summary: 'A drive-thru lane’s queue',
        description: `${description} ${READ_ROLES_NOTE}`,
        querystring: schemas.DriveThruQuerySchema,
        response: { 200: Envelope(schemas.DriveThruStatusSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await vision.driveThruStatus(viewerOf(request), request.query)),
  );
}

/** `/api/vision`: the camera list, drive-thru status, order verification and occupancy. */
export async function visionApiRoutes(app: FastifyInstance, { vision }: { vision: VisionService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const readers = { onRequest: app.authenticate(VISION_READER_ROLES) };

  r.get(
    '/cameras',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'The tenant’s cameras as their stores last synced them',
        description: `A session signed in at one store sees that store's. ${READ_ROLES_NOTE}`,
        querystring: schemas.LocationQuerySchema,
        response: { 200: Envelope(schemas.CameraListSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) =>
      envelope(request.id, { cameras: await vision.listCameras(viewerOf(request), request.query) }),
  );

  driveThruStatusRoute(app, vision, DRIVE_THRU_STATUS_NOTE);

  r.post(
    '/verify-order',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'The store’s latest verification of an order at a camera',
        description: `The cloud sees no camera frames: it answers the latest verification the store synced for this order at this camera (the store checks a tray when the order is ready, or when asked at its own API), with when and why it was made. expected_items is validated but does not change the answer: the store compared the tray with the order as it holds it. 404 VERIFICATION_NOT_FOUND when the store has synced none. ${READ_ROLES_NOTE}`,
        body: schemas.VerifyOrderSchema,
        response: { 200: Envelope(schemas.VerificationSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, await vision.latestVerification(viewerOf(request), request.body)),
  );

  r.get(
    '/occupancy/:location_id',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'A store’s occupancy as last counted',
        description: `404 OCCUPANCY_NOT_FOUND until the store has synced a count. ${READ_ROLES_NOTE}`,
        params: schemas.LocationParamsSchema,
        response: { 200: Envelope(schemas.OccupancySchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await vision.occupancy(viewerOf(request), request.params.location_id)),
  );
}
