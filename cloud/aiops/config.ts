/** The aiops module's settings: spec 3's AIOps configuration keys and limits, one variable each. */

import { type Env, flag, number } from '../config-env.ts';
import { ConfigError } from '../config-error.ts';

export interface AiopsConfig {
  /** `enabled`: off, samples are still accepted and stored but nothing is judged. */
  enabled: boolean;
  anomaly: {
    enabled: boolean;
    /** `baseline_window`: days of hourly rollups a sample is judged against (spec: 30). */
    baselineDays: number;
    /** `z_score_threshold` (spec: 3.0); severity is high from twice this. */
    zScoreThreshold: number;
    /** Samples a baseline needs before anything is judged against it. */
    minBaselineSamples: number;
  };
  prediction: {
    enabled: boolean;
    /** `forecast_horizon` in hours (spec: 24). */
    horizonHours: number;
    /** `confidence_threshold`: the R² a trend needs (spec: 0.8). */
    confidenceThreshold: number;
    /** The recent raw points a trend is fitted over. */
    trendHours: number;
    /** Points a trend needs at least. */
    minPoints: number;
  };
  correlation: {
    enabled: boolean;
    /** `time_window` in seconds (spec: 5 minutes). */
    windowSeconds: number;
    /** `min_correlation_score` (spec: 0.7). */
    minScore: number;
    useDependencyGraph: boolean;
    /**
     * One tenant's grouping passes start at least this far apart (real time): in an alert storm
     * each pass takes the alerts that fired meanwhile, so reading the window is not repeated per alert.
     */
    passGapMs: number;
  };
  /** One insight per metric and subject (or group) within this window; repeats count on it. */
  insightDedupeMinutes: number;
  /** Raw points kept for trends and for recognising a resent sample; older ones live on in rollups. */
  rawRetentionHours: number;
  insightRetentionDays: number;
  /** How often the worker prunes old rollups, points and insights. */
  pruneIntervalMs: number;
}

/** Every variable loadAiopsConfig reads (the README's configuration table). */
export const AIOPS_VARIABLES = [
  'AIOPS_ENABLED',
  'AIOPS_ANOMALY_ENABLED',
  'AIOPS_BASELINE_DAYS',
  'AIOPS_Z_SCORE_THRESHOLD',
  'AIOPS_MIN_BASELINE_SAMPLES',
  'AIOPS_PREDICTION_ENABLED',
  'AIOPS_FORECAST_HORIZON_HOURS',
  'AIOPS_CONFIDENCE_THRESHOLD',
  'AIOPS_TREND_HOURS',
  'AIOPS_TREND_MIN_POINTS',
  'AIOPS_CORRELATION_ENABLED',
  'AIOPS_CORRELATION_WINDOW_SECONDS',
  'AIOPS_MIN_CORRELATION_SCORE',
  'AIOPS_USE_DEPENDENCY_GRAPH',
  'AIOPS_CORRELATION_PASS_GAP_MS',
  'AIOPS_INSIGHT_DEDUPE_MINUTES',
  'AIOPS_RAW_RETENTION_HOURS',
  'AIOPS_INSIGHT_RETENTION_DAYS',
  'AIOPS_PRUNE_INTERVAL_MS',
] as const;

export const DEFAULT_AIOPS_CONFIG: AiopsConfig = {
  enabled: true,
  anomaly: { enabled: true, baselineDays: 30, zScoreThreshold: 3, minBaselineSamples: 30 },
  prediction: { enabled: true, horizonHours: 24, confidenceThreshold: 0.8, trendHours: 24, minPoints: 12 },
  correlation: { enabled: true, windowSeconds: 300, minScore: 0.7, useDependencyGraph: true, passGapMs: 250 },
  insightDedupeMinutes: 60,
  rawRetentionHours: 72,
  insightRetentionDays: 90,
  pruneIntervalMs: 3_600_000,
};

export function loadAiopsConfig(env: Env): AiopsConfig {
  const d = DEFAULT_AIOPS_CONFIG;
  const config: AiopsConfig = {
    enabled: flag(env, 'AIOPS_ENABLED', d.enabled),
    anomaly: {
      enabled: flag(env, 'AIOPS_ANOMALY_ENABLED', d.anomaly.enabled),
      baselineDays: number(env, 'AIOPS_BASELINE_DAYS', d.anomaly.baselineDays, 1, 365),
      zScoreThreshold: number(env, 'AIOPS_Z_SCORE_THRESHOLD', d.anomaly.zScoreThreshold, 0.5, 20, false),
      minBaselineSamples: number(env, 'AIOPS_MIN_BASELINE_SAMPLES', d.anomaly.minBaselineSamples, 2, 100_000),
    },
    prediction: {
      enabled: flag(env, 'AIOPS_PREDICTION_ENABLED', d.prediction.enabled),
      horizonHours: number(env, 'AIOPS_FORECAST_HORIZON_HOURS', d.prediction.horizonHours, 1, 24 * 30),
      confidenceThreshold: number(
        env,
        'AIOPS_CONFIDENCE_THRESHOLD',
        d.prediction.confidenceThreshold,
        0,
        1,
        false,
      ),
      trendHours: number(env, 'AIOPS_TREND_HOURS', d.prediction.trendHours, 1, 24 * 14),
      minPoints: number(env, 'AIOPS_TREND_MIN_POINTS', d.prediction.minPoints, 3, 10_000),
    },
    correlation: {
      enabled: flag(env, 'AIOPS_CORRELATION_ENABLED', d.correlation.enabled),
      windowSeconds: number(env, 'AIOPS_CORRELATION_WINDOW_SECONDS', d.correlation.windowSeconds, 1, 86_400),
      minScore: number(env, 'AIOPS_MIN_CORRELATION_SCORE', d.correlation.minScore, 0, 1, false),
      useDependencyGraph: flag(env, 'AIOPS_USE_DEPENDENCY_GRAPH', d.correlation.useDependencyGraph),
      passGapMs: number(env, 'AIOPS_CORRELATION_PASS_GAP_MS', d.correlation.passGapMs, 0, 60_000),
    },
    insightDedupeMinutes: number(env, 'AIOPS_INSIGHT_DEDUPE_MINUTES', d.insightDedupeMinutes, 1, 10_080),
    rawRetentionHours: number(env, 'AIOPS_RAW_RETENTION_HOURS', d.rawRetentionHours, 1, 24 * 90),
    insightRetentionDays: number(env, 'AIOPS_INSIGHT_RETENTION_DAYS', d.insightRetentionDays, 1, 3650),
    pruneIntervalMs: number(env, 'AIOPS_PRUNE_INTERVAL_MS', d.pruneIntervalMs, 1000, 86_400_000),
  };
  if (config.rawRetentionHours < config.prediction.trendHours)
    throw new ConfigError(
      `AIOPS_RAW_RETENTION_HOURS (${config.rawRetentionHours}) must be at least AIOPS_TREND_HOURS (${config.prediction.trendHours}): trends are fitted over raw points`,
    );
  return config;
}
