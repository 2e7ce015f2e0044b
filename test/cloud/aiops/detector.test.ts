import { describe, expect, it } from 'vitest';
import {
  addMoments,
  baselineContribution,
  baselineOf,
  fitTrend,
  forecast,
  HOUR_MS,
  judge,
  type Moments,
} from '../../../cloud/aiops/stats.ts';
import { plantedSeries, score, seeded } from './series.ts';

// The spec's defaults (AIOPS_Z_SCORE_THRESHOLD, AIOPS_BASELINE_DAYS, AIOPS_MIN_BASELINE_SAMPLES).
const rule = { zScoreThreshold: 3, baselineDays: 30, minBaselineSamples: 30 };
const DAY_MS = 24 * HOUR_MS;

/** The service's pipeline without a database: hourly rollups, a 30-day window, clipped spikes. */
function detect(points: Array<{ at: number; value: number }>) {
  const hours = new Map<number, Moments>();
  const flagged: number[] = [];
  for (const point of points) {
    const from = Math.floor((point.at - rule.baselineDays * DAY_MS) / HOUR_MS);
    let sum: Moments = { count: 0, sum: 0, sumSq: 0 };
    for (const [hour, m] of hours)
      if (hour >= from)
        sum = { count: sum.count + m.count, sum: sum.sum + m.sum, sumSq: sum.sumSq + m.sumSq };
    const baseline = baselineOf(sum);
    const judgement = judge(point.value, baseline, rule);
    if (judgement.judged && judgement.anomalous) flagged.push(point.at);
    const hour = Math.floor(point.at / HOUR_MS);
    const added = baselineContribution(point.value, baseline, judgement, rule.zScoreThreshold);
    hours.set(hour, addMoments(hours.get(hour) ?? { count: 0, sum: 0, sumSq: 0 }, added));
  }
  return flagged;
}

describe('z-score detector', () => {
  it('finds planted spikes in seeded series with precision and recall of at least 0.9', () => {
    const random = seeded(20261126);
    const planted = new Set<string>();
    const detected = new Set<string>();
    for (let s = 0; s < 10; s += 1) {
      const series = plantedSeries(random, {
        metric: 'cpu_temp',
        subject: `device-${s}`,
        start: Date.parse('2026-01-01T00:00:00Z'),
        stepMs: 15 * 60_000,
        count: 40 * 96,
        mean: 40 + 10 * s,
        std: 1 + s,
        rate: 0.04,
        warmupPoints: 96,
      });
      for (const p of series.points) if (p.planted) planted.add(`${s}/${p.at}`);
      for (const at of detect(series.points)) detected.add(`${s}/${at}`);
    }
    const result = score(planted, detected);
    console.log(
      `detector (pure, 10 series × 3840 points, 4 % planted 4–8 σ spikes): precision ${result.precision.toFixed(4)}, recall ${result.recall.toFixed(4)} (${result.truePositives} of ${result.planted} planted, ${result.detected} flagged)`,
    );
    expect(result.planted).toBeGreaterThan(1000);
    expect(result.recall).toBeGreaterThanOrEqual(0.97);
    expect(result.precision).toBeGreaterThanOrEqual(0.9);
  });

  it('judges nothing before the minimum sample count, nor a series that never varied', () => {
    const few = baselineOf({ count: rule.minBaselineSamples - 1, sum: 0, sumSq: 100 });
    expect(judge(1000, few, rule)).toEqual({ judged: false, reason: 'too_few_samples' });
    const flat = baselineOf({ count: 100, sum: 500, sumSq: 2500 });
    expect(judge(6, flat, rule)).toEqual({ judged: false, reason: 'no_spread' });
  });

  it('rates high from twice the threshold and medium below it', () => {
    const baseline = { count: 100, mean: 10, std: 2 };
    expect(judge(10 + 2 * 3.5, baseline, rule)).toMatchObject({ anomalous: true, severity: 'medium' });
    expect(judge(10 - 2 * 6.1, baseline, rule)).toMatchObject({ anomalous: true, severity: 'high' });
    expect(judge(10 + 2 * 2.9, baseline, rule)).toMatchObject({ judged: true, anomalous: false });
  });

  it('adds a spike to the baseline clipped to the threshold', () => {
    const baseline = { count: 100, mean: 10, std: 2 };
    const judgement = judge(100, baseline, rule);
    expect(baselineContribution(100, baseline, judgement, 3)).toBe(16);
    expect(baselineContribution(11, baseline, judge(11, baseline, rule), 3)).toBe(11);
  });
});

describe('trend forecast', () => {
  it('predicts when a linearly filling disk is full, within half an hour', () => {
    const random = seeded(7);
    const start = Date.parse('2026-03-01T00:00:00Z');
    // 40 % at the start, 2 % an hour, noise of 0.3 %: a sample every 10 minutes for 12 hours.
    const points = Array.from({ length: 73 }, (_, i) => ({
      at: start + i * 10 * 60_000,
      value: 40 + 2 * (i / 6) + 0.3 * random.normal(),
    }));
    const trend = fitTrend(points)!;
    const result = forecast(trend, 24, 100);
    // At the end 64 % used: (100 − 64) / 2 = 18 hours left.
    expect(result.confidence).toBeGreaterThanOrEqual(0.8);
    expect(result.rate).toBeCloseTo(2, 1);
    expect(Math.abs(result.hours_until_full! - 18)).toBeLessThan(0.5);
    expect(Date.parse(result.predicted_full!)).toBeCloseTo(start + 12 * HOUR_MS + 18 * HOUR_MS, -6.5);
    expect(result.trend).toBe('rising');
  });

  it('has no confidence in noise', () => {
    const random = seeded(11);
    const start = Date.parse('2026-03-01T00:00:00Z');
    for (let run = 0; run < 20; run += 1) {
      const points = Array.from({ length: 144 }, (_, i) => ({
        at: start + i * 10 * 60_000,
        value: 60 + 3 * random.normal(),
      }));
      expect(forecast(fitTrend(points)!, 24, 100).confidence).toBeLessThan(0.8);
    }
  });
});
