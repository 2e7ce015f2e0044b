/** The aiops module's settings: the AIOps configuration keys and limits, one variable each. */

import { type Settings, settingNames } from '../../shared/config/settings.ts';
import { type Env, read } from '../config-env.ts';
import { ConfigError } from '../config-error.ts';

export interface AiopsConfig {
  /** `enabled`: off, samples are still accepted and stored but nothing is judged. */
  enabled: boolean;
  anomaly: {
    enabled: boolean;
    /** `baseline_window`: days of hourly rollups a sample is judged against. */
    baselineDays: number;
    /** `z_score_threshold`; severity is high from twice this. */
    zScoreThreshold: number;
    /** Samples a baseline needs before anything is judged against it. */
    minBaselineSamples: number;
  };
  prediction: {
    enabled: boolean;
    /** `forecast_horizon` in hours. */
    horizonHours: number;
    /** `confidence_threshold`: the R² a trend needs. */
    confidenceThreshold: number;
    /** The recent raw points a trend is fitted over. */
    trendHours: number;
    /** Points a trend needs at least. */
    minPoints: number;
  };
  correlation: {
    enabled: boolean;
    /** `time_window` in seconds. */
    windowSeconds: number;
    /** `min_correlation_score`. */
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

const d = DEFAULT_AIOPS_CONFIG;

const integer = (name: string, fallback: number, min: number, max: number, description: string) =>
  ({ name, type: 'integer', default: fallback, min, max, description }) as const;
const ratio = (name: string, fallback: number, min: number, max: number, description: string) =>
  ({ name, type: 'number', default: fallback, min, max, description }) as const;
const on = (name: string, fallback: boolean, description: string) =>
  ({ name, type: 'flag', default: fallback, description }) as const;

export const AIOPS_SETTINGS = {
  enabled: on('AIOPS_ENABLED', d.enabled, 'off: samples are still stored, nothing is judged or grouped'),
  anomalyEnabled: on('AIOPS_ANOMALY_ENABLED', d.anomaly.enabled, 'anomaly detection'),
  baselineDays: integer(
    'AIOPS_BASELINE_DAYS',
    d.anomaly.baselineDays,
    1,
    365,
    'days of hourly rollups a sample is judged against',
  ),
  zScoreThreshold: ratio(
    'AIOPS_Z_SCORE_THRESHOLD',
    d.anomaly.zScoreThreshold,
    0.5,
    20,
    'z-score from which a sample is an anomaly; severity is high from twice this',
  ),
  minBaselineSamples: integer(
    'AIOPS_MIN_BASELINE_SAMPLES',
    d.anomaly.minBaselineSamples,
    2,
    100_000,
    'samples a baseline needs before anything is judged against it',
  ),
  predictionEnabled: on('AIOPS_PREDICTION_ENABLED', d.prediction.enabled, 'trend predictions'),
  horizonHours: integer(
    'AIOPS_FORECAST_HORIZON_HOURS',
    d.prediction.horizonHours,
    1,
    24 * 30,
    'how far ahead (hours) a trend is projected',
  ),
  confidenceThreshold: ratio(
    'AIOPS_CONFIDENCE_THRESHOLD',
    d.prediction.confidenceThreshold,
    0,
    1,
    'the R² a trend needs',
  ),
  trendHours: integer(
    'AIOPS_TREND_HOURS',
    d.prediction.trendHours,
    1,
    24 * 14,
    'hours of recent raw points a trend is fitted over',
  ),
  minPoints: integer(
    'AIOPS_TREND_MIN_POINTS',
    d.prediction.minPoints,
    3,
    10_000,
    'points a trend needs at least',
  ),
  correlationEnabled: on('AIOPS_CORRELATION_ENABLED', d.correlation.enabled, 'alert correlation into groups'),
  windowSeconds: integer(
    'AIOPS_CORRELATION_WINDOW_SECONDS',
    d.correlation.windowSeconds,
    1,
    86_400,
    'how far apart (seconds) alerts may fire and still be grouped',
  ),
  minScore: ratio(
    'AIOPS_MIN_CORRELATION_SCORE',
    d.correlation.minScore,
    0,
    1,
    'the score two alerts need to be grouped',
  ),
  useDependencyGraph: on(
    'AIOPS_USE_DEPENDENCY_GRAPH',
    d.correlation.useDependencyGraph,
    'let the service dependency graph raise the score',
  ),
  passGapMs: integer(
    'AIOPS_CORRELATION_PASS_GAP_MS',
    d.correlation.passGapMs,
    0,
    60_000,
    "least time (ms) between one tenant's grouping passes; 0 groups each alert as soon as the previous pass ends",
  ),
  insightDedupeMinutes: integer(
    'AIOPS_INSIGHT_DEDUPE_MINUTES',
    d.insightDedupeMinutes,
    1,
    10_080,
    'one insight per metric and subject within this many minutes; repeats count on it',
  ),
  rawRetentionHours: integer(
    'AIOPS_RAW_RETENTION_HOURS',
    d.rawRetentionHours,
    1,
    24 * 90,
    'hours raw points are kept (at least `AIOPS_TREND_HOURS`); older ones live on in rollups',
  ),
  insightRetentionDays: integer(
    'AIOPS_INSIGHT_RETENTION_DAYS',
    d.insightRetentionDays,
    1,
    3650,
    'days insights are kept',
  ),
  pruneIntervalMs: integer(
    'AIOPS_PRUNE_INTERVAL_MS',
    d.pruneIntervalMs,
    1000,
    86_400_000,
    'how often (ms) rollups, points, insights and groups past their windows are deleted',
  ),
} as const satisfies Settings;

/** Every variable loadAiopsConfig reads. */
export const AIOPS_VARIABLES = settingNames(AIOPS_SETTINGS);

export function loadAiopsConfig(env: Env): AiopsConfig {
  const s = AIOPS_SETTINGS;
  const config: AiopsConfig = {
    enabled: read(env, s.enabled),
    anomaly: {
      enabled: read(env, s.anomalyEnabled),
      baselineDays: read(env, s.baselineDays),
      zScoreThreshold: read(env, s.zScoreThreshold),
      minBaselineSamples: read(env, s.minBaselineSamples),
    },
    prediction: {
      enabled: read(env, s.predictionEnabled),
      horizonHours: read(env, s.horizonHours),
      confidenceThreshold: read(env, s.confidenceThreshold),
      trendHours: read(env, s.trendHours),
      minPoints: read(env, s.minPoints),
    },
    correlation: {
      enabled: read(env, s.correlationEnabled),
      windowSeconds: read(env, s.windowSeconds),
      minScore: read(env, s.minScore),
      useDependencyGraph: read(env, s.useDependencyGraph),
      passGapMs: read(env, s.passGapMs),
    },
    insightDedupeMinutes: read(env, s.insightDedupeMinutes),
    rawRetentionHours: read(env, s.rawRetentionHours),
    insightRetentionDays: read(env, s.insightRetentionDays),
    pruneIntervalMs: read(env, s.pruneIntervalMs),
  };
  if (config.rawRetentionHours < config.prediction.trendHours)
    throw new ConfigError(
      `AIOPS_RAW_RETENTION_HOURS (${config.rawRetentionHours}) must be at least AIOPS_TREND_HOURS (${config.prediction.trendHours}): trends are fitted over raw points`,
    );
  return config;
}
