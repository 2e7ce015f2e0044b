import type { FastifyRequest } from 'fastify';
import { ForbiddenError } from '../../shared/http/errors.ts';
import { MANAGER_ROLES, PLATFORM_ADMIN_ROLES, type Role } from '../../shared/roles.ts';
import { requireAuth } from '../gateway/index.ts';
import type { Viewer } from './service.ts';

/** Who changes a brand's catalog for all its stores: the tenant's admins, not a store's managers. */
export const BRAND_ROLES: readonly Role[] = MANAGER_ROLES.filter(
  (role) => role !== 'manager' && role !== 'restaurant_manager',
);

/**
 * The asker's tenant, and the one store a store-bound session may see; admins of the tenant
 * see every store whatever their session names.
 */
export function viewerOf(request: FastifyRequest): Viewer {
  const auth = requireAuth(request);
  const admin = auth.roles.some((role) => PLATFORM_ADMIN_ROLES.includes(role as never));
  return { tenantId: auth.tenantId, locationId: admin ? undefined : (auth.locationId ?? undefined) };
}

export const tenantOf = (request: FastifyRequest) => requireAuth(request).tenantId;

/**
 * A change for every store of the brand is the tenant admins'; managers change the stores they
 * name, and a session for one store names that store only. Answers the asker's tenant.
 */
export function checkStores(request: FastifyRequest, locationIds: readonly string[] | undefined) {
  const auth = requireAuth(request);
  const viewer = viewerOf(request);
  if (locationIds === undefined) {
    if (!auth.roles.some((role) => BRAND_ROLES.includes(role as Role)))
      throw new ForbiddenError('Changing every store of the brand needs a tenant admin; name the stores');
  } else if (viewer.locationId !== undefined && locationIds.some((id) => id !== viewer.locationId))
    throw new ForbiddenError('Your session is for another location');
  return viewer.tenantId;
}

/** Said of every catalog change: where to follow it. */
export const published = (description: string) =>
  `${description} The change is published to the brand's stores at once: follow it with ` +
  'GET /v1/commerce/menu/publications/{publication.id}.';
