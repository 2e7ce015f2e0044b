import type { Clock } from '../../shared/clock.ts';
import { InvalidRequestError } from '../../shared/http/errors.ts';
import { isRole, type Role } from '../../shared/roles.ts';
import type { AuthMethod } from '../identity/index.ts';
import type { SsoStore } from './store.ts';

/** Who may still use a password when SSO is required: without one, a broken IdP locks everyone out. */
export const DEFAULT_BYPASS_ROLES: Role[] = ['tenant_admin'];

export interface SsoPolicy {
  require_sso: boolean;
  bypass_roles: string[];
  updated_at: string | null;
}

/** Methods a required SSO leaves open: the tenant's own IdP, and the staff PIN on store terminals. */
const ALWAYS_ALLOWED: readonly AuthMethod[] = ['sso', 'pin', 'session'];

export function createSsoPolicies({ store, clock }: { store: SsoStore; clock: Clock }) {
  async function get(tenantId: string): Promise<SsoPolicy> {
    const row = await store.policy(tenantId);
    if (!row) return { require_sso: false, bypass_roles: [...DEFAULT_BYPASS_ROLES], updated_at: null };
    return {
      require_sso: row.require_sso === 1,
      bypass_roles: JSON.parse(row.bypass_roles) as string[],
      updated_at: row.updated_at,
    };
  }

  return {
    get,
    async set(tenantId: string, patch: { require_sso?: boolean; bypass_roles?: string[] }) {
      const unknown = (patch.bypass_roles ?? []).filter((role) => !isRole(role));
      if (unknown.length > 0)
        throw new InvalidRequestError('The request is invalid', [
          { field: 'body.bypass_roles', message: `unknown roles: ${unknown.join(', ')}` },
        ]);
      const current = await get(tenantId);
      await store.savePolicy({
        tenant_id: tenantId,
        require_sso: (patch.require_sso ?? current.require_sso) ? 1 : 0,
        bypass_roles: JSON.stringify([...new Set(patch.bypass_roles ?? current.bypass_roles)]),
        updated_at: clock.now().toISOString(),
      });
      return get(tenantId);
    },
    /** Identity's check after a credential checked out and before a session opens. */
    async signInAllowed(tenantId: string, roles: string[], method: AuthMethod) {
      if (ALWAYS_ALLOWED.includes(method)) return true;
      const policy = await get(tenantId);
      return !policy.require_sso || roles.some((role) => policy.bypass_roles.includes(role));
    },
  };
}

export type SsoPolicies = ReturnType<typeof createSsoPolicies>;
