/** Percentiles of a set of durations, rounded for the report. */
import { round } from '../lib/load.ts';

export interface Percentiles {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

const at = (sorted: number[], p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;

export function percentiles(values: number[]): Percentiles {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: round(at(sorted, 0.5), 1),
    p95: round(at(sorted, 0.95), 1),
    p99: round(at(sorted, 0.99), 1),
    max: round(sorted.at(-1) ?? 0, 1),
  };
}
