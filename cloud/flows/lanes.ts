/**
 * At most `width` tasks at a time, the rest waiting in arrival order. Background work that follows
 * requests (an alert's incident flow) goes through lanes so that, in a burst, its queries queue
 * behind a few tasks instead of every one at once, and the requests keep their share of the store.
 */
export function createLanes(width: number) {
  if (!Number.isInteger(width) || width < 1)
    throw new RangeError(`lanes need a width of 1 or more, got ${width}`);
  let busy = 0;
  const waiting: Array<() => void> = [];
  // A released slot passes straight to the next waiting task, so `busy` only drops when none waits.
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else busy -= 1;
  };
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (busy >= width) await new Promise<void>((resolve) => waiting.push(resolve));
      else busy += 1;
      try {
        return await task();
      } finally {
        release();
      }
    },
    /** Tasks running and waiting (logs, tests). */
    load: () => ({ running: busy, waiting: waiting.length }),
  };
}
