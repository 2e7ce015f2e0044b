/**
 * Metric samples in: stored as raw points (for trends, kept briefly) and hourly rollups (for the
 * 30-day baseline, a sum over at most 720 rows per series), each judged against its baseline on
 * the way in; capacity and limit metrics also get a trend forecast.
 */
import { InvalidRequestError } from '../../shared/http/errors.ts';
import type { AiopsContext } from './context.ts';
import { insightRow } from './insights.ts';
import { metricRemediation } from './rca.ts';
import {
  addMoments,
  type Baseline,
  baselineContribution,
  baselineOf,
  fitTrend,
  forecast,
  HOUR_MS,
  judge,
  type Moments,
  round,
} from './stats.ts';
import * as store from './store.ts';
import type { AiopsMetricHourRow, AiopsMetricPointRow } from './tables.ts';

export interface MetricSample {
  metric: string;
  subject: string;
  at: string;
  value: number;
}

export const METRIC_NAME = /^[a-z][a-z0-9_.]{0,127}$/;
export const MAX_SUBJECT = 200;

/** The level a metric must not cross: capacity (full at 100 %) or the critical thresholds. */
export interface Limit {
  direction: 'above' | 'below';
  value: number;
  capacity: boolean;
}

const LIMITS: Array<[RegExp, Limit]> = [
  [/disk.*(used|usage)|(used|usage).*disk|storage_used/, { direction: 'above', value: 100, capacity: true }],
  [/^sync_queue_depth$/, { direction: 'above', value: 1000, capacity: false }],
  [/^sync_(lag|latency)/, { direction: 'above', value: 30, capacity: false }],
  [/^camera_fps$/, { direction: 'below', value: 5, capacity: false }],
  [/^inference_latency/, { direction: 'above', value: 1000, capacity: false }],
  [/^edge_temp|temperature/, { direction: 'above', value: 85, capacity: false }],
  [/^edge_gpu_util/, { direction: 'above', value: 95, capacity: false }],
];

export const limitOf = (metric: string) => LIMITS.find(([pattern]) => pattern.test(metric))?.[1];

const PREDICTION_INTERVAL_MS = 5 * 60_000;
const FUTURE_SLACK_MS = 5 * 60_000;

export const hourOf = (ms: number) => new Date(Math.floor(ms / HOUR_MS) * HOUR_MS).toISOString();

export function createMetrics(context: AiopsContext) {
  const { options, clock } = context;
  const db = context.store.db;
  const lastPredicted = new Map<string, number>();

  /** Lenient (a feed): invalid samples are dropped; strict (the API): the problems are answered. */
  function validate(samples: MetricSample[], lenient: boolean) {
    const now = clock.now().getTime();
    const oldest = now - options.anomaly.baselineDays * 24 * HOUR_MS;
    const problems: Array<{ field: string; message: string }> = [];
    const rows: AiopsMetricPointRow[] = [];
    for (const [i, s] of samples.entries()) {
      const at = Date.parse(s.at);
      if (!METRIC_NAME.test(s.metric))
        problems.push({ field: `samples.${i}.metric`, message: 'must be a lower-case metric name' });
      else if (s.subject.length === 0 || s.subject.length > MAX_SUBJECT)
        problems.push({ field: `samples.${i}.subject`, message: `must be 1 to ${MAX_SUBJECT} characters` });
      else if (!Number.isFinite(s.value))
        problems.push({ field: `samples.${i}.value`, message: 'must be a finite number' });
      else if (Number.isNaN(at))
        problems.push({ field: `samples.${i}.at`, message: 'must be an ISO 8601 time' });
      else if (at > now + FUTURE_SLACK_MS)
        problems.push({ field: `samples.${i}.at`, message: 'is in the future' });
      else if (at < oldest)
        problems.push({
          field: `samples.${i}.at`,
          message: `is older than the ${options.anomaly.baselineDays}-day baseline`,
        });
      else
        rows.push({
          tenant_id: '',
          metric: s.metric,
          subject: s.subject,
          at: new Date(at).toISOString(),
          value: s.value,
        });
      if (problems.length >= 20 && !lenient) break;
    }
    return { problems, rows };
  }

  /** Judges one series' new points in time order, each against the baseline and the points before it. */
  function judgeSeries(tenantId: string, points: AiopsMetricPointRow[], before: Moments) {
    const hours = new Map<string, AiopsMetricHourRow>();
    const anomalies: Array<{
      point: AiopsMetricPointRow;
      baseline: Baseline;
      z: number;
      severity: 'high' | 'medium';
    }> = [];
    let running = before;
    const judging = options.enabled && options.anomaly.enabled;
    for (const point of points) {
      const baseline = baselineOf(running);
      const judgement = judging
        ? judge(point.value, baseline, options.anomaly)
        : ({ judged: false, reason: 'too_few_samples' } as const);
      if (judgement.judged && judgement.anomalous)
        anomalies.push({ point, baseline, z: judgement.z, severity: judgement.severity! });
      const added = baselineContribution(point.value, baseline, judgement, options.anomaly.zScoreThreshold);
      running = addMoments(running, added);
      const hour = hourOf(Date.parse(point.at));
      const row = hours.get(hour) ?? {
        tenant_id: tenantId,
        metric: point.metric,
        subject: point.subject,
        hour,
        count: 0,
        sum: 0,
        sum_sq: 0,
        min: point.value,
        max: point.value,
      };
      row.count += 1;
      row.sum += added;
      row.sum_sq += added * added;
      row.min = Math.min(row.min, point.value);
      row.max = Math.max(row.max, point.value);
      hours.set(hour, row);
    }
    return { hours: [...hours.values()], anomalies };
  }

  async function recordAnomaly(
    tenantId: string,
    a: { point: AiopsMetricPointRow; baseline: Baseline; z: number; severity: 'high' | 'medium' },
  ) {
    const { point, baseline, z } = a;
    const bucket = Math.floor(Date.parse(point.at) / (options.insightDedupeMinutes * 60_000));
    const direction = z > 0 ? 'above' : 'below';
    return store.upsertInsight(
      db,
      insightRow(context, tenantId, {
        type: 'anomaly',
        severity: a.severity,
        metric: point.metric,
        subject: point.subject,
        description: `${point.metric} on ${point.subject} is ${round(Math.abs(z), 2)} standard deviations ${direction} its ${options.anomaly.baselineDays}-day baseline (${round(point.value, 2)} against ${round(baseline.mean, 2)} ± ${round(baseline.std, 2)})`,
        current_value: point.value,
        baseline: round(baseline.mean),
        recommended_action: metricRemediation(point.metric),
        details: {
          z_score: round(z),
          mean: round(baseline.mean),
          std: round(baseline.std),
          samples: baseline.count,
        },
        dedupe_key: `anomaly:${point.metric}:${point.subject}:${bucket}`,
        observed_at: point.at,
      }),
    );
  }

  /** The trend forecast of one series from its recent points, or undefined without enough of them. */
  async function predict(tenantId: string, series: store.Series) {
    const now = clock.now().getTime();
    const from = new Date(now - options.prediction.trendHours * HOUR_MS).toISOString();
    const recent = await store.points(db, tenantId, series, from);
    if (recent.length < options.prediction.minPoints) return undefined;
    const trend = fitTrend(recent);
    if (!trend) return undefined;
    const limit = limitOf(series.metric);
    const result = forecast(trend, options.prediction.horizonHours, limit?.capacity ? limit.value : null);
    return {
      ...series,
      ...result,
      confident: trend.r2 >= options.prediction.confidenceThreshold,
      trend_fit: trend,
      limit,
    };
  }

  async function recordPrediction(tenantId: string, series: store.Series) {
    const key = `${tenantId}\u0000${store.seriesKey(series)}`;
    const now = clock.now().getTime();
    if (now - (lastPredicted.get(key) ?? Number.NEGATIVE_INFINITY) < PREDICTION_INTERVAL_MS) return undefined;
    lastPredicted.set(key, now);
    const p = await predict(tenantId, series);
    if (!p?.confident || !p.limit) return undefined;
    const crossing = hoursToCross(p.trend_fit.fitted, p.trend_fit.rate, p.limit);
    const horizon = options.prediction.horizonHours;
    if (crossing === undefined || crossing > horizon) return undefined;
    const at = new Date(p.trend_fit.lastAt + crossing * HOUR_MS).toISOString();
    const what = p.limit.capacity ? 'full' : `${p.limit.direction} ${p.limit.value}`;
    return store.upsertInsight(
      db,
      insightRow(context, tenantId, {
        type: 'prediction',
        severity: crossing <= horizon / 4 ? 'high' : 'medium',
        metric: series.metric,
        subject: series.subject,
        description: `${series.metric} on ${series.subject} is predicted ${what} in ${round(crossing, 1)} h (${p.rate > 0 ? '+' : ''}${round(p.rate, 3)} per hour, R² ${round(p.confidence, 3)})`,
        current_value: p.current_value,
        baseline: null,
        recommended_action: metricRemediation(series.metric),
        predicted_value: p.limit.value,
        prediction_time: at,
        details: {
          trend: p.trend,
          rate: p.rate,
          confidence: p.confidence,
          hours_until_full: p.hours_until_full,
          predicted_full: p.predicted_full,
          points: p.trend_fit.points,
        },
        // One per series and horizon, brought up to date as points arrive.
        dedupe_key: `prediction:${series.metric}:${series.subject}:${Math.floor(now / (horizon * HOUR_MS))}`,
        observed_at: new Date(p.trend_fit.lastAt).toISOString(),
      }),
    );
  }

  return {
    predict,

    /**
     * Stores the samples (a resent sample, same series and time, counts once), judges the new ones
     * and records the insights they raise. The whole batch is refused when one sample is invalid.
     */
    async recordSamples(tenantId: string, samples: MetricSample[], mode: { lenient?: boolean } = {}) {
      const { problems, rows } = validate(samples, mode.lenient === true);
      if (problems.length > 0 && !mode.lenient)
        throw new InvalidRequestError(
          'The request is invalid',
          problems.map((p) => ({ ...p, field: `body.${p.field}` })),
        );
      const fresh = await store.insertNewPoints(
        db,
        rows.map((row) => ({ ...row, tenant_id: tenantId })),
      );
      const bySeries = new Map<string, AiopsMetricPointRow[]>();
      for (const point of fresh) {
        const list = bySeries.get(store.seriesKey(point)) ?? [];
        list.push(point);
        bySeries.set(store.seriesKey(point), list);
      }
      const series = [...bySeries.values()].map((list) => ({
        metric: list[0]!.metric,
        subject: list[0]!.subject,
      }));
      const fromHour = hourOf(clock.now().getTime() - options.anomaly.baselineDays * 24 * HOUR_MS);
      const known = await store.moments(db, tenantId, series, fromHour);
      const hours: AiopsMetricHourRow[] = [];
      const anomalies: Awaited<ReturnType<typeof recordAnomaly>>[] = [];
      const pending: Array<ReturnType<typeof judgeSeries>['anomalies'][number]> = [];
      for (const [key, list] of bySeries) {
        list.sort((a, b) => a.at.localeCompare(b.at));
        const judged = judgeSeries(tenantId, list, known.get(key) ?? { count: 0, sum: 0, sumSq: 0 });
        hours.push(...judged.hours);
        pending.push(...judged.anomalies);
      }
      await store.addHours(db, hours);
      for (const anomaly of pending) anomalies.push(await recordAnomaly(tenantId, anomaly));
      const predictions = [];
      if (options.enabled && options.prediction.enabled)
        for (const s of series.filter((s) => limitOf(s.metric))) {
          const insight = await recordPrediction(tenantId, s);
          if (insight) predictions.push(insight);
        }
      return { received: samples.length, recorded: fresh.length, anomalies, predictions };
    },

    /** A series' 30-day baseline. */
    async baseline(tenantId: string, series: store.Series) {
      const fromHour = hourOf(clock.now().getTime() - options.anomaly.baselineDays * 24 * HOUR_MS);
      const found = await store.moments(db, tenantId, [series], fromHour);
      return baselineOf(found.get(store.seriesKey(series)) ?? { count: 0, sum: 0, sumSq: 0 });
    },

    /** Keeps the insight-rate map from growing without bound. */
    forgetPredictionsBefore(ms: number) {
      for (const [key, at] of lastPredicted) if (at < ms) lastPredicted.delete(key);
    },
  };
}

/** Hours until the fitted line crosses the limit, if it is heading there and has not crossed yet. */
export function hoursToCross(fitted: number, rate: number, limit: Limit) {
  const gap = limit.value - fitted;
  if (limit.direction === 'above' ? gap <= 0 || rate <= 0 : gap >= 0 || rate >= 0) return undefined;
  return gap / rate;
}

export type Metrics = ReturnType<typeof createMetrics>;
