/** Root-cause analysis and the debug view: what correlation and the metrics know about one alert. */
import { performance } from 'node:perf_hooks';
import type { AiopsContext } from './context.ts';
import { type CorrelatedAlert, correlate, pairScore, sharesPlace, timeFactor } from './correlate.ts';
import type { CorrelationService } from './correlation.ts';
import { alertNotFound, targetNotFound } from './errors.ts';
import { isUpstream, upstreamPaths } from './graph.ts';
import type { Metrics } from './metrics.ts';
import { type AnomalyEvidence, rankCauses } from './rca.ts';
import { HOUR_MS, judge, round } from './stats.ts';
import * as store from './store.ts';

/** How long before an alert's start a metric anomaly still counts as evidence. */
const ANOMALY_LOOKBACK_SECONDS = 30 * 60;
const DEBUG_SERIES = 50;

export interface DebugOptions {
  show_baseline?: boolean | undefined;
  show_ml_scores?: boolean | undefined;
  show_correlation_factors?: boolean | undefined;
}

/** What an alert's metrics are about: its labels' values (device, location...) and its service. */
const subjectsOf = (alert: CorrelatedAlert) => [...new Set([alert.service, ...Object.values(alert.labels)])];

export function createAnalysis(context: AiopsContext, correlation: CorrelationService, metrics: Metrics) {
  const { options } = context;
  const db = context.store.db;

  async function target(tenantId: string, id: string) {
    const direct = await correlation.alertOf(tenantId, id);
    if (direct) return direct;
    const alertId = await context.incidentAlert(tenantId, id);
    const viaIncident = alertId === undefined ? undefined : await correlation.alertOf(tenantId, alertId);
    if (!viaIncident) throw targetNotFound();
    return viaIncident;
  }

  async function anomalyEvidence(tenantId: string, alert: CorrelatedAlert, upstream: CorrelatedAlert[]) {
    const start = Date.parse(alert.started_at);
    const subjects = [...new Set([...subjectsOf(alert), ...upstream.map((u) => u.service)])];
    const rows = await store.anomaliesAround(
      db,
      tenantId,
      subjects,
      new Date(start - ANOMALY_LOOKBACK_SECONDS * 1000).toISOString(),
      new Date(start + options.correlation.windowSeconds * 1000).toISOString(),
    );
    return rows.map((row): AnomalyEvidence => {
      const details = JSON.parse(row.details) as { z_score: number; mean: number; std: number };
      return {
        insight_id: row.id,
        metric: row.metric ?? '',
        subject: row.subject ?? '',
        at: row.observed_at,
        value: row.current_value ?? 0,
        mean: details.mean,
        std: details.std,
        z: details.z_score,
      };
    });
  }

  async function rca(tenantId: string, id: string) {
    const started = performance.now();
    const alert = await target(tenantId, id);
    const window = options.correlation.windowSeconds;
    const graph = await correlation.graphOf(tenantId);
    const nearby = (await correlation.near(tenantId, alert.started_at, window, window)).filter(
      (a) => a.id !== alert.id,
    );
    const upstream = nearby.filter((a) => isUpstream(graph, a.service, alert.service));
    const anomalies = await anomalyEvidence(tenantId, alert, upstream);
    const causes = rankCauses({ alert, nearby, anomalies, graph, windowSeconds: window });
    return {
      incident_id: id,
      alert_id: alert.id,
      analysis_time_ms: Math.round((performance.now() - started) * 100) / 100,
      probable_causes: causes,
    };
  }

  async function seriesScores(tenantId: string, alert: CorrelatedAlert) {
    const fromHour = new Date(
      context.clock.now().getTime() - options.anomaly.baselineDays * 24 * HOUR_MS,
    ).toISOString();
    return store.seriesOfSubjects(db, tenantId, subjectsOf(alert), fromHour, DEBUG_SERIES);
  }

  async function baselines(tenantId: string, series: store.Series[]) {
    const out = [];
    for (const s of series) {
      const b = await metrics.baseline(tenantId, s);
      out.push({
        ...s,
        mean: round(b.mean),
        std: round(b.std),
        samples: b.count,
        window_days: options.anomaly.baselineDays,
      });
    }
    return out;
  }

  async function mlScores(tenantId: string, series: store.Series[]) {
    const out = [];
    const from = new Date(
      context.clock.now().getTime() - options.prediction.trendHours * HOUR_MS,
    ).toISOString();
    for (const s of series) {
      const latest = (await store.points(db, tenantId, s, from, 1))[0];
      const baseline = await metrics.baseline(tenantId, s);
      const judgement = latest ? judge(latest.value, baseline, options.anomaly) : undefined;
      const prediction = await metrics.predict(tenantId, s);
      out.push({
        ...s,
        latest_value: latest?.value ?? null,
        latest_at: latest ? new Date(latest.at).toISOString() : null,
        z_score: judgement?.judged ? round(judgement.z) : null,
        anomalous: judgement?.judged ? judgement.anomalous : false,
        not_judged_because:
          judgement && !judgement.judged ? judgement.reason : latest ? null : 'no_recent_points',
        trend: prediction
          ? {
              rate: prediction.rate,
              r2: prediction.confidence,
              confident: prediction.confident,
              points: prediction.trend_fit.points,
            }
          : null,
      });
    }
    return out;
  }

  async function correlationFactors(tenantId: string, alert: CorrelatedAlert) {
    const rule = await correlation.rule(tenantId);
    const window = rule.windowSeconds;
    const nearby = (await correlation.near(tenantId, alert.started_at, window, window)).filter(
      (a) => a.id !== alert.id,
    );
    const start = Date.parse(alert.started_at);
    const pairs = nearby.map((other) => {
      const path = rule.graph
        ? (upstreamPaths(rule.graph, alert.service).get(other.service) ??
          upstreamPaths(rule.graph, other.service).get(alert.service))
        : undefined;
      return {
        alert_id: other.id,
        service: other.service,
        seconds_apart: Math.round(Math.abs(Date.parse(other.started_at) - start) / 1000),
        time: round(timeFactor(Math.abs(Date.parse(other.started_at) - start), window), 3),
        dependency: rule.graph ? (other.service === alert.service || path !== undefined ? 1 : 0) : null,
        dependency_path: path ?? null,
        labels: sharesPlace(alert, other) ? 1 : 0,
        score: pairScore(alert, other, rule),
      };
    });
    const group = nearby.length > 0 ? correlate([alert, ...nearby], rule) : undefined;
    return {
      window_seconds: window,
      min_correlation_score: rule.minScore,
      uses_dependency_graph: rule.graph !== null,
      pairs,
      group: group
        ? {
            is_correlated: group.is_correlated,
            correlation_score: group.correlation_score,
            factors: group.factors,
            root_cause_alert: group.root_cause_alert,
            dependency_chain: group.dependency_chain,
          }
        : null,
    };
  }

  return {
    rca,

    async debug(tenantId: string, alertId: string, show: DebugOptions) {
      const alert = await correlation.alertOf(tenantId, alertId);
      if (!alert) throw alertNotFound(alertId);
      const series = show.show_baseline || show.show_ml_scores ? await seriesScores(tenantId, alert) : [];
      return {
        alert_id: alert.id,
        service: alert.service,
        started_at: alert.started_at,
        subjects: subjectsOf(alert),
        settings: {
          z_score_threshold: options.anomaly.zScoreThreshold,
          baseline_days: options.anomaly.baselineDays,
          min_baseline_samples: options.anomaly.minBaselineSamples,
          confidence_threshold: options.prediction.confidenceThreshold,
          forecast_horizon_hours: options.prediction.horizonHours,
        },
        ...(show.show_baseline ? { baselines: await baselines(tenantId, series) } : {}),
        ...(show.show_ml_scores ? { ml_scores: await mlScores(tenantId, series) } : {}),
        ...(show.show_correlation_factors
          ? { correlation_factors: await correlationFactors(tenantId, alert) }
          : {}),
      };
    },
  };
}
