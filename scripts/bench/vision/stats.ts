/** Percentiles for the report, from values or from an event-loop delay histogram. */
import type { IntervalHistogram } from 'node:perf_hooks';
import type { Percentiles } from './protocol.ts';

const round = (value: number, digits: number) => Number(value.toFixed(digits));

const at = (sorted: Float64Array, p: number) => sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)] ?? 0;

export function percentiles(values: ArrayLike<number>, digits = 2): Percentiles {
  const sorted = Float64Array.from(values).sort();
  if (sorted.length === 0) return { count: 0, p50: null, p95: null, p99: null, max: null, mean: null };
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    count: sorted.length,
    p50: round(at(sorted, 0.5), digits),
    p95: round(at(sorted, 0.95), digits),
    p99: round(at(sorted, 0.99), digits),
    max: round(sorted.at(-1) ?? 0, digits),
    mean: round(sum / sorted.length, digits),
  };
}

/**
 * The histogram's figures in ms (it keeps nanoseconds) as delays: Node records the time between
 * ticks of a `resolutionMs` timer, so an event loop that never waits shows `resolutionMs`, which is
 * taken off.
 */
export function delayPercentiles(histogram: IntervalHistogram, resolutionMs: number): Percentiles {
  const ms = (ns: number) => round(Math.max(0, ns / 1e6 - resolutionMs), 2);
  if (histogram.count === 0) return { count: 0, p50: null, p95: null, p99: null, max: null, mean: null };
  return {
    count: histogram.count,
    p50: ms(histogram.percentile(50)),
    p95: ms(histogram.percentile(95)),
    p99: ms(histogram.percentile(99)),
    max: ms(histogram.max),
    mean: ms(histogram.mean),
  };
}

export { Samples } from '../lib/samples.ts';
