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
import type { ApplianceDatabase } from '../db/index.ts';

export type { Attempt, ThrottleKey, ThrottlePolicies };
export { DEFAULT_THROTTLE };

interface ThrottleRow {
  key: string;
  failures: number;
  last_failure_at: string;
  next_attempt_at: string | null;
  locked_until: string | null;
}

/**
 * The cloud's login throttle on the appliance's SQLite file: failures slow down, then lock, per
 * account and per client address. An attempt is counted before the PIN is checked, in one
 * transaction, so parallel guesses cannot slip through while the first are still being verified.
 */
export function createApplianceThrottle(deps: {
  db: ApplianceDatabase;
  clock: Clock;
  policies?: ThrottlePolicies | undefined;
}) {
  const { db, clock } = deps;
  const policies = deps.policies ?? DEFAULT_THROTTLE;
  // Counts only when the key is not waiting or locked; no row comes back when it must wait.
  const count = db.prepare<{ key: string; now: string; forgetBefore: string }, { failures: number }>(`
    insert into login_throttle (key, failures, last_failure_at, next_attempt_at, locked_until)
    values (@key, 1, @now, null, null)
    on conflict (key) do update set
      failures = case when login_throttle.last_failure_at < @forgetBefore then 1 else login_throttle.failures + 1 end,
      last_failure_at = @now
    where (login_throttle.next_attempt_at is null or login_throttle.next_attempt_at <= @now)
      and (login_throttle.locked_until is null or login_throttle.locked_until <= @now)
    returning failures
  `);
  const row = db.prepare<[string], ThrottleRow>('select * from login_throttle where key = ?');
  const setConsequences = db.prepare<[string | null, string | null, string]>(
    'update login_throttle set next_attempt_at = ?, locked_until = ? where key = ?',
  );
  const setDelay = db.prepare<[string | null, string]>(
    'update login_throttle set next_attempt_at = ? where key = ?',
  );
  const forget = db.prepare<[string]>('delete from login_throttle where key = ?');
  const giveBack = db.prepare<[string], { failures: number }>(
    'update login_throttle set failures = failures - 1 where key = ? and failures > 0 returning failures',
  );

  function admit(key: ThrottleKey, now: Date) {
    const policy = policies[key.kind];
    const forgetBefore = new Date(now.getTime() - policy.forgetAfterMs).toISOString();
    const counted = count.get({ key: keyOf(key), now: now.toISOString(), forgetBefore });
    if (!counted) throw refusal(key, row.get(keyOf(key)), now);
    const { next_attempt_at, locked_until } = consequences(counted.failures, policy, now);
    setConsequences.run(next_attempt_at, locked_until, keyOf(key));
    return counted.failures === policy.lockAfter;
  }

  return {
    /** Admits an attempt, counted as a failure until `succeed` says otherwise; throws when it must wait. */
    begin: db.transaction((keys: ThrottleKey[]): Attempt => {
      const now = clock.now();
      const locking = keys.filter((key) => admit(key, now));
      return { keys, locking };
    }),
    /**
     * The PIN was right: the account starts afresh; the address only gets this attempt back, or one
     * valid account could launder guesses at others.
     */
    succeed: db.transaction((attempt: Attempt) => {
      const now = clock.now();
      for (const key of attempt.keys) {
        if (key.kind === 'account') {
          forget.run(keyOf(key));
          continue;
        }
        const left = giveBack.get(keyOf(key));
        if (left)
          setDelay.run(consequences(left.failures, policies.address, now).next_attempt_at, keyOf(key));
      }
    }),
  };
}

export type ApplianceThrottle = ReturnType<typeof createApplianceThrottle>;
