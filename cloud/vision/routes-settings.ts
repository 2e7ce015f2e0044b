import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import { InvalidRequestError } from '../../shared/http/errors.ts';
import { CameraSettingsSchema, EdgeSettingsSchema } from '../../shared/vision/settings.ts';
import {
  CHANGE_ROLES_NOTE,
  READ_ROLES_NOTE,
  VISION_MANAGER_ROLES,
  VISION_READER_ROLES,
  viewerOf,
} from './access.ts';
import * as schemas from './schemas.ts';
import type { VisionService } from './service.ts';

const doc = { tags: ['vision'], security: [{ bearer: [] }] };

const SENT =
  'Every setting is checked as the store checks it (unknown keys refused) and the section replaces the one at the store: a setting left out goes back to its default. The request travels to the store’s appliance as a fleet `settings` command of the device registry; the answer is 202 with the command’s id (its state then shows in the GET’s `pending.command_state`) and what the store will run. 409 EDGE_NOT_MANAGED when the store’s appliance is not an enrolled MDM device (the cloud cannot reach it).';
const AWAITED =
  '`pending` shows the latest change asked from the cloud until it shows at the store, with its fleet command’s state (a failed or expired command stays shown until the next change).';
const UNSYNCED =
  'These settings do not sync up: `settings` are the last the appliance confirmed from the cloud (defaults when none; changes made at the store’s own API are not seen here).';

/** The store named in the body or the query; naming two different ones is a mistake. */
function askedLocation(
  query: { location_id?: string | undefined },
  body: { location_id?: string | undefined },
) {
  if (query.location_id && body.location_id && query.location_id !== body.location_id)
    throw new InvalidRequestError('The request is invalid', [
      { field: 'body.location_id', message: 'differs from query.location_id' },
    ]);
  return body.location_id ?? query.location_id;
}

/** `/v1/vision`: settings of cameras, drive-thru and edge devices, and calibration. */
export async function visionSettingsRoutes(app: FastifyInstance, { vision }: { vision: VisionService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const readers = { onRequest: app.authenticate(VISION_READER_ROLES) };
  const managers = { onRequest: app.authenticate(VISION_MANAGER_ROLES) };

  r.get(
    '/cameras/:camera_id/settings',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'A camera’s settings as its store runs them, and any change awaited',
        description: `${AWAITED} ${READ_ROLES_NOTE}`,
        params: schemas.CameraParamsSchema,
        response: { 200: Envelope(schemas.CameraSettingsViewSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await vision.cameraSettings(viewerOf(request), request.params.camera_id)),
  );

  r.put(
    '/cameras/:camera_id/settings',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Change a camera’s settings (sent to its store)',
        description: `${SENT} ${CHANGE_ROLES_NOTE}`,
        params: schemas.CameraParamsSchema,
        body: CameraSettingsSchema,
        response: {
          202: Envelope(schemas.CameraSettingsAcceptedSchema),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return envelope(
        request.id,
        await vision.putCameraSettings(viewerOf(request), request.params.camera_id, request.body),
      );
    },
  );

  r.post(
    '/cameras/:camera_id/calibrate',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Ask the store to calibrate a camera',
        description: `Queues a fleet \`calibrate\` command ({camera_id}) for the store’s appliance: 202 with the command’s id. 409 EDGE_NOT_MANAGED when the appliance is not an enrolled MDM device. ${CHANGE_ROLES_NOTE}`,
        params: schemas.CameraParamsSchema,
        response: {
          202: Envelope(schemas.CalibrateAcceptedSchema),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return envelope(request.id, await vision.calibrate(viewerOf(request), request.params.camera_id));
    },
  );

  r.get(
    '/drive-thru/settings',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'A store’s drive-thru tracking settings',
        description: `location_id is required (a session signed in at one store defaults to it). ${UNSYNCED} ${AWAITED} ${READ_ROLES_NOTE}`,
        querystring: schemas.LocationQuerySchema,
        response: {
          200: Envelope(schemas.DriveThruSettingsViewSchema),
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request) => envelope(request.id, await vision.driveThruSettings(viewerOf(request), request.query)),
  );

  r.put(
    '/drive-thru/settings',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Change a store’s drive-thru tracking settings (sent to it)',
        description: `The store is location_id, in the body or the query. ${SENT} ${CHANGE_ROLES_NOTE}`,
        querystring: schemas.LocationQuerySchema,
        body: schemas.DriveThruSettingsBodySchema,
        response: {
          202: Envelope(schemas.DriveThruSettingsAcceptedSchema),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      const { location_id: _, ...settings } = request.body;
      const locationId = askedLocation(request.query, request.body);
      reply.code(202);
      return envelope(request.id, await vision.putDriveThruSettings(viewerOf(request), locationId, settings));
    },
  );

  r.get(
    '/edge/:edge_id/settings',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'An edge device’s (a store appliance’s) settings',
        description: `${UNSYNCED} ${AWAITED} \`managed\` says whether the cloud can send it changes. ${READ_ROLES_NOTE}`,
        params: schemas.EdgeParamsSchema,
        response: { 200: Envelope(schemas.EdgeSettingsViewSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await vision.edgeSettings(viewerOf(request), request.params.edge_id)),
  );

  r.put(
    '/edge/:edge_id/settings',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Change an edge device’s settings (sent to it)',
        description: `${SENT} A max_concurrent_streams below the cameras the store has enabled is 409 CAMERA_STREAM_LIMIT, as the store would answer. ${CHANGE_ROLES_NOTE}`,
        params: schemas.EdgeParamsSchema,
        body: EdgeSettingsSchema,
        response: {
          202: Envelope(schemas.EdgeSettingsAcceptedSchema),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return envelope(
        request.id,
        await vision.putEdgeSettings(viewerOf(request), request.params.edge_id, request.body),
      );
    },
  );
}
