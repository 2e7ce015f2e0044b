import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../../shared/http/envelope.ts';
import { MANAGER_ROLES } from '../../../shared/roles.ts';
import {
  CameraSettingsSchema,
  DriveThruSettingsSchema,
  EdgeSettingsSchema,
  EffectiveCameraSettingsSchema,
  EffectiveDriveThruSettingsSchema,
  EffectiveEdgeSettingsSchema,
} from '../settings/index.ts';
import { cameraRecord } from './camera.ts';
import * as schemas from './schemas.ts';
import type { VisionRegistry } from './service.ts';

export interface VisionRoutesOptions {
  vision: VisionRegistry;
}

const doc = { tags: ['vision'], security: [{ bearer: [] }] };
const REPLACES =
  'Replaces the section whole: a setting left out goes back to its default (as a settings command from the cloud does). Answers the effective settings, defaults filled in; running pipelines take them at once.';

const listCameras = (vision: VisionRegistry) => ({ cameras: vision.listCameras().map(cameraRecord) });

/** `/api/vision`: the documented camera list, for everyone on shift. */
export async function visionApiRoutes(app: FastifyInstance, { vision }: VisionRoutesOptions) {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/cameras',
    {
      onRequest: app.authenticate(),
      schema: {
        ...doc,
        summary: 'The store’s cameras with their live status',
        description: 'Each camera: type, online or offline, frames per second processed now, last detection.',
        response: { 200: Envelope(schemas.CameraListSchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, listCameras(vision)),
  );
}

/**
 * `/v1/vision`: cameras, their zones and settings, the drive-thru's and the edge's settings.
 * Everyone on shift reads them; managers change them.
 */
export async function visionRoutes(app: FastifyInstance, { vision }: VisionRoutesOptions) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const staff = { onRequest: app.authenticate() };
  const managers = { onRequest: app.authenticate(MANAGER_ROLES) };

  r.get(
    '/cameras',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'The store’s cameras with their live status',
        description: 'The same list as GET /api/vision/cameras.',
        response: { 200: Envelope(schemas.CameraListSchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, listCameras(vision)),
  );

  r.post(
    '/cameras',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Register a camera (managers only)',
        description:
          'An enabled camera counts against the edge’s max_concurrent_streams: past it the answer is 409 CAMERA_STREAM_LIMIT. Zones are checked against the camera’s inference resolution.',
        body: schemas.CreateCameraSchema,
        response: { 201: Envelope(schemas.CameraSchema), ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, cameraRecord(vision.register(request.body)));
    },
  );

  r.get(
    '/cameras/:camera_id',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'A camera’s status',
        description: 'The camera record with the live figures its pipeline last reported.',
        params: schemas.CameraParamsSchema,
        response: { 200: Envelope(schemas.CameraSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, cameraRecord(vision.cameraStatus(request.params.camera_id))),
  );

  r.patch(
    '/cameras/:camera_id',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Rename, retype, repoint, enable or disable a camera (managers only)',
        description:
          'Enabling counts against max_concurrent_streams (409 CAMERA_STREAM_LIMIT past it). A source_url sent back as shown, password masked, keeps the stored one.',
        params: schemas.CameraParamsSchema,
        body: schemas.UpdateCameraSchema,
        response: { 200: Envelope(schemas.CameraSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(request.id, cameraRecord(vision.update(request.params.camera_id, request.body))),
  );

  r.delete(
    '/cameras/:camera_id',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Remove a camera with its zones and settings (managers only)',
        params: schemas.CameraParamsSchema,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      vision.remove(request.params.camera_id);
      reply.code(204);
    },
  );

  r.put(
    '/cameras/:camera_id/zones',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Replace a camera’s zones (managers only)',
        description:
          'Named polygons of at least 3 points in pixels of the camera’s inference resolution, in order (where zones overlap, an object is in the first). When the inference resolution changes later, the zones are scaled with it.',
        params: schemas.CameraParamsSchema,
        body: schemas.ZonesBodySchema,
        response: { 200: Envelope(schemas.CameraSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, cameraRecord(vision.putZones(request.params.camera_id, request.body.zones))),
  );

  r.get(
    '/cameras/:camera_id/settings',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'A camera’s settings, defaults filled in',
        params: schemas.CameraParamsSchema,
        response: { 200: Envelope(EffectiveCameraSettingsSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, vision.cameraSettings(request.params.camera_id)),
  );

  r.put(
    '/cameras/:camera_id/settings',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Set a camera’s settings (managers only)',
        description: REPLACES,
        params: schemas.CameraParamsSchema,
        body: CameraSettingsSchema,
        response: { 200: Envelope(EffectiveCameraSettingsSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, vision.putCameraSettings(request.params.camera_id, request.body)),
  );

  r.get(
    '/drive-thru/settings',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'The drive-thru’s tracking settings, defaults filled in',
        response: { 200: Envelope(EffectiveDriveThruSettingsSchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, vision.driveThruSettings()),
  );

  r.put(
    '/drive-thru/settings',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Set the drive-thru’s tracking settings (managers only)',
        description: REPLACES,
        body: DriveThruSettingsSchema,
        response: { 200: Envelope(EffectiveDriveThruSettingsSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => envelope(request.id, vision.putDriveThruSettings(request.body)),
  );

  r.get(
    '/edge/:edge_id/settings',
    {
      ...staff,
      schema: {
        ...doc,
        summary: 'This edge device’s settings, defaults filled in',
        description: 'edge_id is this appliance’s id or `self`; any other is 404.',
        params: schemas.EdgeParamsSchema,
        response: { 200: Envelope(EffectiveEdgeSettingsSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => envelope(request.id, vision.edgeSettings(request.params.edge_id)),
  );

  r.put(
    '/edge/:edge_id/settings',
    {
      ...managers,
      schema: {
        ...doc,
        summary: 'Set this edge device’s settings (managers only)',
        description: `${REPLACES} A max_concurrent_streams below the cameras enabled is 409 CAMERA_STREAM_LIMIT.`,
        params: schemas.EdgeParamsSchema,
        body: EdgeSettingsSchema,
        response: { 200: Envelope(EffectiveEdgeSettingsSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => envelope(request.id, vision.putEdgeSettings(request.params.edge_id, request.body)),
  );
}
