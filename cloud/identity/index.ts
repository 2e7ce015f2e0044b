/**
 * Identity: login by password or staff PIN, TOTP MFA, sessions with rotating refresh tokens, and
 * the signing keys behind every access token (published as JWKS). Owns the sessions, mfa_*,
 * signing_keys and login_throttle tables.
 */
import type { Clock } from '../../shared/clock.ts';
import type { SecretHasher } from '../../shared/identity/secrets.ts';
import type { ThrottlePolicies } from '../../shared/identity/throttle.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AuditLog } from '../audit/index.ts';
import type { Store } from '../db/index.ts';
import type { TenancyService } from '../tenancy/index.ts';
import { createKeyRing } from './keys.ts';
import { createLoginService, type LoginDeps } from './login.ts';
import { createMfaService } from './mfa.ts';
import { createSessionService } from './sessions.ts';
import { createIdentityStore } from './store.ts';
import { createLoginThrottle } from './throttle.ts';
import { ACCESS_TOKEN_TTL_SECONDS, createTokenService } from './tokens.ts';

export { createRefreshTransport, RefreshTransportHeadersSchema } from './cookie.ts';
export { identityRoutes, wellKnownRoutes } from './routes.ts';
export { LoginResultSchema } from './schemas.ts';

export interface IdentityOptions {
  store: Store;
  tenancy: TenancyService;
  audit: AuditLog;
  hasher: SecretHasher;
  clock: Clock;
  newId: IdGenerator;
  refreshTtlSeconds: number;
  keyRotationSeconds: number;
  throttle?: ThrottlePolicies;
  issuer?: string;
  signInAllowed?: LoginDeps['signInAllowed'];
}

export function createIdentity(options: IdentityOptions) {
  const { store, clock, newId, audit, tenancy } = options;
  const identityStore = createIdentityStore(store.db, store.prepareRead);
  const keys = createKeyRing({
    db: store.db,
    clock,
    newId,
    longestTokenLifetimeMs: 1000 * Math.max(ACCESS_TOKEN_TTL_SECONDS, options.refreshTtlSeconds),
    rotateAfterMs: 1000 * options.keyRotationSeconds,
  });
  const tokens = createTokenService({ keys, clock, refreshTtlSeconds: options.refreshTtlSeconds });
  const throttle = createLoginThrottle({ db: store.db, clock, policies: options.throttle });
  const sessions = createSessionService({
    store: identityStore,
    tokens,
    tenancy,
    audit,
    clock,
    newId,
    refreshTtlSeconds: options.refreshTtlSeconds,
  });
  const login = createLoginService({
    store: identityStore,
    tenancy,
    sessions,
    hasher: options.hasher,
    throttle,
    audit,
    clock,
    newId,
    signInAllowed: options.signInAllowed,
  });
  const mfa = createMfaService({
    store: identityStore,
    login,
    audit,
    clock,
    newId,
    issuer: options.issuer ?? 'Edge Appliance Cloud',
  });
  /** The caller's profile in a tenant; the route's response schema keeps exactly the documented fields. */
  const profile = (tenantId: string, userId: string) => tenancy.getMember(tenantId, userId);
  return { keys, tokens, sessions, login, mfa, profile };
}

export type Identity = ReturnType<typeof createIdentity>;
export type { LoginService } from './login.ts';
export type { ClientContext, SessionService } from './sessions.ts';
export type { AuthMethod, IdentityTables } from './tables.ts';
export type { TokenService } from './tokens.ts';
