import type { Clock } from '../../shared/clock.ts';
import { AppError, TooManyRequestsError } from '../../shared/http/errors.ts';
import type { Db } from '../db/index.ts';
import type { LoginThrottleRow } from './tables.ts';

export interface ThrottlePolicy {
  /** Failures allowed at full speed before each further attempt must wait. */
  slowAfter: number;
  /** Failures that lock the key for `lockMs`. */
  lockAfter: number;
  lockMs: number;
  /** A quiet period after which the failure count starts again. */
  forgetAfterMs: number;
  maxDelayMs: number;
}

export interface ThrottlePolicies {
  account: ThrottlePolicy;
  address: ThrottlePolicy;
}

// Addresses get more room than accounts: a store's terminals share one address behind NAT.
export const DEFAULT_THROTTLE: ThrottlePolicies = {
  account: {
    slowAfter: 3,
    lockAfter: 10,
    lockMs: 15 * 60_000,
    forgetAfterMs: 15 * 60_000,
    maxDelayMs: 60_000,
  },
  address: {
    slowAfter: 20,
    lockAfter: 100,
    lockMs: 15 * 60_000,
    forgetAfterMs: 15 * 60_000,
    maxDelayMs: 30_000,
  },
};

export type ThrottleKey = { kind: 'account' | 'address'; id: string };

const keyOf = (key: ThrottleKey) => `${key.kind}:${key.id}`;
const secondsUntil = (iso: string, now: Date) => (Date.parse(iso) - now.getTime()) / 1000;

export const accountLocked = (retryAfterSeconds: number) =>
  new AppError(423, 'ACCOUNT_LOCKED', 'Too many failed attempts; the account is locked for a while', {
    headers: { 'retry-after': String(Math.ceil(retryAfterSeconds)) },
  });

/** What an attempt admitted by `begin` has set off: the keys it has just locked, should it fail. */
export interface Attempt {
  keys: ThrottleKey[];
  locking: ThrottleKey[];
}

/**
 * Repeated failures slow down, then lock, per account and per client address. An attempt is
 * counted before the credentials are checked, in one atomic step per key, so parallel guesses
 * cannot all slip through while the first ones are still being verified.
 */
export function createLoginThrottle(deps: { db: Db; clock: Clock; policies?: ThrottlePolicies }) {
  const { db, clock } = deps;
  const policies = deps.policies ?? DEFAULT_THROTTLE;

  function refusal(key: ThrottleKey, row: LoginThrottleRow, now: Date) {
    if (row.locked_until && row.locked_until > now.toISOString()) {
      const wait = secondsUntil(row.locked_until, now);
      return key.kind === 'account'
        ? accountLocked(wait)
        : new TooManyRequestsError(
            'Too many failed attempts from this address; try again later',
            wait,
            'TOO_MANY_ATTEMPTS',
          );
    }
    const wait = row.next_attempt_at ? secondsUntil(row.next_attempt_at, now) : 1;
    return new TooManyRequestsError(
      'Too many failed attempts; wait before trying again',
      wait,
      'TOO_MANY_ATTEMPTS',
    );
  }

  /** The delay and lock that `failures` attempts earn, counting the one in flight. */
  function consequences(failures: number, policy: ThrottlePolicy, now: Date) {
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    const delayMs = Math.min(policy.maxDelayMs, 1000 * 2 ** (failures - policy.slowAfter - 1));
    return {
      next_attempt_at: failures > policy.slowAfter ? at(delayMs) : null,
      locked_until: failures >= policy.lockAfter ? at(policy.lockMs) : null,
    };
  }

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
