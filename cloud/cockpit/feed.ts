/** The operations console's real-time feed: an in-process hub the console WebSocket reads. */
export type ConsoleFrame = { type: string } & Record<string, unknown>;

export function createConsoleFeed() {
  const listeners = new Set<(tenantId: string, frame: ConsoleFrame) => void>();
  return {
    publish(tenantId: string, frame: ConsoleFrame) {
      for (const listener of listeners) listener(tenantId, frame);
    },
    subscribe(listener: (tenantId: string, frame: ConsoleFrame) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

export type ConsoleFeed = ReturnType<typeof createConsoleFeed>;
