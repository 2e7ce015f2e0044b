/**
 * Writes of many lanes share transactions: an item waits while the previous group commits (and,
 * when the writer was idle, `lingerMs` for company), then goes with everything that arrived
 * meanwhile. One commit (one fsync on SQLite) then serves many lanes instead of one per delivery.
 * `write` answers one result per item, in order.
 */
export function createBatcher<T, R = void>(
  write: (items: T[]) => Promise<R[]>,
  options: { lingerMs?: number; maxItems?: number } = {},
) {
  const maxItems = options.maxItems ?? 500;
  let waiting: Array<{ item: T; resolve(result: R): void; reject(error: unknown): void }> = [];
  let running = false;

  async function drain() {
    running = true;
    if (options.lingerMs) await new Promise((resolve) => setTimeout(resolve, options.lingerMs));
    while (waiting.length > 0) {
      const group = waiting.slice(0, maxItems);
      waiting = waiting.slice(group.length);
      try {
        const results = await write(group.map((entry) => entry.item));
        for (const [i, entry] of group.entries()) entry.resolve(results[i] as R);
      } catch (error) {
        for (const entry of group) entry.reject(error);
      }
    }
    running = false;
  }

  return {
    /** Resolves with the item's result once it is committed. */
    add(item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (!running) void drain();
      });
    },
  };
}
