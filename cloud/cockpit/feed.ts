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
  return {
    publish(tenantId: string, frame: ConsoleFrame) {
      tell(tenantId, frame);
      relay?.publish(TOPIC, { tenantId, frame });
    },
    subscribe(listener: (tenantId: string, frame: ConsoleFrame) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type ConsoleFeed = ReturnType<typeof createConsoleFeed>;
