import type { FastifyRequest } from 'fastify';
import { MANAGER_ROLES, PLATFORM_ADMIN_ROLES, type Role } from '../../shared/roles.ts';
import { requireAuth } from '../gateway/index.ts';
import type { Viewer } from './context.ts';

/**
 * The spec names no roles for vision: everyone with a store-level role (staff on shift, managers,
 * the tenant's administrators) reads; managers and administrators change settings and calibrate,
 * as at the store's own API.
 */
export const VISION_MANAGER_ROLES: readonly Role[] = MANAGER_ROLES;
export const VISION_READER_ROLES: readonly Role[] = [...MANAGER_ROLES, 'staff'];

export const READ_ROLES_NOTE = `Roles: ${VISION_READER_ROLES.join(', ')}.`;
export const CHANGE_ROLES_NOTE = `Roles: ${VISION_MANAGER_ROLES.join(', ')}.`;

/**
 * The caller as vision scopes its reads: the tenant of the token, and the store of a session signed
 * in at one (a staff PIN), which then sees that store only; tenant-wide roles see every store.
 */
export function viewerOf(request: FastifyRequest): Viewer {
  const auth = requireAuth(request);
  const tenantWide = auth.roles.some((role) => PLATFORM_ADMIN_ROLES.includes(role as Role));
  return {
    tenantId: auth.tenantId,
    userId: auth.userId,
    locationId: tenantWide ? null : auth.locationId,
  };
}
