/**
 * Automatic sign-out: idle for `timeoutMs` ends the session, and the last `warnMs` of it show a
 * countdown. Pure: the caller says when something was touched and asks for the phase at a time.
 */
export interface InactivityOptions {
  timeoutMs: number;
  warnMs: number;
}

export type InactivityPhase =
  | { phase: 'active' }
  | { phase: 'warning'; secondsLeft: number }
  | { phase: 'expired' };

export const DEFAULT_INACTIVITY: InactivityOptions = { timeoutMs: 120_000, warnMs: 15_000 };

export function createInactivity(options: InactivityOptions, startedAt: number) {
  let lastTouch = startedAt;
  return {
    touch(at: number) {
      lastTouch = Math.max(lastTouch, at);
    },
    phaseAt(at: number): InactivityPhase {
      const left = options.timeoutMs - (at - lastTouch);
      if (left <= 0) return { phase: 'expired' };
      if (left <= options.warnMs) return { phase: 'warning', secondsLeft: Math.ceil(left / 1000) };
      return { phase: 'active' };
    },
  };
}

export type Inactivity = ReturnType<typeof createInactivity>;

/**
 * The timeout from the page's `?idle=<seconds>` (browser tests shorten it), else the default.
 * At least a little over the warning, so the countdown can always be seen.
 */
export function inactivityFromQuery(search: string): InactivityOptions {
  const raw = new URLSearchParams(search).get('idle');
  const seconds = raw === null ? Number.NaN : Number(raw);
  if (!Number.isFinite(seconds) || seconds <= 0) return DEFAULT_INACTIVITY;
  const timeoutMs = Math.min(Math.max(seconds, 5), 3600) * 1000;
  return { timeoutMs, warnMs: Math.min(DEFAULT_INACTIVITY.warnMs, timeoutMs - 1000) };
}
