import type { Backoff } from './tables.ts';

/** Spec document 1, subscription interface: seven attempts, the delay before each. */
export const SUBSCRIPTION_SCHEDULE_SECONDS = [0, 60, 300, 1800, 7200, 28_800, 86_400] as const;

/** Admin interface back-off: the first retry waits this long, later ones grow by the rule. */
export const ADMIN_BACKOFF_BASE_SECONDS = 60;
const MAX_DELAY_SECONDS = 86_400;
/** A receiver's Retry-After is honoured up to this; beyond it the schedule stands. */
const MAX_RETRY_AFTER_SECONDS = 86_400;

export type AnswerClass = 'success' | 'final' | 'retry';

/** The documented retry table: 2xx done; 4xx other than 429 final; 429, 5xx and time-outs retried. */
export function classifyAnswer(status: number | undefined): AnswerClass {
  if (status === undefined) return 'retry';
  if (status >= 200 && status < 300) return 'success';
  if (status === 429 || status >= 500) return 'retry';
  // 4xx, and 1xx/3xx: redirects are not followed, so the receiver's answer is final.
  return 'final';
}

export interface RetryPolicy {
  interface: 'subscription' | 'admin';
  maxAttempts: number;
  backoff: Backoff;
}

/** Seconds to wait after attempt `attempt` (1-based) failed, or undefined when it was the last. */
export function retryDelaySeconds(policy: RetryPolicy, attempt: number): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  if (policy.interface === 'subscription') return SUBSCRIPTION_SCHEDULE_SECONDS[attempt];
  const base = ADMIN_BACKOFF_BASE_SECONDS;
  const delay =
    policy.backoff === 'exponential'
      ? base * 2 ** (attempt - 1)
      : policy.backoff === 'linear'
        ? base * attempt
        : base;
  return Math.min(delay, MAX_DELAY_SECONDS);
}

/** A Retry-After header (seconds or an HTTP date) as seconds from now, when it asks for longer. */
export function retryAfterSeconds(header: string | undefined, now: Date): number | undefined {
  if (!header) return undefined;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header) : (Date.parse(header) - now.getTime()) / 1000;
  if (!Number.isFinite(seconds) || seconds <= 0) return undefined;
  return Math.min(Math.ceil(seconds), MAX_RETRY_AFTER_SECONDS);
}
