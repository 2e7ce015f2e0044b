/**
 * Writes of many lanes share transactions: an item waits while the previous group commits (and,
 * when the writer was idle, `lingerMs` for company), then goes with everything that arrived
 * meanwhile. One commit (one fsync on SQLite) then serves many lanes instead of one per delivery.
 * With `concurrency` above 1, a group may start while others are still being written (their rows
 * must not overlap); on PostgreSQL an item then waits for a round trip, not for two.
 * `write` answers one result per item, in order.
 */
export function createBatcher<T, R = void>(
  write: (items: T[]) => Promise<R[]>,
  options: { lingerMs?: number; maxItems?: number; concurrency?: number } = {},
) {
  const maxItems = options.maxItems ?? 500;
  const concurrency = options.concurrency ?? 1;
  let waiting: Array<{ item: T; resolve(result: R): void; reject(error: unknown): void }> = [];
  let writers = 0;
  /** A writer is waiting for company: what arrives now goes with it, no need for another. */
  let gathering = false;

  async function drain() {
    writers += 1;
    if (options.lingerMs) {
      gathering = true;
      await new Promise((resolve) => setTimeout(resolve, options.lingerMs));
      gathering = false;
    }
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
    writers -= 1;
  }

  return {
    /** Resolves with the item's result once it is committed. */
    add(item: T): Promise<R> {
      return new Promise<R>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        if (!gathering && writers < concurrency) void drain();
      });
    },
  };
}
