import { randomInt } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import type { SecretHasher } from '../../shared/identity/secrets.ts';
import type { Attempt, ThrottleKey } from '../../shared/identity/throttle.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AuditLog } from '../audit/index.ts';
import type { TenancyService, UserRow } from '../tenancy/index.ts';
import * as errors from './errors.ts';
import type { ClientContext, SessionService } from './sessions.ts';
import type { IdentityStore } from './store.ts';
import type { AuthMethod } from './tables.ts';
import type { LoginThrottle } from './throttle.ts';
import { matchTotp } from './totp.ts';

export const CHALLENGE_TTL_MS = 5 * 60_000;
const CHALLENGE_MAX_ATTEMPTS = 5;

export interface LoginDeps {
  store: IdentityStore;
  tenancy: TenancyService;
  sessions: SessionService;
  hasher: SecretHasher;
  throttle: LoginThrottle;
  audit: AuditLog;
  clock: Clock;
  newId: IdGenerator;
  /** A tenant may require single sign-on: then a password (or social login) is refused, save for its break-glass roles. */
  signInAllowed?: (tenantId: string, roles: string[], method: AuthMethod) => Promise<boolean>;
}

export interface Credentials {
  method: 'password' | 'pin';
  identifier: string;
  secret: string;
  tenantSlug?: string | undefined;
  locationId?: string | undefined;
  client: ClientContext;
}

interface ChallengeContext {
  method: AuthMethod;
  locationId: string | null;
  client: ClientContext;
}

/** Email + password, staff PIN, and the MFA challenge either may lead to. */
export function createLoginService(deps: LoginDeps) {
  const { store, tenancy, throttle, audit, clock } = deps;
  const addressKey = (client: ClientContext): ThrottleKey => ({
    kind: 'address',
    id: client.ipAddress ?? 'unknown',
  });
  const accountKey = (userId: string): ThrottleKey => ({ kind: 'account', id: userId });

  /** Audits a failed attempt, and the locks it set off. */
  async function recordFailure(
    attempt: Attempt,
    entry: {
      action: string;
      userId?: string | undefined;
      tenantId?: string;
      ipAddress: string | null;
      reason: string;
    },
  ) {
    const { action, reason, ...base } = entry;
    await audit.record({ ...base, action, outcome: 'failure', details: { reason } });
    for (const key of attempt.locking) {
      const locked = key.kind === 'account' ? 'auth.account_locked' : 'auth.address_locked';
      await audit.record({ ...base, action: locked, outcome: 'failure', details: { key: key.id } });
    }
  }

  async function checkSecret(credentials: Credentials) {
    const user = await tenancy.findAccount(credentials.identifier);
    const address = addressKey(credentials.client);
    const attempt = await throttle.begin(user ? [address, accountKey(user.id)] : [address]);
    const encoded = credentials.method === 'pin' ? user?.pin_hash : user?.password_hash;
    const matches = encoded
      ? await deps.hasher.verify(encoded, credentials.secret)
      : await deps.hasher.verifyDummy(credentials.secret).then(() => false);
    if (!user || !matches) {
      const reason = user ? 'wrong_secret' : 'unknown_account';
      await recordFailure(attempt, {
        action: `auth.login_${credentials.method}`,
        userId: user?.id,
        ipAddress: credentials.client.ipAddress,
        reason,
      });
      throw errors.invalidCredentials();
    }
    await throttle.succeed(attempt);
    return user;
  }

  /** Which tenant the login is for: named, implied by the location, or the only one the user has. */
  async function resolveTenant(
    user: UserRow,
    credentials: { tenantSlug?: string | undefined; locationId?: string | undefined },
  ) {
    const memberships = await tenancy.membershipsOf(user.id);
    let candidates = memberships;
    if (credentials.tenantSlug !== undefined)
      candidates = memberships.filter((m) => m.slug === credentials.tenantSlug);
    else if (credentials.locationId !== undefined && memberships.length > 1) {
      const matches = await Promise.all(
        memberships.map((m) => tenancy.findLocation(m.tenant_id, credentials.locationId!)),
      );
      candidates = memberships.filter((_, i) => matches[i] !== undefined);
      if (candidates.length === 0) throw errors.locationUnknown();
    }
    if (candidates.length > 1) throw errors.tenantRequired(memberships.map((m) => m.slug).sort());
    const membership = candidates[0];
    if (!membership) throw errors.notAMember();
    const tenant = await tenancy.getTenant(membership.tenant_id);
    if (tenant.status !== 'active') throw errors.tenantSuspended();
    if (user.status !== 'active' || membership.status !== 'active') throw errors.accountDisabled();
    return { tenantId: membership.tenant_id, roles: JSON.parse(membership.roles) as string[] };
  }

  async function checkPolicy(tenantId: string, roles: string[], method: AuthMethod) {
    if (deps.signInAllowed && !(await deps.signInAllowed(tenantId, roles, method)))
      throw errors.ssoRequired();
  }

  async function openChallenge(user: UserRow, tenantId: string, context: ChallengeContext) {
    const factors = await store.enabledFactors(user.id);
    if (factors.length === 0) return undefined;
    const now = clock.now();
    const challenge = {
      id: deps.newId(),
      tenant_id: tenantId,
      user_id: user.id,
      // Shown beside the code prompt so a user can match the prompt to the sign-in they started.
      challenge_code: String(randomInt(0, 1_000_000)).padStart(6, '0'),
      context: JSON.stringify(context),
      attempts: 0,
      expires_at: new Date(now.getTime() + CHALLENGE_TTL_MS).toISOString(),
      consumed_at: null,
      created_at: now.toISOString(),
    };
    await store.insertChallenge(challenge);
    return {
      type: 'mfa_required' as const,
      challenge_id: challenge.id,
      challenge_code: challenge.challenge_code,
      factors: factors.map((f) => ({
        id: f.id,
        label: f.label,
        factor_type: f.factor_type,
        enabled: f.enabled === 1,
      })),
    };
  }

  async function succeed(
    user: UserRow,
    tenantId: string,
    roles: string[],
    context: ChallengeContext,
    mfaVerified: boolean,
  ) {
    const result = await deps.sessions.open({
      userId: user.id,
      email: user.email,
      tenantId,
      roles,
      method: context.method,
      mfaVerified,
      locationId: context.locationId,
      client: context.client,
    });
    await audit.record({
      action: `auth.login_${context.method}`,
      outcome: 'success',
      tenantId,
      userId: user.id,
      ipAddress: context.client.ipAddress,
      details: { mfa: mfaVerified },
    });
    return result;
  }

  /** Checks a TOTP code against the user's enabled factors, refusing a step already used. */
  async function acceptTotp(userId: string, code: string) {
    const now = clock.now();
    for (const factor of await store.enabledFactors(userId)) {
      const step = matchTotp(factor.secret, code, now);
      if (step === undefined) continue;
      if (await store.acceptStep(factor.id, step)) return;
      throw errors.codeReplayed();
    }
    throw errors.invalidCode();
  }

  return {
    acceptTotp,

    async login(credentials: Credentials) {
      const user = await checkSecret(credentials);
      const { tenantId, roles } = await resolveTenant(user, credentials);
      await checkPolicy(tenantId, roles, credentials.method);
      if (
        credentials.locationId !== undefined &&
        !(await tenancy.findLocation(tenantId, credentials.locationId))
      ) {
        throw errors.locationUnknown();
      }
      const context = {
        method: credentials.method,
        locationId: credentials.locationId ?? null,
        client: credentials.client,
      };
      return (await openChallenge(user, tenantId, context)) ?? succeed(user, tenantId, roles, context, false);
    },

    /**
     * A sign-in an identity provider vouched for (SSO or social login): the same tenant rules and
     * MFA challenge as a password, without the secret.
     */
    async external(
      user: UserRow,
      target: { tenantSlug?: string | undefined },
      method: 'sso' | 'oauth',
      client: ClientContext,
    ) {
      const { tenantId, roles } = await resolveTenant(user, target);
      await checkPolicy(tenantId, roles, method);
      const context = { method, locationId: null, client };
      return (await openChallenge(user, tenantId, context)) ?? succeed(user, tenantId, roles, context, false);
    },

    async verifyMfa(challengeId: string, code: string, ipAddress: string | null) {
      const challenge = await store.challenge(challengeId);
      if (!challenge || challenge.consumed_at !== null || challenge.attempts >= CHALLENGE_MAX_ATTEMPTS) {
        throw errors.challengeInvalid();
      }
      if (challenge.expires_at <= clock.now().toISOString()) throw errors.challengeExpired();
      const attempt = await throttle.begin([
        accountKey(challenge.user_id),
        { kind: 'address', id: ipAddress ?? 'unknown' },
      ]);
      try {
        await acceptTotp(challenge.user_id, code);
      } catch (error) {
        await store.countChallengeAttempt(challenge.id);
        const { tenant_id: tenantId, user_id: userId } = challenge;
        await recordFailure(attempt, {
          action: 'auth.mfa_verify',
          tenantId,
          userId,
          ipAddress,
          reason: 'wrong_code',
        });
        throw error;
      }
      await throttle.succeed(attempt);
      if (!(await store.consumeChallenge(challenge.id, clock.now().toISOString())))
        throw errors.challengeInvalid();
      const member = await tenancy.activeMember(challenge.tenant_id, challenge.user_id);
      if (!member) throw errors.accountDisabled();
      const context = JSON.parse(challenge.context) as ChallengeContext;
      return succeed(member, challenge.tenant_id, JSON.parse(member.roles) as string[], context, true);
    },
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
