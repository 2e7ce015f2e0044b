import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { MAX_METRIC_VALUE } from '../../shared/http/numbers.ts';
import { MAX_SERVICES } from './graph.ts';
import { INSIGHT_TYPES } from './tables.ts';

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Literals = <T extends readonly string[]>(values: T) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values] });
const Id = Type.String({ minLength: 1, maxLength: 128 });
const Open = Type.Object({}, { additionalProperties: true });
const ServiceName = Type.String({
  pattern: '^[a-z0-9][a-z0-9_.-]{0,63}$',
  description: 'e.g. database, sync, appliance',
});

export const MAX_SAMPLES = 1000;

export const MetricSampleSchema = Type.Object(
  {
    metric: Type.String({
      pattern: '^[a-z][a-z0-9_.]{0,127}$',
      description: 'e.g. edge_disk_used, sync_queue_depth',
    }),
    subject: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'the device, location or service measured',
    }),
    at: {
      ...Timestamp,
      description: 'when it was measured; at most 5 minutes ahead, within the baseline window',
    },
    value: Type.Number({ minimum: -MAX_METRIC_VALUE, maximum: MAX_METRIC_VALUE }),
  },
  { additionalProperties: false },
);

export const MetricsBodySchema = Type.Object(
  { samples: Type.Array(MetricSampleSchema, { minItems: 1, maxItems: MAX_SAMPLES }) },
  { additionalProperties: false },
);
export type MetricsBody = Static<typeof MetricsBodySchema>;

export const InsightSchema = Type.Object({
  id: Type.String(),
  type: Literals(INSIGHT_TYPES),
  severity: Literals(['high', 'medium'] as const),
  metric: Type.Optional(Type.String()),
  subject: Type.Optional(Type.String()),
  description: Type.String(),
  current_value: Type.Optional(Type.Number()),
  baseline: Type.Optional(Type.Number()),
  recommended_action: Type.Optional(Type.String()),
  predicted_value: Type.Optional(Type.Number()),
  prediction_time: Type.Optional(Timestamp),
  alert_count: Type.Optional(Type.Integer()),
  probable_cause: Type.Optional(Type.String()),
  correlation_id: Type.Optional(Type.String()),
  details: {
    ...Open,
    description: 'the figures behind it: z-score and baseline, trend, correlation factors',
  },
  occurrences: Type.Integer({ description: 'times it was raised again within its dedupe window' }),
  observed_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const MetricsResultSchema = Type.Object({
  received: Type.Integer(),
  recorded: Type.Integer({
    description: 'new samples; a resent one (same metric, subject and time) is not counted again',
  }),
  anomalies: Type.Array(InsightSchema),
  predictions: Type.Array(InsightSchema),
});

export const InsightQuerySchema = Type.Object(
  {
    type: Type.Optional(Literals(INSIGHT_TYPES)),
    metric: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    since: Type.Optional({ ...Timestamp, description: 'insights raised or updated at or after this time' }),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Id, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);

export const InsightListSchema = Type.Object({ insights: Type.Array(InsightSchema) });

export const CorrelateBodySchema = Type.Object(
  { alert_ids: Type.Array(Id, { minItems: 2, maxItems: 100 }) },
  { additionalProperties: false },
);

export const CorrelationSchema = Type.Object({
  correlation: Type.Object({
    is_correlated: Type.Boolean(),
    correlation_score: Type.Number({ minimum: 0, maximum: 1 }),
    root_cause_alert: Nullable(Type.String()),
    probable_cause: Nullable(Type.String()),
    dependency_chain: Type.Array(Type.String(), { description: 'from the root cause down' }),
    factors: Type.Object({
      time: Type.Number(),
      dependency: Nullable(Type.Number()),
      labels: Type.Number(),
      spread_seconds: Type.Integer(),
    }),
  }),
});

export const RcaParamsSchema = Type.Object({ incident_id: Id });

export const RcaSchema = Type.Object({
  incident_id: Type.String(),
  alert_id: Type.String({ description: 'the alert analysed (the incident’s alert for an incident id)' }),
  analysis_time_ms: Type.Number(),
  probable_causes: Type.Array(
    Type.Object({
      rank: Type.Integer({ minimum: 1 }),
      cause: Type.String(),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
      evidence: Type.Array(Type.String()),
      remediation: Type.String(),
    }),
  ),
});

export const DebugBodySchema = Type.Object(
  {
    alert_id: Id,
    debug_options: Type.Optional(
      Type.Object(
        {
          show_baseline: Type.Optional(Type.Boolean()),
          show_ml_scores: Type.Optional(Type.Boolean()),
          show_correlation_factors: Type.Optional(Type.Boolean()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const SeriesFields = { metric: Type.String(), subject: Type.String() };

export const DebugSchema = Type.Object({
  alert_id: Type.String(),
  service: Type.String(),
  started_at: Timestamp,
  subjects: Type.Array(Type.String(), { description: 'the series looked at: its service and label values' }),
  settings: Open,
  baselines: Type.Optional(
    Type.Array(
      Type.Object({
        ...SeriesFields,
        mean: Type.Number(),
        std: Type.Number(),
        samples: Type.Integer(),
        window_days: Type.Integer(),
      }),
    ),
  ),
  ml_scores: Type.Optional(
    Type.Array(
      Type.Object({
        ...SeriesFields,
        latest_value: Nullable(Type.Number()),
        latest_at: Nullable(Timestamp),
        z_score: Nullable(Type.Number()),
        anomalous: Type.Boolean(),
        not_judged_because: Nullable(Type.String()),
        trend: Nullable(Open),
      }),
    ),
  ),
  correlation_factors: Type.Optional(
    Type.Object({
      window_seconds: Type.Integer(),
      min_correlation_score: Type.Number(),
      uses_dependency_graph: Type.Boolean(),
      pairs: Type.Array(
        Type.Object({
          alert_id: Type.String(),
          service: Type.String(),
          seconds_apart: Type.Integer(),
          time: Type.Number(),
          dependency: Nullable(Type.Number()),
          dependency_path: Nullable(Type.Array(Type.String())),
          labels: Type.Number(),
          score: Type.Number(),
        }),
      ),
      group: Nullable(Open),
    }),
  ),
});

const DependencyEntry = Type.Object(
  {
    service: ServiceName,
    depends_on: Type.Array(ServiceName, { maxItems: 50, description: 'its upstream services' }),
  },
  { additionalProperties: false },
);

export const DependenciesBodySchema = Type.Object(
  { services: Type.Array(DependencyEntry, { maxItems: MAX_SERVICES }) },
  { additionalProperties: false },
);

export const DependenciesSchema = Type.Object({
  source: Literals(['default', 'tenant'] as const),
  updated_at: Nullable(Timestamp),
  services: Type.Array(DependencyEntry),
});

export const PredictionQuerySchema = Type.Object(
  {
    metric: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    subject: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);

export const PredictionListSchema = Type.Object({
  predictions: Type.Array(
    Type.Object({
      ...SeriesFields,
      current_value: Type.Number(),
      trend: Literals(['rising', 'falling', 'flat'] as const),
      rate: Type.Number({ description: 'change per hour' }),
      predicted_value: Type.Number({ description: 'at the forecast horizon' }),
      prediction_time: Timestamp,
      predicted_full: Nullable(Timestamp),
      hours_until_full: Nullable(Type.Number()),
      confidence: Type.Number({ description: 'R² of the trend over the recent points' }),
      points: Type.Integer(),
    }),
  ),
});

export const CorrelationParamsSchema = Type.Object({ correlation_id: Id });

export const CorrelationGroupSchema = Type.Object({
  id: Type.String(),
  root_cause_alert: Type.String(),
  probable_cause: Type.String(),
  confidence: Type.Number(),
  correlated_alerts: Type.Array(
    Type.Object({
      alert_id: Type.String(),
      title: Type.String(),
      correlation_score: Type.Number(),
      relationship: Type.String(),
    }),
  ),
  suggested_action: Type.String(),
  runbook_url: Nullable(Type.String()),
  dependency_chain: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
