import type { Clock } from '../../shared/clock.ts';
import {
  type Attempt,
  throttleConsequences as consequences,
  DEFAULT_THROTTLE,
  throttleKeyOf as keyOf,
  throttleRefusal as refusal,
  type ThrottleKey,
  type ThrottlePolicies,
} from '../../shared/identity/throttle.ts';
import type { Db } from '../db/index.ts';

/**
 * Repeated failures slow down, then lock, per account and per client address. An attempt is
 * counted before the credentials are checked, in one atomic step per key, so parallel guesses
 * cannot all slip through while the first ones are still being verified.
 */
export function createLoginThrottle(deps: { db: Db; clock: Clock; policies?: ThrottlePolicies }) {
  const { db, clock } = deps;
  const policies = deps.policies ?? DEFAULT_THROTTLE;

  /** Counts one attempt against a key unless it must wait or is locked; the count after it, or undefined. */
  async function count(trx: Db, key: ThrottleKey, now: Date) {
    const nowIso = now.toISOString();
    const forgetBefore = new Date(now.getTime() - policies[key.kind].forgetAfterMs).toISOString();
    const row = await trx
      .insertInto('login_throttle')
      .values({
        key: keyOf(key),
        failures: 1,
        last_failure_at: nowIso,
        next_attempt_at: null,
        locked_until: null,
      })
      .onConflict((oc) =>
        oc
          .column('key')
          .doUpdateSet((eb) => ({
            failures: eb
              .case()
              .when('login_throttle.last_failure_at', '<', forgetBefore)
              .then(1)
              .else(eb('login_throttle.failures', '+', 1))
              .end(),
            last_failure_at: nowIso,
          }))
          .where((eb) =>
            eb.and([
              eb.or([
                eb('login_throttle.next_attempt_at', 'is', null),
                eb('login_throttle.next_attempt_at', '<=', nowIso),
              ]),
              eb.or([
                eb('login_throttle.locked_until', 'is', null),
                eb('login_throttle.locked_until', '<=', nowIso),
              ]),
            ]),
          ),
      )
      .returning('failures')
      .executeTakeFirst();
    return row?.failures;
  }

  async function admit(trx: Db, key: ThrottleKey, now: Date) {
    const failures = await count(trx, key, now);
    if (failures === undefined) {
      const row = await trx
        .selectFrom('login_throttle')
        .selectAll()
        .where('key', '=', keyOf(key))
        .executeTakeFirstOrThrow();
      throw refusal(key, row, now);
    }
    const policy = policies[key.kind];
    await trx
      .updateTable('login_throttle')
      .set(consequences(failures, policy, now))
      .where('key', '=', keyOf(key))
      .execute();
    return failures === policy.lockAfter;
  }

  return {
    /** Admits an attempt, counted as a failure until `succeed` says otherwise; throws when it must wait. */
    async begin(keys: ThrottleKey[]): Promise<Attempt> {
      const now = clock.now();
      const locking: ThrottleKey[] = [];
      await db.transaction().execute(async (trx) => {
        for (const key of keys) if (await admit(trx, key, now)) locking.push(key);
      });
      return { keys, locking };
    },
    /**
     * The credentials were right: the account starts afresh; the address only gets this attempt
     * back, or one valid account could launder guesses at others.
     */
    async succeed(attempt: Attempt) {
      const now = clock.now();
      await db.transaction().execute(async (trx) => {
        for (const key of attempt.keys) {
          if (key.kind === 'account') {
            await trx.deleteFrom('login_throttle').where('key', '=', keyOf(key)).execute();
            continue;
          }
          const row = await trx
            .updateTable('login_throttle')
            .set((eb) => ({ failures: eb('failures', '-', 1) }))
            .where('key', '=', keyOf(key))
            .where('failures', '>', 0)
            .returning('failures')
            .executeTakeFirst();
          if (row) {
            const { next_attempt_at } = consequences(row.failures, policies.address, now);
            await trx
              .updateTable('login_throttle')
              .set({ next_attempt_at })
              .where('key', '=', keyOf(key))
              .execute();
          }
        }
      });
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
