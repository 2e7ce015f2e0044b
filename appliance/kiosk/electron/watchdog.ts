/**
 * The renderer's watchdog. The page's preload reports a heartbeat every few seconds from the
 * renderer's event loop; when none arrives for `timeoutMs` the renderer is hung (an endless loop,
 * a stuck layout) and the main process reloads it, and when reloads keep failing it recreates the
 * window. A renderer that crashed outright is handled by Electron's `render-process-gone`, which
 * calls `crashed()` here so both paths share the same back-off. Electron's own hang detection
 * (`unresponsive`, then `responsive` if the page recovers) shortens the wait: a page still
 * unresponsive after `hangGraceMs` is remedied without waiting for the heartbeat's timeout.
 */

import { HEARTBEAT_EVERY_MS } from './ipc.ts';

/** The kiosk's timings: a hang is declared after several missed beats, never after one late one. */
export const WATCHDOG_TIMINGS = {
  timeoutMs: 8 * HEARTBEAT_EVERY_MS,
  checkEveryMs: 1000,
  hangGraceMs: 5000,
  maxReloads: 3,
  windowMs: 5 * 60_000,
} as const;

/** Why the renderer is remedied: it hung (it must be killed before the reload) or it is gone. */
export type RemedyCause = 'hung' | 'crashed';

export interface WatchdogTimers {
  now(): number;
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

export interface WatchdogOptions {
  /** No heartbeat for this long is a hang. */
  timeoutMs: number;
  /** How often the watchdog looks. */
  checkEveryMs: number;
  /** Reload the page (first remedy). */
  reload(cause: RemedyCause): void;
  /** Recreate the window (after `maxReloads` reloads within `windowMs` did not help). */
  recreate(cause: RemedyCause): void;
  maxReloads?: number;
  windowMs?: number;
  /** How long Electron's `unresponsive` may last before the page is remedied. */
  hangGraceMs?: number;
  timers?: WatchdogTimers;
}

const realTimers: WatchdogTimers = {
  now: () => Date.now(),
  setInterval: (callback, ms) => setInterval(callback, ms),
  clearInterval: (handle) => clearInterval(handle as NodeJS.Timeout),
};

export function createRendererWatchdog(options: WatchdogOptions) {
  const timers = options.timers ?? realTimers;
  const maxReloads = options.maxReloads ?? 3;
  const windowMs = options.windowMs ?? 5 * 60_000;
  const hangGraceMs = options.hangGraceMs ?? options.timeoutMs;
  let lastBeat = timers.now();
  let unresponsiveSince: number | undefined;
  let reloads: number[] = [];
  let handle: unknown;

  function remedy(cause: RemedyCause) {
    const now = timers.now();
    reloads = reloads.filter((at) => now - at < windowMs);
    // Counted as a beat: the fresh page gets its full timeout to start beating.
    lastBeat = now;
    unresponsiveSince = undefined;
    if (reloads.length >= maxReloads) {
      reloads = [];
      options.recreate(cause);
      return 'recreated' as const;
    }
    reloads.push(now);
    options.reload(cause);
    return 'reloaded' as const;
  }

  function check() {
    const now = timers.now();
    const silent = now - lastBeat >= options.timeoutMs;
    const unresponsive = unresponsiveSince !== undefined && now - unresponsiveSince >= hangGraceMs;
    if (silent || unresponsive) remedy('hung');
  }

  return {
    start() {
      lastBeat = timers.now();
      handle ??= timers.setInterval(check, options.checkEveryMs);
    },
    stop() {
      if (handle !== undefined) timers.clearInterval(handle);
      handle = undefined;
    },
    /** The renderer is alive. */
    beat() {
      lastBeat = timers.now();
    },
    /** Electron says the page stopped answering: remedied unless it recovers within the grace. */
    unresponsive() {
      unresponsiveSince ??= timers.now();
    },
    /** Electron says the page answers again. */
    responsive() {
      unresponsiveSince = undefined;
      lastBeat = timers.now();
    },
    /** The renderer process is gone (crashed, killed): remedied at once. */
    crashed: () => remedy('crashed'),
  };
}
