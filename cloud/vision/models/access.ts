import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UnauthorizedError } from '../../../shared/http/errors.ts';
import type { Role } from '../../../shared/roles.ts';
import { applianceUnauthorized } from './errors.ts';

/** The spec names no roles: a tenant's administrators manage its models, as they do its devices. */
export const ADMIN_ROLES: readonly Role[] = ['tenant_admin', 'platform_admin', 'system_admin', 'super_admin'];
export const READER_ROLES: readonly Role[] = [...ADMIN_ROLES, 'manager', 'restaurant_manager'];

/** The appliance a sync credential (`sak_…`) belongs to; sync's own check. */
export type AuthenticateAppliance = (
  credential: string,
) => Promise<{ tenantId: string; applianceId: string } | undefined>;

export interface ModelAccess {
  /** An administrator's session, or an appliance's credential (a download). */
  adminOrAppliance(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** The caller's tenant: from the verified token or credential, never from the request. */
  tenantOf(request: FastifyRequest): string;
}

export function createModelAccess(app: FastifyInstance, authenticateAppliance: AuthenticateAppliance) {
  const adminGuard = app.authenticate(ADMIN_ROLES);
  const applianceTenants = new WeakMap<FastifyRequest, string>();
  return {
    async adminOrAppliance(this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
      const [scheme, credential] = (request.headers.authorization ?? '').split(' ');
      if (scheme?.toLowerCase() !== 'appliance') {
        await adminGuard.call(this, request, reply);
        return;
      }
      const appliance = credential ? await authenticateAppliance(credential) : undefined;
      if (!appliance) throw applianceUnauthorized();
      applianceTenants.set(request, appliance.tenantId);
    },
    tenantOf(request: FastifyRequest) {
      const tenantId = request.auth?.tenantId ?? applianceTenants.get(request);
      if (!tenantId) throw new UnauthorizedError();
      return tenantId;
    },
  } satisfies ModelAccess;
}
