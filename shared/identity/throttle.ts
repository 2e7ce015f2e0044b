/**
 * The login throttle's policy, which both issuers enforce on their own store: how failures slow
 * down and then lock an account or a client address, and the 423 and 429 answers that say so.
 */
import { AppError, TooManyRequestsError } from '../http/errors.ts';

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

/** What an attempt admitted by `begin` has set off: the keys it has just locked, should it fail. */
export interface Attempt {
  keys: ThrottleKey[];
  locking: ThrottleKey[];
}

/** A key's standing as either store keeps it (ISO timestamps). */
export interface ThrottleStanding {
  next_attempt_at: string | null;
  locked_until: string | null;
}

export const throttleKeyOf = (key: ThrottleKey) => `${key.kind}:${key.id}`;
const secondsUntil = (iso: string, now: Date) => (Date.parse(iso) - now.getTime()) / 1000;

export const accountLocked = (retryAfterSeconds: number) =>
  new AppError(423, 'ACCOUNT_LOCKED', 'Too many failed attempts; the account is locked for a while', {
    headers: { 'retry-after': String(Math.ceil(retryAfterSeconds)) },
  });

/** The answer to an attempt the key may not make yet: locked, or still waiting. */
export function throttleRefusal(key: ThrottleKey, standing: ThrottleStanding | undefined, now: Date) {
  if (standing?.locked_until && standing.locked_until > now.toISOString()) {
    const wait = secondsUntil(standing.locked_until, now);
    return key.kind === 'account'
      ? accountLocked(wait)
      : new TooManyRequestsError(
          'Too many failed attempts from this address; try again later',
          wait,
          'TOO_MANY_ATTEMPTS',
        );
  }
  const wait = standing?.next_attempt_at ? secondsUntil(standing.next_attempt_at, now) : 1;
  return new TooManyRequestsError(
    'Too many failed attempts; wait before trying again',
    wait,
    'TOO_MANY_ATTEMPTS',
  );
}

/** The delay and lock that `failures` attempts earn, counting the one in flight. */
export function throttleConsequences(failures: number, policy: ThrottlePolicy, now: Date): ThrottleStanding {
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const delayMs = Math.min(policy.maxDelayMs, 1000 * 2 ** (failures - policy.slowAfter - 1));
  return {
    next_attempt_at: failures > policy.slowAfter ? at(delayMs) : null,
    locked_until: failures >= policy.lockAfter ? at(policy.lockMs) : null,
  };
}
