/**
 * Writes of many lanes share transactions: an item waits only while the previous group commits,
 * then goes with everything that arrived meanwhile. One commit (one fsync on SQLite) serves every
 * lane at once instead of one per delivery, and an idle system writes at once.
 */
export function createBatcher<T>(write: (items: T[]) => Promise<void>, maxItems = 500) {
  let waiting: Array<{ item: T; resolve(): void; reject(error: unknown): void }> = [];
  let running = false;

  async function drain() {
    running = true;
    while (waiting.length > 0) {
      const group = waiting.slice(0, maxItems);
      waiting = waiting.slice(group.length);
      try {
        await write(group.map((entry) => entry.item));
        for (const entry of group) entry.resolve();
      } catch (error) {
        for (const entry of group) entry.reject(error);
      }
    }
    running = false;
  }

  return {
    /** Resolves once the item is committed. */
    add(item: T): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (!running) void drain();
      });
    },
  };
}
