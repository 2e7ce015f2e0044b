/**
 * The arithmetic of AIOps, free of I/O: a baseline from summed moments, the z-score judgement, and
 * the least-squares trend that predictions extrapolate.
 */

/** count, sum and sum of squares: what hourly rollups store and a baseline adds up. */
export interface Moments {
  count: number;
  sum: number;
  sumSq: number;
}

export interface Baseline {
  count: number;
  mean: number;
  /** Sample standard deviation. */
  std: number;
}

export const HOUR_MS = 3_600_000;

export function baselineOf(moments: Moments): Baseline {
  const { count, sum, sumSq } = moments;
  if (count === 0) return { count: 0, mean: 0, std: 0 };
  const mean = sum / count;
  // Cancellation can leave a tiny negative for a near-constant series.
  const variance = count > 1 ? Math.max(0, (sumSq - count * mean * mean) / (count - 1)) : 0;
  return { count, mean, std: Math.sqrt(variance) };
}

export interface AnomalyRule {
  zScoreThreshold: number;
  minBaselineSamples: number;
}

export type Judgement =
  | { judged: false; reason: 'too_few_samples' | 'no_spread' }
  | { judged: true; z: number; anomalous: boolean; severity: 'high' | 'medium' | null };

/**
 * A sample against its baseline. Nothing is judged before `minBaselineSamples` samples, nor
 * against a series that never varied (no spread to measure a deviation in). Severity is high from
 * twice the threshold.
 */
export function judge(value: number, baseline: Baseline, rule: AnomalyRule): Judgement {
  if (baseline.count < rule.minBaselineSamples) return { judged: false, reason: 'too_few_samples' };
  if (!(baseline.std > Number.EPSILON * Math.max(1, Math.abs(baseline.mean))))
    return { judged: false, reason: 'no_spread' };
  const z = (value - baseline.mean) / baseline.std;
  const size = Math.abs(z);
  if (size < rule.zScoreThreshold) return { judged: true, z, anomalous: false, severity: null };
  return { judged: true, z, anomalous: true, severity: size >= 2 * rule.zScoreThreshold ? 'high' : 'medium' };
}

/**
 * What a sample adds to the rollups: itself, or, when it was judged anomalous, itself clipped to
 * the threshold. A spike then barely widens the spread that judges the next one, while a lasting
 * shift still moves the baseline towards the new level.
 */
export function baselineContribution(
  value: number,
  baseline: Baseline,
  judgement: Judgement,
  threshold: number,
) {
  if (!judgement.judged || !judgement.anomalous) return value;
  const limit = threshold * baseline.std;
  return Math.min(baseline.mean + limit, Math.max(baseline.mean - limit, value));
}

export const addMoments = (a: Moments, value: number): Moments => ({
  count: a.count + 1,
  sum: a.sum + value,
  sumSq: a.sumSq + value * value,
});

export interface Point {
  at: number;
  value: number;
}

export interface Trend {
  points: number;
  /** Change per hour. */
  rate: number;
  /** The fitted value at the newest point. */
  fitted: number;
  /** R² of the fit: the share of the points' variance the line explains, 0 for a flat series. */
  r2: number;
  /** Time of the newest point (ms). */
  lastAt: number;
}

/** Ordinary least squares of value on time (hours, relative to the newest point). */
export function fitTrend(points: readonly Point[]): Trend | undefined {
  const n = points.length;
  if (n < 2) return undefined;
  const lastAt = Math.max(...points.map((p) => p.at));
  let sx = 0;
  let sy = 0;
  for (const p of points) {
    sx += (p.at - lastAt) / HOUR_MS;
    sy += p.value;
  }
  const mx = sx / n;
  const my = sy / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (const p of points) {
    const dx = (p.at - lastAt) / HOUR_MS - mx;
    const dy = p.value - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (sxx === 0) return undefined;
  const rate = sxy / sxx;
  const fitted = my - rate * mx;
  const r2 = syy === 0 ? 0 : (sxy * sxy) / (sxx * syy);
  return { points: n, rate, fitted, r2, lastAt };
}

export interface Forecast {
  current_value: number;
  trend: 'rising' | 'falling' | 'flat';
  /** Change per hour. */
  rate: number;
  predicted_value: number;
  prediction_time: string;
  predicted_full: string | null;
  hours_until_full: number | null;
  confidence: number;
}

/**
 * The trend carried `horizonHours` ahead; for a capacity metric (a percentage used) also when it
 * reaches `capacity`, whatever the horizon, as long as it is rising.
 */
export function forecast(trend: Trend, horizonHours: number, capacity: number | null): Forecast {
  const slope = Math.abs(trend.rate) < 1e-9 ? 0 : trend.rate;
  const direction = slope > 0 ? 'rising' : slope < 0 ? 'falling' : 'flat';
  const base = {
    current_value: round(trend.fitted),
    trend: direction,
    rate: round(slope),
    predicted_value: round(trend.fitted + slope * horizonHours),
    prediction_time: new Date(trend.lastAt + horizonHours * HOUR_MS).toISOString(),
    predicted_full: null,
    hours_until_full: null,
    confidence: round(trend.r2),
  } satisfies Forecast;
  if (capacity === null || slope <= 0) return base;
  const hours = Math.max(0, (capacity - trend.fitted) / slope);
  return {
    ...base,
    hours_until_full: round(hours),
    predicted_full: new Date(trend.lastAt + hours * HOUR_MS).toISOString(),
  };
}

export const round = (value: number, digits = 4) => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};
