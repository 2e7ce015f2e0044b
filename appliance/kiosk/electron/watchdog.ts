/**
 * The renderer's watchdog. The page's preload reports a heartbeat every few seconds from the
 * renderer's event loop; when none arrives for `timeoutMs` the renderer is hung (an endless loop,
 * a stuck layout) and the main process reloads it, and when reloads keep failing it recreates the
 * window. A renderer that crashed outright is handled by Electron's `render-process-gone`, which
 * calls `crashed()` here so both paths share the same back-off.
 */

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
  reload(): void;
  /** Recreate the window (after `maxReloads` reloads within `windowMs` did not help). */
  recreate(): void;
  maxReloads?: number;
  windowMs?: number;
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
  let lastBeat = timers.now();
  let reloads: number[] = [];
  let handle: unknown;

  function remedy() {
    const now = timers.now();
    reloads = reloads.filter((at) => now - at < windowMs);
    // Counted as a beat: the fresh page gets its full timeout to start beating.
    lastBeat = now;
    if (reloads.length >= maxReloads) {
      reloads = [];
      options.recreate();
      return 'recreated' as const;
    }
    reloads.push(now);
    options.reload();
    return 'reloaded' as const;
  }

  return {
    start() {
      lastBeat = timers.now();
      handle ??= timers.setInterval(() => {
        if (timers.now() - lastBeat >= options.timeoutMs) remedy();
      }, options.checkEveryMs);
    },
    stop() {
      if (handle !== undefined) timers.clearInterval(handle);
      handle = undefined;
    },
    /** The renderer is alive. */
    beat() {
      lastBeat = timers.now();
    },
    /** The renderer process is gone (crashed, killed): remedied at once. */
    crashed: () => remedy(),
  };
}
