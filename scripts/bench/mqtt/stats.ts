/** Percentiles of latencies in ms, at a resolution that tells sub-millisecond figures apart. */
import { round } from '../lib/load.ts';
import { Samples as GrowableSamples } from '../lib/samples.ts';

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

/** A saturated case records a million latencies: start large. */
export class Samples extends GrowableSamples {
  constructor() {
    super(1 << 16);
  }
}
