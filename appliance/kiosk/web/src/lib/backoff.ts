/**
 * Reconnect delays for the store feed: exponential from `baseMs` up to `maxMs`, with "equal
 * jitter" (half fixed, half random) so a room of kiosks does not reconnect in lockstep after the
 * appliance restarts, yet never retries in a tight loop.
 */
export interface BackoffOptions {
  baseMs: number;
  maxMs: number;
}

export const FEED_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

/** The delay before reconnect number `attempt` (0 for the first); `random` is in [0, 1). */
export function backoffDelay(attempt: number, random: number, options: BackoffOptions = FEED_BACKOFF) {
  const ceiling = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, attempt));
  const half = ceiling / 2;
  return Math.round(half + half * Math.min(Math.max(random, 0), 1));
}

/** A connection that stayed up this long was healthy: the next failure starts from the base again. */
export const HEALTHY_AFTER_MS = 10_000;

/** Why a socket closed, as the feed acts on it. */
export function closeAction(code: number): 'sign-out' | 'reconnect' {
  return code === 4401 ? 'sign-out' : 'reconnect';
}
