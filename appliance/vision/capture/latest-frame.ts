/**
 * Hands frames to one consumer that may be slow: at most one frame waits. While the consumer is
 * busy, a newer frame replaces the waiting one (which counts as dropped), so a slow detector sees
 * the newest picture and memory never grows with the backlog.
 */
export type FrameHandler<T> = (item: T) => void | Promise<void>;

export interface LatestFrameSlotOptions<T> {
  /** Called once the consumer is done with an item, or when it is dropped unseen. */
  release(item: T): void;
  onError(error: unknown): void;
}

export function createLatestFrameSlot<T>(options: LatestFrameSlotOptions<T>) {
  let handler: FrameHandler<T> | undefined;
  let busy: T | undefined;
  let waiting: T | undefined;
  let delivered = 0;
  let dropped = 0;

  function finish(item: T) {
    busy = undefined;
    options.release(item);
    const next = waiting;
    waiting = undefined;
    if (next !== undefined) deliver(next);
  }

  function deliver(item: T) {
    if (!handler) return options.release(item);
    busy = item;
    delivered += 1;
    let result: void | Promise<void>;
    try {
      result = handler(item);
    } catch (error) {
      options.onError(error);
      return finish(item);
    }
    if (!result) return finish(item);
    result.then(
      () => finish(item),
      (error: unknown) => {
        options.onError(error);
        finish(item);
      },
    );
  }

  return {
    offer(item: T) {
      if (busy === undefined) return deliver(item);
      if (waiting !== undefined) {
        dropped += 1;
        options.release(waiting);
      }
      waiting = item;
    },
    setHandler(next: FrameHandler<T> | undefined) {
      handler = next;
    },
    /** Forgets the waiting item (capture stopped); the one with the consumer is released when it is done. */
    clear() {
      if (waiting !== undefined) options.release(waiting);
      waiting = undefined;
    },
    get delivered() {
      return delivered;
    },
    get dropped() {
      return dropped;
    },
  };
}

export type LatestFrameSlot<T> = ReturnType<typeof createLatestFrameSlot<T>>;
