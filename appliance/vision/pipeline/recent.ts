/**
 * A camera's figures over the last minute, for the status a screen polls every second: timed
 * samples for percentiles, and a growing counter sampled now and then for its recent increase.
 * Both are fixed rings: a camera running for days holds no more than it did after a minute.
 */

const percentileOf = (sorted: readonly number[], p: number) =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/** The values added in the last `spanMs`; `capacity` must hold a span's worth at the highest rate. */
export function createRecentSamples(spanMs: number, capacity: number) {
  const values = new Float64Array(capacity);
  const times = new Float64Array(capacity).fill(Number.NEGATIVE_INFINITY);
  let next = 0;
  return {
    add(at: number, value: number) {
      values[next] = value;
      times[next] = at;
      next = (next + 1) % capacity;
    },
    /** The p50 and p99 of the values added after `at - spanMs`; null with none. */
    percentiles(at: number): { p50: number | null; p99: number | null } {
      const recent: number[] = [];
      for (let i = 0; i < capacity; i++) if (times[i]! > at - spanMs) recent.push(values[i]!);
      recent.sort((a, b) => a - b);
      return { p50: percentileOf(recent, 50), p99: percentileOf(recent, 99) };
    },
  };
}

/**
 * A counter that only grows (frames dropped), sampled at most once every `everyMs`: `increase`
 * answers how much it grew over the last `spanMs`, from the newest sample at least that old (or
 * from zero when the counter is younger than that).
 */
export function createCounterHistory(spanMs: number, everyMs = 1000) {
  const capacity = Math.ceil(spanMs / everyMs) + 4;
  const values = new Float64Array(capacity);
  const times = new Float64Array(capacity).fill(Number.NaN);
  let next = 0;
  let lastAt = Number.NEGATIVE_INFINITY;
  return {
    /** `read` is called only when a sample is due. */
    sample(at: number, read: () => number) {
      if (at - lastAt < everyMs) return;
      lastAt = at;
      values[next] = read();
      times[next] = at;
      next = (next + 1) % capacity;
    },
    increase(at: number, value: number): number {
      let base = 0;
      let baseAt = Number.NEGATIVE_INFINITY;
      for (let i = 0; i < capacity; i++) {
        const t = times[i]!;
        if (t <= at - spanMs && t > baseAt) {
          baseAt = t;
          base = values[i]!;
        }
      }
      return Math.max(0, value - base);
    },
  };
}
