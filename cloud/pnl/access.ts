import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../shared/http/errors.ts';
import type { Role } from '../../shared/roles.ts';
import { requireAuth } from '../gateway/index.ts';
import { pnlErrors } from './errors.ts';

/** Spec 2's reporting rule: who reads P&L reports and the catalogs. */
export const PNL_READER_ROLES: readonly Role[] = [
  'manager',
  'restaurant_manager',
  'tenant_admin',
  'platform_admin',
  'super_admin',
];
/** Who records the ledger's figures (expenses, wages, costs, classes, budgets): the readers less store managers. */
export const PNL_WRITER_ROLES: readonly Role[] = PNL_READER_ROLES.filter((role) => role !== 'manager');

/**
 * The gateway's session check in the area's words: 401 "Not authenticated", 400 "Tenant ID
 * required" for a token that names no tenant, 403 "Insufficient permissions".
 */
export function pnlGuard(app: FastifyInstance, roles: readonly Role[]) {
  const authenticate = app.authenticate(roles);
  return async function guard(request: FastifyRequest, reply: FastifyReply) {
    if (request.claims && !request.claims.tenant_id) throw pnlErrors.tenantRequired();
    try {
      await authenticate.call(app, request, reply);
    } catch (error) {
      if (error instanceof AppError && error.status === 401) throw pnlErrors.notAuthenticated();
      if (error instanceof AppError && error.status === 403) throw pnlErrors.forbidden();
      throw error;
    }
  };
}

export const tenantOf = (request: FastifyRequest) => requireAuth(request).tenantId;
