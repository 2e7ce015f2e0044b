import type { Clock } from '../../shared/clock.ts';
import type { AuditLog } from '../audit/index.ts';
import type { TenancyService, UserRow } from '../tenancy/index.ts';
import * as errors from './errors.ts';
import type { SsoStore } from './store.ts';
import type { SsoProviderRow } from './tables.ts';

/** Who an identity provider vouched for, in either protocol. */
export interface AssertedIdentity {
  subject: string;
  email: string | undefined;
  /** OIDC's email_verified; a SAML assertion's e-mail is the IdP's own word. */
  emailVerified: boolean;
  name: string | undefined;
}

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1);

/**
 * From an identity to our account. A provider's first sign-in binds (provider, subject) to an
 * account; later ones follow the binding even if the e-mail changes. An unbound identity may only
 * claim an account that is already a member of the provider's tenant, or create one (just in time):
 * a tenant's IdP can vouch for anyone's e-mail, so it must never claim an account of another tenant.
 */
export function createAccountLinker(deps: {
  store: SsoStore;
  tenancy: TenancyService;
  audit: AuditLog;
  clock: Clock;
}) {
  const { store, tenancy, clock } = deps;

  async function bind(providerKey: string, identity: AssertedIdentity, user: UserRow) {
    const at = clock.now().toISOString();
    await store.linkIdentity({
      provider_key: providerKey,
      subject: identity.subject,
      user_id: user.id,
      email: identity.email ?? user.email,
      created_at: at,
      last_login_at: at,
    });
    return user;
  }

  async function bound(providerKey: string, identity: AssertedIdentity) {
    const link = await store.identity(providerKey, identity.subject);
    if (!link) return undefined;
    await store.touchIdentity(
      providerKey,
      identity.subject,
      identity.email ?? link.email,
      clock.now().toISOString(),
    );
    return tenancy.accountById(link.user_id);
  }

  function verifiedEmail(identity: AssertedIdentity) {
    if (!identity.email || !identity.emailVerified) throw errors.emailUnverified();
    return identity.email.toLowerCase();
  }

  return {
    /** A tenant provider's sign-in: bound, existing member, or created with the provider's default role. */
    async forTenantProvider(provider: SsoProviderRow, identity: AssertedIdentity): Promise<UserRow> {
      const domains = JSON.parse(provider.allowed_domains) as string[];
      const linked = await bound(provider.id, identity);
      if (linked) return linked;
      const email = verifiedEmail(identity);
      if (domains.length > 0 && !domains.includes(domainOf(email))) throw errors.domainNotAllowed();
      const existing = await tenancy.findAccount(email);
      if (existing) {
        if (!(await tenancy.findMember(provider.tenant_id, existing.id))) throw errors.accountConflict();
        return bind(provider.id, identity, existing);
      }
      if (provider.jit_enabled !== 1) throw errors.notProvisioned();
      await tenancy
        .addUser(provider.tenant_id, { email, display_name: identity.name, roles: [provider.default_role] })
        .catch(async (error: unknown) => {
          // Two first sign-ins at once: the other one created the account; use it.
          if (!(await tenancy.findAccount(email))) throw error;
        });
      const created = await tenancy.findAccount(email);
      if (!created) throw errors.notProvisioned();
      await deps.audit.record({
        action: 'sso.user_provisioned',
        outcome: 'success',
        tenantId: provider.tenant_id,
        userId: created.id,
        ipAddress: null,
        details: { provider_id: provider.id, role: provider.default_role },
      });
      return bind(provider.id, identity, created);
    },

    /** Social login never creates accounts: it signs in the account its verified e-mail names. */
    async forSocialProvider(providerId: string, identity: AssertedIdentity): Promise<UserRow> {
      const key = `social:${providerId}`;
      const linked = await bound(key, identity);
      if (linked) return linked;
      const existing = await tenancy.findAccount(verifiedEmail(identity));
      if (!existing) throw errors.noAccount();
      return bind(key, identity, existing);
    },
  };
}

export type AccountLinker = ReturnType<typeof createAccountLinker>;
