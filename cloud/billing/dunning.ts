/**
 * Dunning: a subscription's failed payments and their retries. Pure transitions; the service
 * stores the result and moves the subscription in the same transaction.
 *
 *   ok | recovered ──failure──▶ retrying (failure 1; retry in 1 day; subscription past_due)
 *   retrying ──failure──▶ retrying (failures 2..4; retry in 3, 5, 7 days)
 *   retrying ──failure 5──▶ exhausted (no retry; subscription unpaid)
 *   exhausted ──failure──▶ exhausted (counted; still unpaid)
 *   retrying | exhausted ──recovered──▶ recovered (subscription active; `reactivated` event)
 */
import type { DunningRow, DunningStatus, SubscriptionStatus } from './tables.ts';

export const RETRY_SCHEDULE_DAYS = [1, 3, 5, 7] as const;
export const MAX_FAILURES = RETRY_SCHEDULE_DAYS.length + 1;
const DAY_MS = 86_400_000;

export interface DunningFailureFacts {
  code: string | null;
  message: string | null;
}

/** The state after one more failed payment, and the subscription status it implies. */
export function afterFailure(
  current: DunningRow | undefined,
  base: Omit<
    DunningRow,
    | 'status'
    | 'failure_count'
    | 'first_failure_at'
    | 'last_failure_at'
    | 'next_retry_at'
    | 'last_failure_code'
    | 'last_failure_message'
    | 'recovered_at'
  >,
  failure: DunningFailureFacts,
  at: Date,
): { row: DunningRow; subscriptionStatus: SubscriptionStatus } {
  const ongoing = current !== undefined && (current.status === 'retrying' || current.status === 'exhausted');
  const count = ongoing ? Number(current.failure_count) + 1 : 1;
  const exhausted = count >= MAX_FAILURES;
  const retryDays = RETRY_SCHEDULE_DAYS[count - 1];
  const status: DunningStatus = exhausted ? 'exhausted' : 'retrying';
  const iso = at.toISOString();
  return {
    row: {
      ...base,
      status,
      failure_count: count,
      first_failure_at: ongoing ? current.first_failure_at : iso,
      last_failure_at: iso,
      next_retry_at:
        exhausted || retryDays === undefined
          ? null
          : new Date(at.getTime() + retryDays * DAY_MS).toISOString(),
      last_failure_code: failure.code,
      last_failure_message: failure.message,
      recovered_at: null,
    },
    subscriptionStatus: exhausted ? 'unpaid' : 'past_due',
  };
}

/** Only a failing episode recovers; undefined when there is nothing to recover. */
export function afterRecovery(current: DunningRow | undefined, at: Date): DunningRow | undefined {
  if (!current || (current.status !== 'retrying' && current.status !== 'exhausted')) return undefined;
  const iso = at.toISOString();
  return { ...current, status: 'recovered', next_retry_at: null, recovered_at: iso, updated_at: iso };
}
