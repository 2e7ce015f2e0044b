import { createBatchLoader, type Db, keyedRead, kyselyRead, type PrepareRead } from '../db/index.ts';
import type { MfaChallengeRow, MfaFactorRow, SessionRow } from './tables.ts';

const changed = (result: { numUpdatedRows: bigint }) => Number(result.numUpdatedRows) > 0;

export function createIdentityStore(db: Db, prepareRead: PrepareRead = kyselyRead(db)) {
  // Read on every authenticated request: prepared once per batch size, and the requests of one
  // event-loop turn share a read.
  const readSessions = keyedRead(prepareRead, (size) =>
    db
      .selectFrom('sessions')
      .select(['id', 'tenant_id', 'user_id', 'status', 'expires_at', 'location_id'])
      .where('id', 'in', Array<string>(size).fill(''))
      .compile(),
  );
  const sessionStateById = createBatchLoader({
    load: (ids) => readSessions(ids.map((id) => [id])),
    keyOf: (row) => row.id,
  });
  return {
    insertSession: (row: SessionRow) => db.insertInto('sessions').values(row).execute(),
    session: (id: string) => db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst(),
    /** The hot path of every authenticated request: only what deciding "still valid" needs. */
    sessionState: (id: string) => sessionStateById(id),
    /** Moves the session to a new refresh token only if the presented one is still the newest. */
    rotateRefresh: async (
      id: string,
      presentedJti: string,
      next: { jti: string; at: string; expiresAt: string },
    ) =>
      changed(
        await db
          .updateTable('sessions')
          .set((eb) => ({
            refresh_jti: next.jti,
            refresh_count: eb('refresh_count', '+', 1),
            refreshed_at: next.at,
            expires_at: next.expiresAt,
          }))
          .where('id', '=', id)
          .where('refresh_jti', '=', presentedJti)
          .where('status', '=', 'active')
          .executeTakeFirst(),
      ),
    endSession: async (id: string, status: 'ended' | 'revoked', reason: string, at: string) =>
      changed(
        await db
          .updateTable('sessions')
          .set({ status, end_reason: reason, ended_at: at })
          .where('id', '=', id)
          .where('status', '=', 'active')
          .executeTakeFirst(),
      ),
    endUserSessions: (tenantId: string, userId: string, reason: string, at: string) =>
      db
        .updateTable('sessions')
        .set({ status: 'revoked', end_reason: reason, ended_at: at })
        .where('tenant_id', '=', tenantId)
        .where('user_id', '=', userId)
        .where('status', '=', 'active')
        .execute(),

    endTenantSessions: (tenantId: string, reason: string, at: string) =>
      db
        .updateTable('sessions')
        .set({ status: 'revoked', end_reason: reason, ended_at: at })
        .where('tenant_id', '=', tenantId)
        .where('status', '=', 'active')
        .execute(),

    insertFactor: (row: MfaFactorRow) => db.insertInto('mfa_factors').values(row).execute(),
    factor: (userId: string, id: string) =>
      db
        .selectFrom('mfa_factors')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst(),
    factors: (userId: string) =>
      db.selectFrom('mfa_factors').selectAll().where('user_id', '=', userId).orderBy('created_at').execute(),
    enabledFactors: (userId: string) =>
      db
        .selectFrom('mfa_factors')
        .selectAll()
        .where('user_id', '=', userId)
        .where('enabled', '=', 1)
        .execute(),
    /** Records the step of an accepted code; false when that step (or a later one) was used already. */
    acceptStep: async (factorId: string, step: number) =>
      changed(
        await db
          .updateTable('mfa_factors')
          .set({ last_used_step: step })
          .where('id', '=', factorId)
          .where((eb) => eb.or([eb('last_used_step', 'is', null), eb('last_used_step', '<', step)]))
          .executeTakeFirst(),
      ),
    enableFactor: (id: string, at: string) =>
      db.updateTable('mfa_factors').set({ enabled: 1, enabled_at: at }).where('id', '=', id).execute(),
    deleteFactor: (userId: string, id: string) =>
      db.deleteFrom('mfa_factors').where('user_id', '=', userId).where('id', '=', id).execute(),
    deleteFactors: (userId: string) => db.deleteFrom('mfa_factors').where('user_id', '=', userId).execute(),

    insertChallenge: (row: MfaChallengeRow) => db.insertInto('mfa_challenges').values(row).execute(),
    challenge: (id: string) =>
      db.selectFrom('mfa_challenges').selectAll().where('id', '=', id).executeTakeFirst(),
    countChallengeAttempt: (id: string) =>
      db
        .updateTable('mfa_challenges')
        .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
        .where('id', '=', id)
        .execute(),
    /** A challenge opens one session: the first to consume it wins. */
    consumeChallenge: async (id: string, at: string) =>
      changed(
        await db
          .updateTable('mfa_challenges')
          .set({ consumed_at: at })
          .where('id', '=', id)
          .where('consumed_at', 'is', null)
          .executeTakeFirst(),
      ),
  };
}

export type IdentityStore = ReturnType<typeof createIdentityStore>;
