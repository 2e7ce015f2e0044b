/** Insight rows and their public view: the documented fields that apply to the type, plus bookkeeping. */
import type { AiopsContext } from './context.ts';
import type { AiopsInsightRow, InsightType } from './tables.ts';

export interface NewInsight {
  type: InsightType;
  severity: 'high' | 'medium';
  metric?: string | null;
  subject?: string | null;
  description: string;
  current_value?: number | null;
  baseline?: number | null;
  recommended_action?: string | null;
  predicted_value?: number | null;
  prediction_time?: string | null;
  alert_count?: number | null;
  probable_cause?: string | null;
  correlation_id?: string | null;
  details: Record<string, unknown>;
  dedupe_key: string;
  observed_at: string;
}

export function insightRow(context: AiopsContext, tenantId: string, insight: NewInsight): AiopsInsightRow {
  const now = context.clock.now().toISOString();
  return {
    id: context.newId(),
    tenant_id: tenantId,
    type: insight.type,
    severity: insight.severity,
    metric: insight.metric ?? null,
    subject: insight.subject ?? null,
    description: insight.description,
    current_value: insight.current_value ?? null,
    baseline: insight.baseline ?? null,
    recommended_action: insight.recommended_action ?? null,
    predicted_value: insight.predicted_value ?? null,
    prediction_time: insight.prediction_time ?? null,
    alert_count: insight.alert_count ?? null,
    probable_cause: insight.probable_cause ?? null,
    correlation_id: insight.correlation_id ?? null,
    details: JSON.stringify(insight.details),
    dedupe_key: insight.dedupe_key,
    occurrences: 1,
    observed_at: insight.observed_at,
    created_at: now,
    updated_at: now,
  };
}

const OPTIONAL = [
  'metric',
  'subject',
  'current_value',
  'baseline',
  'recommended_action',
  'predicted_value',
  'prediction_time',
  'alert_count',
  'probable_cause',
  'correlation_id',
] as const;

export type InsightView = ReturnType<typeof insightView>;

/** The public form: fields that do not apply to the insight's type are left out. */
export function insightView(row: AiopsInsightRow) {
  const view: Record<string, unknown> = {
    id: row.id,
    type: row.type,
    severity: row.severity,
    description: row.description,
    details: JSON.parse(row.details) as Record<string, unknown>,
    occurrences: row.occurrences,
    observed_at: row.observed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
  for (const field of OPTIONAL) if (row[field] !== null) view[field] = row[field];
  return view as {
    id: string;
    type: InsightType;
    severity: 'high' | 'medium';
    description: string;
    details: Record<string, unknown>;
    occurrences: number;
    observed_at: string;
    created_at: string;
    updated_at: string;
  } & Partial<{ [K in (typeof OPTIONAL)[number]]: NonNullable<AiopsInsightRow[K]> }>;
}
