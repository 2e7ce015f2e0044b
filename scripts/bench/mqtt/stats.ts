/** Percentiles of latencies in ms, at a resolution that tells sub-millisecond figures apart. */
import { round } from '../lib/load.ts';

export interface Percentiles {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const at = (sorted: Float64Array, p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;

export function percentiles(values: Float64Array): Percentiles {
  const sorted = values.slice().sort();
  return {
    count: sorted.length,
    p50: round(at(sorted, 0.5), 3),
    p95: round(at(sorted, 0.95), 3),
    p99: round(at(sorted, 0.99), 3),
    max: round(sorted.at(-1) ?? 0, 3),
  };
}

/** A Float64Array that grows as values are pushed (a saturated case records a million latencies). */
export class Samples {
  #values = new Float64Array(1 << 16);
  #length = 0;

  push(value: number) {
    if (this.#length === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2);
      grown.set(this.#values);
      this.#values = grown;
    }
    this.#values[this.#length] = value;
    this.#length += 1;
  }

  get length() {
    return this.#length;
  }

  view() {
    return this.#values.subarray(0, this.#length);
  }
}
