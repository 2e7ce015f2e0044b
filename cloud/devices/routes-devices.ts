import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
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
import * as schemas from './schemas.ts';
import type { DeviceService } from './service.ts';

/** The spec names no roles: a tenant's administrators manage its devices, its managers look. */
export const DEVICE_ADMIN_ROLES: readonly Role[] = [
  'tenant_admin',
  'platform_admin',
  'system_admin',
  'super_admin',
];
export const DEVICE_READER_ROLES: readonly Role[] = [...DEVICE_ADMIN_ROLES, 'manager', 'restaurant_manager'];

const doc = { tags: ['devices'], security: [{ bearer: [] }] };
const tenant = (request: FastifyRequest) => requireAuth(request).tenantId;

/** /v1/mdm/devices: the registry and the commands an administrator gives a device. */
export async function deviceRoutes(app: FastifyInstance, { devices }: { devices: DeviceService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const admins = { onRequest: app.authenticate(DEVICE_ADMIN_ROLES) };
  const readers = { onRequest: app.authenticate(DEVICE_READER_ROLES) };
  const params = schemas.DeviceParamsSchema;
  const Device = Envelope(schemas.DeviceSchema);

  r.post(
    '/devices',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Register a device (pending_activation) and get its one-time enrolment token',
        body: schemas.NewDeviceSchema,
        response: { 201: Envelope(schemas.RegisteredDeviceSchema), ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, await devices.register(tenant(request), request.body));
    },
  );

  r.get(
    '/devices',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'The tenant’s devices',
        querystring: schemas.DeviceListQuerySchema,
        response: { 200: PageEnvelope(schemas.DeviceSchema), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const { location_id, state, device_type, limit, cursor } = request.query;
      const filter = { locationId: location_id, state, deviceType: device_type };
      const page = await devices.listDevices(tenant(request), filter, { limit, cursor });
      return pageEnvelope(request.id, page.items, limit, page.nextCursor);
    },
  );

  r.get(
    '/devices/:device_id',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'One device',
        params,
        response: { 200: Device, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await devices.getDevice(tenant(request), request.params.device_id)),
  );

  r.post(
    '/devices/:device_id/regenerate-token',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'A new enrolment token; the previous one stops working',
        params,
        response: {
          200: Envelope(schemas.EnrollmentTokenSchema),
          ...errorResponses(400, 401, 403, 404, 409),
        },
      },
    },
    async (request) =>
      envelope(request.id, await devices.regenerateToken(tenant(request), request.params.device_id)),
  );

  r.post(
    '/devices/:device_id/revoke',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Revoke a device for good, and every certificate it holds',
        params,
        body: schemas.RevokeBodySchema,
        response: { 200: Device, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(
        request.id,
        await devices.revokeDevice(tenant(request), request.params.device_id, request.body.reason),
      ),
  );

  r.post(
    '/devices/:device_id/restart',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Queue a restart (the waiting one when there is one)',
        params,
        response: { 202: Envelope(schemas.CommandSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      reply.code(202);
      return envelope(request.id, await devices.restart(tenant(request), request.params.device_id));
    },
  );

  r.get(
    '/devices/:device_id/updates/status',
    {
      ...readers,
      schema: {
        ...doc,
        summary: 'The latest over-the-air update asked of the device',
        params,
        response: { 200: Envelope(schemas.UpdateStatusSchema), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      envelope(request.id, await devices.updateStatus(tenant(request), request.params.device_id)),
  );

  r.post(
    '/devices/:device_id/updates/cancel',
    {
      ...admins,
      schema: {
        ...doc,
        summary: 'Cancel the latest update until it ends',
        description:
          'A queued update is never sent. One the device holds (sent, or acknowledged and in progress) is cancelled here at once and a `cancel_update` command carries the cancellation to the device, which stops and rolls back; if the device finished first, the update shows `succeeded` when its answer arrives. An update that ended answers 409 UPDATE_NOT_CANCELLABLE.',
        params,
        response: { 200: Envelope(schemas.UpdateStatusSchema), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) =>
      envelope(request.id, await devices.cancelUpdate(tenant(request), request.params.device_id)),
  );
}
