/** The aiops module's tables. Times are ISO 8601 UTC text; JSON columns are text. */

/** One hour of one series: what a 30-day baseline sums (720 rows at most). */
export interface AiopsMetricHourRow {
  tenant_id: string;
  metric: string;
  subject: string;
  /** The hour's start. */
  hour: string;
  count: number;
  sum: number;
  /** Anomalous samples enter count, sum and sum_sq clipped to the threshold (see stats.ts). */
  sum_sq: number;
  min: number;
  max: number;
}

/** A raw sample, kept AIOPS_RAW_RETENTION_HOURS for trends and for recognising a resent sample. */
export interface AiopsMetricPointRow {
  tenant_id: string;
  metric: string;
  subject: string;
  at: string;
  value: number;
}

export const INSIGHT_TYPES = ['anomaly', 'prediction', 'correlation'] as const;
export type InsightType = (typeof INSIGHT_TYPES)[number];

export interface AiopsInsightRow {
  id: string;
  tenant_id: string;
  type: InsightType;
  severity: 'high' | 'medium';
  metric: string | null;
  subject: string | null;
  description: string;
  current_value: number | null;
  baseline: number | null;
  recommended_action: string | null;
  predicted_value: number | null;
  prediction_time: string | null;
  alert_count: number | null;
  probable_cause: string | null;
  correlation_id: string | null;
  /** JSON: the figures behind it (z-score, spread, trend, factors). */
  details: string;
  /** One insight per key: type, series and window bucket, or the correlation group. */
  dedupe_key: string;
  occurrences: number;
  /** The (latest) sample or alert time it is about. */
  observed_at: string;
  created_at: string;
  updated_at: string;
}

/** A tenant's own dependency graph: one row per service; none means the default graph. */
export interface AiopsDependencyRow {
  tenant_id: string;
  service: string;
  /** JSON string[]. */
  depends_on: string;
  updated_at: string;
}

export interface AiopsCorrelationGroupRow {
  id: string;
  tenant_id: string;
  root_cause_alert: string;
  probable_cause: string;
  confidence: number;
  suggested_action: string;
  runbook_url: string | null;
  /** JSON string[]. */
  dependency_chain: string;
  created_at: string;
  updated_at: string;
}

/** An alert belongs to one group at most. */
export interface AiopsCorrelationMemberRow {
  tenant_id: string;
  alert_id: string;
  group_id: string;
  title: string;
  correlation_score: number;
  relationship: string;
  started_at: string;
}

export interface AiopsTables {
  aiops_metric_hours: AiopsMetricHourRow;
  aiops_metric_points: AiopsMetricPointRow;
  aiops_insights: AiopsInsightRow;
  aiops_dependencies: AiopsDependencyRow;
  aiops_correlation_groups: AiopsCorrelationGroupRow;
  aiops_correlation_members: AiopsCorrelationMemberRow;
}
