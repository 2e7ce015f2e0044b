import { describe, expect, it } from 'vitest';
import { CLOUD_VARIABLES, ConfigError, loadCloudConfig } from '../../../cloud/config.ts';

describe('AIOps configuration', () => {
  it('defaults to the spec’s limits', () => {
    expect(loadCloudConfig({}).aiops).toMatchObject({
      enabled: true,
      anomaly: { enabled: true, baselineDays: 30, zScoreThreshold: 3, minBaselineSamples: 30 },
      prediction: { enabled: true, horizonHours: 24, confidenceThreshold: 0.8 },
      correlation: { enabled: true, windowSeconds: 300, minScore: 0.7, useDependencyGraph: true },
    });
  });

  it('reads every AIOPS_ variable it lists and refuses bad values by name', () => {
    const config = loadCloudConfig({
      AIOPS_Z_SCORE_THRESHOLD: '2.5',
      AIOPS_BASELINE_DAYS: '14',
      AIOPS_CORRELATION_WINDOW_SECONDS: '600',
      AIOPS_USE_DEPENDENCY_GRAPH: 'false',
      AIOPS_CONFIDENCE_THRESHOLD: '0.9',
    }).aiops;
    expect(config.anomaly).toMatchObject({ zScoreThreshold: 2.5, baselineDays: 14 });
    expect(config.correlation).toMatchObject({ windowSeconds: 600, useDependencyGraph: false });
    expect(config.prediction.confidenceThreshold).toBe(0.9);
    expect(CLOUD_VARIABLES).toContain('AIOPS_MIN_CORRELATION_SCORE');
    expect(() => loadCloudConfig({ AIOPS_MIN_CORRELATION_SCORE: '1.5' })).toThrow(
      new ConfigError('AIOPS_MIN_CORRELATION_SCORE must be a number from 0 to 1, got "1.5"'),
    );
    expect(() => loadCloudConfig({ AIOPS_BASELINE_DAYS: '2.5' })).toThrow(ConfigError);
    expect(() => loadCloudConfig({ AIOPS_RAW_RETENTION_HOURS: '12' })).toThrow(/AIOPS_TREND_HOURS/);
  });
});
