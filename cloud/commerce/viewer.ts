import type { FastifyRequest } from 'fastify';
import { PLATFORM_ADMIN_ROLES } from '../../shared/roles.ts';
import { requireAuth } from '../gateway/index.ts';
import type { Viewer } from './service.ts';

/**
 * The asker's tenant, and the one store a store-bound session may see; admins of the tenant
 * see every store whatever their session names.
 */
export function viewerOf(request: FastifyRequest): Viewer {
  const auth = requireAuth(request);
  const admin = auth.roles.some((role) => PLATFORM_ADMIN_ROLES.includes(role as never));
  return { tenantId: auth.tenantId, locationId: admin ? undefined : (auth.locationId ?? undefined) };
}

/** A session for one store sees that store only; anything else of the tenant is not found. */
export const sees = (viewer: Viewer, locationId: string) =>
  viewer.locationId === undefined || viewer.locationId === locationId;
