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

/** Repeated failures slow down, then lock, per account and per client address. */
export function createLoginThrottle(deps: { db: Db; clock: Clock; policies?: ThrottlePolicies }) {
  const { db, clock } = deps;
  const policies = deps.policies ?? DEFAULT_THROTTLE;

  const read = (key: ThrottleKey) =>
    db.selectFrom('login_throttle').selectAll().where('key', '=', keyOf(key)).executeTakeFirst();

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
    if (row.next_attempt_at && row.next_attempt_at > now.toISOString()) {
      return new TooManyRequestsError(
        'Too many failed attempts; wait before trying again',
        secondsUntil(row.next_attempt_at, now),
        'TOO_MANY_ATTEMPTS',
      );
    }
    return undefined;
  }

  function afterFailure(
    row: LoginThrottleRow | undefined,
    policy: ThrottlePolicy,
    now: Date,
  ): LoginThrottleRow | Omit<LoginThrottleRow, 'key'> {
    const forgotten = !row || now.getTime() - Date.parse(row.last_failure_at) > policy.forgetAfterMs;
    const failures = forgotten ? 1 : row.failures + 1;
    const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
    const delayMs = Math.min(policy.maxDelayMs, 1000 * 2 ** (failures - policy.slowAfter - 1));
    return {
      failures,
      last_failure_at: now.toISOString(),
      next_attempt_at: failures > policy.slowAfter ? at(delayMs) : null,
      locked_until: failures >= policy.lockAfter ? at(policy.lockMs) : null,
    };
  }

  return {
    /** Throws when any key is locked or must still wait; call before checking credentials. */
    async check(keys: ThrottleKey[]) {
      const now = clock.now();
      for (const key of keys) {
        const row = await read(key);
        const refused = row && refusal(key, row, now);
        if (refused) throw refused;
      }
    },
    /** Counts a failure; answers which keys it has just locked, for the audit trail. */
    async fail(keys: ThrottleKey[]): Promise<ThrottleKey[]> {
      const now = clock.now();
      const locked: ThrottleKey[] = [];
      for (const key of keys) {
        const row = await read(key);
        const next = afterFailure(row, policies[key.kind], now);
        if (next.locked_until && !(row?.locked_until && row.locked_until > now.toISOString()))
          locked.push(key);
        await db
          .insertInto('login_throttle')
          .values({ key: keyOf(key), ...next })
          .onConflict((oc) => oc.column('key').doUpdateSet(next))
          .execute();
      }
      return locked;
    },
    /** A success clears the account; an address keeps its count, or one valid account could launder guesses. */
    async succeed(account: ThrottleKey) {
      await db.deleteFrom('login_throttle').where('key', '=', keyOf(account)).execute();
    },
  };
}

export type LoginThrottle = ReturnType<typeof createLoginThrottle>;
