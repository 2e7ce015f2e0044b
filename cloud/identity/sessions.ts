import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AuditLog } from '../audit/index.ts';
import { isActiveMember, type TenancyService } from '../tenancy/index.ts';
import * as errors from './errors.ts';
import type { IdentityStore } from './store.ts';
import type { AuthMethod, SessionRow } from './tables.ts';
import { ACCESS_TOKEN_TTL_SECONDS, type TokenService } from './tokens.ts';

export interface ClientContext {
  ipAddress: string | null;
  userAgent: string | null;
  deviceId?: string | undefined;
  deviceName?: string | undefined;
  deviceFingerprint?: string | undefined;
}

export interface OpenSession {
  userId: string;
  email: string;
  tenantId: string;
  roles: string[];
  method: AuthMethod;
  mfaVerified: boolean;
  locationId?: string | null | undefined;
  parentSessionId?: string | undefined;
  client: ClientContext;
}

export interface SessionDeps {
  store: IdentityStore;
  tokens: TokenService;
  tenancy: TenancyService;
  audit: AuditLog;
  clock: Clock;
  newId: IdGenerator;
  refreshTtlSeconds: number;
}

export const toSession = (row: SessionRow) => ({
  session_id: row.id,
  user_id: row.user_id,
  tenant_id: row.tenant_id,
  status: row.status,
  auth_method: row.auth_method,
  mfa_verified: row.mfa_verified === 1,
  location_id: row.location_id,
  device: { id: row.device_id, name: row.device_name, fingerprint: row.device_fingerprint },
  ip_address: row.ip_address,
  user_agent: row.user_agent,
  parent_session_id: row.parent_session_id,
  created_at: row.created_at,
  refreshed_at: row.refreshed_at,
  expires_at: row.expires_at,
  ended_at: row.ended_at,
  end_reason: row.end_reason,
});

/** Sessions and their token pairs: open, refresh with rotation, fork, end. */
export function createSessionService(deps: SessionDeps) {
  const { store, tokens, clock } = deps;
  /** Active and not past its expiry: the only sessions that may authorise anything. */
  const isLive = <T extends Pick<SessionRow, 'status' | 'expires_at'>>(
    session: T | undefined,
  ): session is T => session?.status === 'active' && session.expires_at > clock.now().toISOString();
  const later = (seconds: number) => new Date(clock.now().getTime() + seconds * 1000).toISOString();

  async function tokenPair(row: SessionRow, email: string, roles: string[]) {
    const claims = { sub: row.user_id, tenant_id: row.tenant_id, session_id: row.id };
    return {
      type: 'success' as const,
      access_token: await tokens.issueAccess({ ...claims, email, roles }),
      refresh_token: await tokens.issueRefresh({ ...claims, jti: row.refresh_jti }),
      token_type: 'Bearer' as const,
      expires_in: ACCESS_TOKEN_TTL_SECONDS,
      user: { id: row.user_id, tenant_id: row.tenant_id, email, roles },
    };
  }

  async function open(input: OpenSession) {
    const at = clock.now().toISOString();
    const row: SessionRow = {
      id: deps.newId(),
      tenant_id: input.tenantId,
      user_id: input.userId,
      status: 'active',
      auth_method: input.method,
      mfa_verified: input.mfaVerified ? 1 : 0,
      location_id: input.locationId ?? null,
      device_id: input.client.deviceId ?? null,
      device_name: input.client.deviceName ?? null,
      device_fingerprint: input.client.deviceFingerprint ?? null,
      ip_address: input.client.ipAddress,
      user_agent: input.client.userAgent,
      parent_session_id: input.parentSessionId ?? null,
      refresh_jti: deps.newId(),
      refresh_count: 0,
      created_at: at,
      refreshed_at: null,
      expires_at: later(deps.refreshTtlSeconds),
      ended_at: null,
      end_reason: null,
    };
    await store.insertSession(row);
    return tokenPair(row, input.email, input.roles);
  }

  async function revokeForReuse(session: SessionRow, ipAddress: string | null) {
    await store.endSession(session.id, 'revoked', 'refresh_token_reuse', clock.now().toISOString());
    await deps.audit.record({
      action: 'auth.refresh_token_reuse',
      outcome: 'failure',
      tenantId: session.tenant_id,
      userId: session.user_id,
      ipAddress,
      details: { session_id: session.id },
    });
    return errors.refreshReused();
  }

  return {
    open,

    /** A new pair for the newest refresh token; an older one coming back revokes the session. */
    async refresh(refreshToken: string, ipAddress: string | null) {
      const claims = await tokens.verifyRefresh(refreshToken);
      const session = await store.session(claims.session_id);
      if (!isLive(session)) throw errors.sessionEnded();
      if (claims.jti !== session.refresh_jti) throw await revokeForReuse(session, ipAddress);
      const member = await deps.tenancy.activeMember(session.tenant_id, session.user_id);
      if (!member) {
        await store.endSession(session.id, 'revoked', 'access_withdrawn', clock.now().toISOString());
        throw errors.sessionEnded();
      }
      const next = {
        jti: deps.newId(),
        at: clock.now().toISOString(),
        expiresAt: later(deps.refreshTtlSeconds),
      };
      // Two refreshes racing with one token: only one can move the session on; the other is reuse.
      if (!(await store.rotateRefresh(session.id, claims.jti, next)))
        throw await revokeForReuse(session, ipAddress);
      const roles = JSON.parse(member.roles) as string[];
      return tokenPair(
        { ...session, refresh_jti: next.jti, expires_at: next.expiresAt },
        member.email,
        roles,
      );
    },

    async current(sessionId: string) {
      const row = await store.session(sessionId);
      if (!row) throw errors.sessionEnded();
      return toSession(row);
    },

    /** Ends a session; its access tokens are refused from the next request on. */
    async end(sessionId: string, reason: string) {
      await store.endSession(sessionId, 'ended', reason, clock.now().toISOString());
      const row = await store.session(sessionId);
      return toSession(row!);
    },

    /** A new, independent session for the caller: another device, or another of their tenants. */
    async fork(parentId: string, input: { tenantSlug?: string | undefined; client: ClientContext }) {
      const parent = await store.session(parentId);
      if (!isLive(parent)) throw errors.sessionEnded();
      const tenant = input.tenantSlug
        ? await deps.tenancy.tenantBySlug(input.tenantSlug)
        : await deps.tenancy.getTenant(parent.tenant_id);
      const member = tenant && (await deps.tenancy.findMember(tenant.id, parent.user_id));
      if (!tenant || !member) throw errors.notAMember();
      if (tenant.status !== 'active') throw errors.tenantSuspended();
      if (!isActiveMember(member)) throw errors.accountDisabled();
      return open({
        userId: member.id,
        email: member.email,
        tenantId: tenant.id,
        roles: JSON.parse(member.roles) as string[],
        method: 'session',
        mfaVerified: parent.mfa_verified === 1,
        // A location belongs to one tenant; the child keeps it only when it stays in that tenant.
        locationId: tenant.id === parent.tenant_id ? parent.location_id : null,
        parentSessionId: parent.id,
        client: input.client,
      });
    },

    endAllInTenant: (tenantId: string, reason: string) =>
      store.endTenantSessions(tenantId, reason, clock.now().toISOString()),

    endAllFor: (tenantId: string, userId: string, reason: string) =>
      store.endUserSessions(tenantId, userId, reason, clock.now().toISOString()),

    /** Validity check of the auth plugin: undefined when the session cannot authorise a request. */
    async activeState(sessionId: string) {
      const state = await store.sessionState(sessionId);
      return isLive(state) ? state : undefined;
    },
  };
}

export type SessionService = ReturnType<typeof createSessionService>;
