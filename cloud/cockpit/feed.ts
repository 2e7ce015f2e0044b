/**
 * The operations console's real-time feed: a hub the console WebSocket reads. A frame published
 * here reaches this replica's listeners at once and, through the relay, every other replica's.
 */
import type { Relay } from '../relay.ts';

export type ConsoleFrame = { type: string } & Record<string, unknown>;

const TOPIC = 'console.frame';

export function createConsoleFeed(relay?: Relay) {
  const listeners = new Set<(tenantId: string, frame: ConsoleFrame) => void>();
  const tell = (tenantId: string, frame: ConsoleFrame) => {
    for (const listener of listeners) listener(tenantId, frame);
  };
  relay?.on(TOPIC, (payload) => {
    const { tenantId, frame } = payload as { tenantId: string; frame: ConsoleFrame };
    tell(tenantId, frame);
  });
  const publish = (tenantId: string, frame: ConsoleFrame) => {
    tell(tenantId, frame);
    relay?.publish(TOPIC, { tenantId, frame });
  };
  // Per key: the window's timer, and the newest frame held back until it ends.
  const windows = new Map<string, { timer: NodeJS.Timeout; held?: [string, ConsoleFrame] }>();
  let closed = false;
  const openWindow = (key: string, windowMs: number) => {
    const timer = setTimeout(() => {
      const held = windows.get(key)?.held;
      windows.delete(key);
      if (!held) return;
      publish(...held);
      openWindow(key, windowMs);
    }, windowMs);
    timer.unref();
    windows.set(key, { timer });
  };
  return {
    publish,
    /**
     * At most one frame per `key` every `windowMs`: the first goes at once, and of the ones that
     * follow within the window only the newest, when it ends. For frames that only say "look
     * again", where a burst of changes to one thing needs one look, not one each.
     */
    publishThrottled(tenantId: string, key: string, frame: ConsoleFrame, windowMs: number) {
      const window = windows.get(key);
      if (window) {
        window.held = [tenantId, frame];
        return;
      }
      publish(tenantId, frame);
      if (!closed) openWindow(key, windowMs);
    },
    subscribe(listener: (tenantId: string, frame: ConsoleFrame) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    /** Drops the frames held back (the process is stopping); later throttled frames go at once. */
    close() {
      closed = true;
      for (const window of windows.values()) clearTimeout(window.timer);
      windows.clear();
    },
  };
}

export type ConsoleFeed = ReturnType<typeof createConsoleFeed>;
