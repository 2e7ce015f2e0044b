import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { Envelope, envelope, errorResponses } from '../../shared/http/envelope.ts';
import type { Role } from '../../shared/roles.ts';
import { DEVICE_ADMIN_ROLES } from '../devices/index.ts';
import * as schemas from './schemas.ts';
import type { ReleaseService } from './service.ts';

/** The update key is every tenant's appliances' trust anchor: only the platform's operators rotate it. */
export const KEY_ROTATION_ROLES: readonly Role[] = ['platform_admin', 'system_admin', 'super_admin'];

const doc = { tags: ['releases'], security: [{ bearer: [] }] };

/** /v1/mdm/update-keys: the cloud's update signing keys (public halves) and their rotation. */
export async function keyRoutes(app: FastifyInstance, { releases }: { releases: ReleaseService }) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/update-keys',
    {
      onRequest: app.authenticate(DEVICE_ADMIN_ROLES),
      schema: {
        ...doc,
        summary: 'The cloud’s update signing keys, oldest first',
        description:
          'Cloud-wide (the same for every tenant). The `active` key signs update manifests; retired keys stay trusted, and a manifest carries endorsements from the first key to the active one. An appliance is set up with any of these public keys (the active one for a new appliance) as `APPLIANCE_UPDATE_PUBLIC_KEY`.',
        response: { 200: Envelope(Type.Array(schemas.UpdateKeySchema)), ...errorResponses(401, 403) },
      },
    },
    async (request) => envelope(request.id, await releases.keys.list()),
  );

  r.post(
    '/update-keys/rotate',
    {
      onRequest: app.authenticate(KEY_ROTATION_ROLES),
      schema: {
        ...doc,
        summary: 'Make a new update key, endorsed by the active one, and retire the active one',
        description:
          'The retired key no longer signs but stays trusted: appliances set up with it follow the endorsement to the new key with their next manifest. 409 ROTATION_CONFLICT when another rotation finished first.',
        response: { 201: Envelope(schemas.UpdateKeySchema), ...errorResponses(401, 403, 409) },
      },
    },
    async (request, reply) => {
      reply.code(201);
      return envelope(request.id, await releases.keys.rotate());
    },
  );
}
