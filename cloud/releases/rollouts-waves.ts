/**
 * Waves: how many of the targeted stores each wave takes. A wave names a count (stores added by
 * it) or a cumulative percent of the targeted stores (rounded up, so 10 % of 5 stores is 1).
 */
import type { ErrorDetail } from '../../shared/http/errors.ts';
import type { WaveSpec } from './rollouts-tables.ts';

/** One canary store, then a tenth of the stores, then the rest. */
export const DEFAULT_WAVES: readonly WaveSpec[] = [{ count: 1 }, { percent: 10 }, { percent: 100 }];

// Percents like 30 of 10 stores multiply to 3.0000000000000004 in floating point; that is 3.
const EPSILON = 1e-9;

const reach = (spec: WaveSpec, before: number, total: number) =>
  Math.min(total, 'count' in spec ? before + spec.count : Math.ceil((spec.percent * total) / 100 - EPSILON));

/** Checks that need no target: cumulative percents must grow. */
export function waveProblems(specs: readonly WaveSpec[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  let percent = 0;
  specs.forEach((spec, index) => {
    if (!('percent' in spec)) return;
    if (spec.percent <= percent)
      problems.push({
        field: `body.waves[${index}].percent`,
        message: `must be more than the ${percent} % an earlier wave reaches (percents are cumulative)`,
      });
    percent = Math.max(percent, spec.percent);
  });
  return problems;
}

/**
 * The stores of each wave for `total` targeted stores. Waves given by the caller must each add a
 * store and the last must reach every store; the default waves shrink to fit a small fleet (one
 * store gets one wave), so the default always works.
 */
export function planWaves(
  specs: readonly WaveSpec[],
  total: number,
  defaulted: boolean,
): { sizes: Array<{ spec: WaveSpec; stores: number }>; problems: ErrorDetail[] } {
  const sizes: Array<{ spec: WaveSpec; stores: number }> = [];
  const problems: ErrorDetail[] = [];
  let before = 0;
  specs.forEach((spec, index) => {
    const after = reach(spec, before, total);
    if (after <= before) {
      if (!defaulted)
        problems.push({
          field: `body.waves[${index}]`,
          message: `adds no store: earlier waves already take ${before} of the ${total} targeted stores`,
        });
      return;
    }
    sizes.push({ spec, stores: after - before });
    before = after;
  });
  if (before < total && problems.length === 0)
    problems.push({
      field: 'body.waves',
      message: `the last wave must reach all ${total} targeted stores (these waves reach ${before}); end with {"percent": 100}`,
    });
  return { sizes, problems };
}

/** The wave (1-based) of each position, for waves of these sizes. */
export function waveOfEach(sizes: readonly number[]): number[] {
  return sizes.flatMap((size, index) => Array.from({ length: size }, () => index + 1));
}
