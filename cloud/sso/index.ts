/**
 * Single sign-on: per-tenant identity providers (OpenID Connect for the workspace suite, the
 * enterprise directory and the enterprise IdP; SAML 2.0), the platform's social login, the
 * require-SSO policy, and accounts created just in time. Owns the sso_* tables; sessions are
 * opened through identity's login service, accounts through tenancy.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Store } from '../db/index.ts';
import type { LoginService } from '../identity/index.ts';
import type { TenancyService } from '../tenancy/index.ts';
import { createAccountLinker } from './accounts.ts';
import type { SsoConfig } from './config.ts';
import { createSignInFlow } from './flow.ts';
import { createOidcRelyingParty } from './oidc.ts';
import type { SsoPolicies } from './policy.ts';
import { createProviderAdmin } from './providers.ts';
import { createSsoStore } from './store.ts';

export { DEFAULT_SSO_CONFIG, loadSsoConfig, SSO_VARIABLES, type SsoConfig } from './config.ts';
export { createSsoPolicies, type SsoPolicies } from './policy.ts';
export { ssoRoutes } from './routes.ts';
export { ssoAdminRoutes } from './routes-admin.ts';
export { createSsoStore } from './store.ts';

export interface SsoOptions {
  store: Store;
  policies: SsoPolicies;
  tenancy: TenancyService;
  login: LoginService;
  audit: AuditLog;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  config: SsoConfig;
  /** Where IdPs and browsers reach this cloud (SAML entity id, ACS); unset: each request's own. */
  publicUrl: string | undefined;
}

export function createSso(options: SsoOptions) {
  const { clock, newId, tenancy, policies } = options;
  const store = createSsoStore(options.store.db);
  const accounts = createAccountLinker({ store, tenancy, audit: options.audit, clock });
  const providers = createProviderAdmin({
    store,
    clock,
    newId,
    isUniqueViolation: options.store.isUniqueViolation,
  });
  const flow = createSignInFlow({
    store,
    tenancy,
    login: options.login,
    accounts,
    policies,
    oidc: createOidcRelyingParty(),
    config: options.config,
    clock,
    log: options.log.child({ module: 'sso' }),
  });
  return { providers, policies, flow, publicUrl: options.publicUrl };
}

export type Sso = ReturnType<typeof createSso>;
export { SSO_SETTINGS } from './config.ts';
export type { SsoTables } from './tables.ts';
