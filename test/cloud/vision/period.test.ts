import { describe, expect, it } from 'vitest';
import { modelMetrics } from '../../../cloud/vision/metrics.ts';
import { decodeCursor, encodeCursor, MAX_PERIOD_MS, parsePeriod } from '../../../cloud/vision/period.ts';
import type { ModelTotalsRow } from '../../../cloud/vision/store.ts';
import { AppError } from '../../../shared/http/errors.ts';

function problem(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return { status: (error as AppError).status, details: (error as AppError).details };
  }
  throw new Error('expected a refusal');
}

describe('vision periods', () => {
  it('reads a count of minutes, hours or days', () => {
    expect(parsePeriod('15m')).toBe(15 * 60_000);
    expect(parsePeriod('1h')).toBe(3_600_000);
    expect(parsePeriod('24h')).toBe(86_400_000);
    expect(parsePeriod('7d')).toBe(7 * 86_400_000);
    expect(parsePeriod('30d')).toBe(MAX_PERIOD_MS);
    expect(parsePeriod('720h')).toBe(MAX_PERIOD_MS);
  });

  it('refuses nothing, more than 30 days, and what is not a period, naming the field', () => {
    for (const [period, message] of [
      ['0m', 'must be at least 1m'],
      ['31d', 'must be at most 30d'],
      ['721h', 'must be at most 30d'],
      ['1w', 'must be a count and a unit: m, h or d (e.g. 15m, 1h, 7d)'],
      ['h', 'must be a count and a unit: m, h or d (e.g. 15m, 1h, 7d)'],
      ['-1h', 'must be a count and a unit: m, h or d (e.g. 15m, 1h, 7d)'],
    ] as const) {
      expect(
        problem(() => parsePeriod(period)),
        period,
      ).toEqual({
        status: 400,
        details: [{ field: 'query.period', message }],
      });
    }
  });
});

describe('vision page cursors', () => {
  it('round-trips a position and refuses what it did not make', () => {
    const before = { at: '2026-03-01T12:00:00.000Z', id: '0195-abc' };
    expect(decodeCursor(encodeCursor(before))).toEqual(before);
    expect(decodeCursor(undefined)).toBeUndefined();
    for (const cursor of [
      'nonsense',
      Buffer.from('2026-03-01|x').toString('base64url'),
      Buffer.from('x|y').toString('base64url'),
    ])
      expect(problem(() => decodeCursor(cursor)).details[0]!.field).toBe('query.cursor');
  });
});

describe('model metrics', () => {
  const totals = (overrides: Partial<ModelTotalsRow>): ModelTotalsRow => ({
    camera_id: 'cam',
    location_id: 'loc',
    minutes: 10,
    frames_read: 9000,
    frames_inferred: 6000,
    frames_skipped: 2800,
    frames_dropped: 200,
    detections: 120,
    camera_fps_sum: 150,
    camera_fps_minutes: 10,
    detection_fps_sum: 100,
    detection_fps_minutes: 10,
    inference_p50: 40 * 6000,
    inference_p50_weight: 6000,
    inference_p99: 120 * 6000,
    inference_p99_weight: 6000,
    inference_mean: 45 * 6000,
    inference_mean_weight: 6000,
    capture_p50: 60 * 6000,
    capture_p50_weight: 6000,
    capture_p95: 90 * 6000,
    capture_p95_weight: 6000,
    capture_p99: 150 * 6000,
    capture_p99_weight: 6000,
    ...overrides,
  });
  const window = { period: '1h', from: '2026-03-01T11:00:00.000Z', to: '2026-03-01T12:00:00.000Z' };

  it('weights latencies by inferences and raises alerts by the spec’s thresholds', () => {
    const rows = [
      totals({ camera_id: 'good' }),
      // 2,000 inferences at p99 700 ms and 8 fps: warnings.
      totals({
        camera_id: 'slowish',
        frames_inferred: 2000,
        camera_fps_sum: 80,
        inference_p50: 300 * 2000,
        inference_p50_weight: 2000,
        inference_p99: 700 * 2000,
        inference_p99_weight: 2000,
      }),
      // 4 fps and p99 1200 ms: critical.
      totals({
        camera_id: 'bad',
        frames_inferred: 2000,
        camera_fps_sum: 40,
        inference_p50: 300 * 2000,
        inference_p50_weight: 2000,
        inference_p99: 1200 * 2000,
        inference_p99_weight: 2000,
      }),
    ];
    const result = modelMetrics('vehicles', window, rows);
    expect(result.inferences).toBe(10_000);
    expect(result.frames).toEqual({ read: 27_000, skipped_by_motion: 8400, dropped: 600 });
    // (40·6000 + 300·2000 + 300·2000) / 10000
    expect(result.latency_ms.p50).toBe(144);
    expect(result.latency_ms.p99).toBe((120 * 6000 + 700 * 2000 + 1200 * 2000) / 10_000);
    expect(result.camera_fps).toBe(9);
    expect(result.cameras.map((c) => [c.camera_id, c.camera_fps, c.latency_ms.p99])).toEqual([
      ['good', 15, 120],
      ['slowish', 8, 700],
      ['bad', 4, 1200],
    ]);
    expect(result.alerts).toEqual([
      {
        metric: 'camera_fps',
        severity: 'warning',
        threshold: 10,
        camera_id: 'slowish',
        location_id: 'loc',
        value: 8,
      },
      {
        metric: 'inference_latency_p99',
        severity: 'warning',
        threshold: 500,
        camera_id: 'slowish',
        location_id: 'loc',
        value: 700,
      },
      {
        metric: 'camera_fps',
        severity: 'critical',
        threshold: 5,
        camera_id: 'bad',
        location_id: 'loc',
        value: 4,
      },
      {
        metric: 'inference_latency_p99',
        severity: 'critical',
        threshold: 1000,
        camera_id: 'bad',
        location_id: 'loc',
        value: 1200,
      },
    ]);
  });

  it('answers nulls, not zeros, where no minute had a figure', () => {
    const result = modelMetrics('vehicles', window, [
      totals({
        frames_inferred: 0,
        camera_fps_sum: null,
        camera_fps_minutes: 0,
        inference_p50: null,
        inference_p50_weight: 0,
        inference_p99: null,
        inference_p99_weight: 0,
      }),
    ]);
    expect(result.latency_ms.p50).toBeNull();
    expect(result.latency_ms.p99).toBeNull();
    expect(result.camera_fps).toBeNull();
    expect(result.alerts).toEqual([]);
    expect(modelMetrics('vehicles', window, []).minutes).toBe(0);
  });
});
