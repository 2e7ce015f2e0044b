import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { AuditLog } from '../audit/index.ts';
import * as errors from './errors.ts';
import type { LoginService } from './login.ts';
import type { IdentityStore } from './store.ts';
import type { MfaFactorRow } from './tables.ts';
import { matchTotp, newTotpSecret, totpUri } from './totp.ts';

const toFactor = (row: MfaFactorRow) => ({
  id: row.id,
  label: row.label,
  factor_type: row.factor_type,
  enabled: row.enabled === 1,
  created_at: row.created_at,
  enabled_at: row.enabled_at,
});

/**
 * TOTP factors of a user. A factor is enrolled disabled and enabled only by a first valid code,
 * so a user cannot lock themselves out with a secret their authenticator never received.
 */
export function createMfaService(deps: {
  store: IdentityStore;
  login: LoginService;
  audit: AuditLog;
  clock: Clock;
  newId: IdGenerator;
  issuer: string;
}) {
  const { store, clock } = deps;

  async function requireFactor(userId: string, factorId: string) {
    const factor = await store.factor(userId, factorId);
    if (!factor) throw errors.factorNotFound();
    return factor;
  }

  return {
    list: async (userId: string) => (await store.factors(userId)).map(toFactor),

    async enroll(userId: string, email: string, label: string) {
      const row: MfaFactorRow = {
        id: deps.newId(),
        user_id: userId,
        factor_type: 'totp',
        label,
        secret: newTotpSecret(),
        enabled: 0,
        last_used_step: null,
        created_at: clock.now().toISOString(),
        enabled_at: null,
      };
      await store.insertFactor(row);
      return { ...toFactor(row), secret: row.secret, otpauth_uri: totpUri(row.secret, email, deps.issuer) };
    },

    async activate(userId: string, tenantId: string, factorId: string, code: string) {
      const factor = await requireFactor(userId, factorId);
      if (factor.enabled === 1) throw errors.factorAlreadyEnabled();
      const step = matchTotp(factor.secret, code, clock.now());
      if (step === undefined) throw errors.invalidCode();
      if (!(await store.acceptStep(factor.id, step))) throw errors.codeReplayed();
      const at = clock.now().toISOString();
      await store.enableFactor(factor.id, at);
      await deps.audit.record({
        action: 'auth.mfa_enabled',
        outcome: 'success',
        tenantId,
        userId,
        details: { factor_id: factor.id },
      });
      return toFactor({ ...factor, enabled: 1, enabled_at: at });
    },

    /** Removing an enabled factor weakens the account, so it takes a current code. */
    async remove(userId: string, tenantId: string, factorId: string, code: string | undefined) {
      const factor = await requireFactor(userId, factorId);
      if (factor.enabled === 1) await deps.login.acceptTotp(userId, code ?? '');
      await store.deleteFactor(userId, factorId);
      await deps.audit.record({
        action: 'auth.mfa_removed',
        outcome: 'success',
        tenantId,
        userId,
        details: { factor_id: factorId },
      });
    },

    /** Operator recovery for a user who lost their authenticator. */
    async reset(userId: string) {
      await store.deleteFactors(userId);
      await deps.audit.record({
        action: 'auth.mfa_reset',
        outcome: 'success',
        userId,
        details: { by: 'operator' },
      });
    },
  };
}

export type MfaService = ReturnType<typeof createMfaService>;
