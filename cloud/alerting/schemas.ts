import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { NOTIFICATION_CHANNELS } from '../notify/index.ts';
import { ALERT_STATUSES, ESCALATION_MODES, MAINTENANCE_TYPES, SEVERITIES } from './tables.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Literals = <T extends readonly string[]>(
  values: T,
  options: { default?: T[number]; description?: string } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
const Text = (max: number, options: object = {}) => Type.String({ minLength: 1, maxLength: max, ...options });
const Labels = Type.Record(
  Type.String({ pattern: '^[A-Za-z0-9_.:/-]{1,100}$' }),
  Type.String({ maxLength: 500 }),
  {
    maxProperties: 50,
  },
);
const Page = {
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
};

export const SeveritySchema = Literals(SEVERITIES);

/** Spec 3's alert ingest request. */
export const IngestSchema = Type.Object(
  {
    source: Text(100, {
      description: 'origin: a metrics scraper, cloud monitoring, an error tracker, edge_metrics...',
    }),
    severity: SeveritySchema,
    title: Text(300),
    description: Type.Optional(Type.String({ maxLength: 4000 })),
    service: Text(200),
    environment: Type.Optional(Type.String({ maxLength: 100 })),
    labels: Type.Optional(Labels),
    runbook_url: Type.Optional(Type.String({ format: 'uri', maxLength: 2000 })),
  },
  { additionalProperties: false },
);
export type IngestBody = Static<typeof IngestSchema>;

export const AlertParamsSchema = Type.Object({ alert_id: Uuid });

export const AlertListQuerySchema = Type.Object(
  {
    status: Literals(['active', 'acknowledged', 'resolved', 'all'] as const, {
      default: 'active',
      description: 'active: firing; all: every state',
    }),
    ...Page,
  },
  { additionalProperties: false },
);

export const AcknowledgeSchema = Type.Object(
  { user_id: Text(200), note: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);
export const ResolveSchema = Type.Object(
  { user_id: Type.Optional(Text(200)), note: Type.Optional(Type.String({ maxLength: 2000 })) },
  { additionalProperties: false },
);

export const AlertSchema = Type.Object({
  id: Uuid,
  severity: SeveritySchema,
  title: Type.String(),
  service: Type.String(),
  status: Literals(ALERT_STATUSES),
  started_at: Timestamp,
  acknowledged_by: Nullable(Type.String()),
  escalation_level: Type.Integer({ minimum: 1, description: '1 for the first level' }),
  source: Type.String(),
  description: Nullable(Type.String()),
  environment: Nullable(Type.String()),
  labels: Type.Record(Type.String(), Type.String()),
  runbook_url: Nullable(Type.String()),
  fingerprint: Type.String({ description: 'sha-256 of source, service, title and the sorted labels' }),
  occurrences: Type.Integer({
    minimum: 1,
    description: 'ingests folded into this alert, the first included',
  }),
  last_seen_at: Timestamp,
  acknowledged_at: Nullable(Timestamp),
  note: Nullable(Type.String({ description: 'the acknowledgement note' })),
  resolved_at: Nullable(Timestamp),
  resolved_by: Nullable(Type.String()),
  resolution_note: Nullable(Type.String()),
  suppressed: Type.Boolean({ description: 'held back by a full-suppress maintenance window' }),
  maintenance_window_id: Nullable(Type.String()),
  maintenance_type: Nullable(Literals(MAINTENANCE_TYPES)),
  original_severity: Nullable(SeveritySchema),
  policy_id: Nullable(Type.String()),
});

export const AlertListSchema = Type.Object({
  alerts: Type.Array(AlertSchema),
  next_cursor: Nullable(Type.String({ description: 'pass as cursor for the next page' })),
});

const Person = Type.Object(
  {
    name: Text(200),
    email: Type.String({ format: 'email', maxLength: 320 }),
    phone: Type.Optional(Nullable(Type.String({ pattern: '^\\+?[0-9 ()-]{5,32}$' }))),
    push_token: Type.Optional(Nullable(Type.String({ maxLength: 4096 }))),
    user_id: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  },
  { additionalProperties: false },
);

const TargetSchema = Type.Union([
  Type.Object(
    { type: Type.Literal('oncall'), team: Text(100), role: Literals(['primary', 'secondary'] as const) },
    { additionalProperties: false },
  ),
  Type.Object({ type: Type.Literal('person'), person: Person }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('team_chat') }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('ai_agent') }, { additionalProperties: false }),
]);

const LevelSchema = Type.Object(
  {
    targets: Type.Array(TargetSchema, { minItems: 1, maxItems: 20 }),
    channels: Type.Optional(
      Type.Array(Literals(NOTIFICATION_CHANNELS), {
        uniqueItems: true,
        maxItems: NOTIFICATION_CHANNELS.length,
        description: 'absent: the alert severity’s channels',
      }),
    ),
    timeout_minutes: Nullable(
      Type.Number({
        minimum: 0.05,
        maximum: 10_080,
        description: 'before the next level (fractions allowed, down to 3 s); null: the last stop',
      }),
    ),
  },
  { additionalProperties: false },
);

const PolicyMatch = Type.Object(
  {
    services: Type.Array(Text(200), { maxItems: 50, default: [] }),
    severities: Type.Array(SeveritySchema, { uniqueItems: true, maxItems: 5, default: [] }),
    labels: Type.Optional(Labels),
  },
  { additionalProperties: false },
);

export const PolicyBodySchema = Type.Object(
  {
    name: Text(200),
    is_default: Type.Boolean({
      default: false,
      description: 'the tenant’s fallback when no other policy matches',
    }),
    match: Type.Optional(PolicyMatch),
    mode: Literals(ESCALATION_MODES, { default: 'parallel' }),
    skip_when_acknowledged: Type.Boolean({ default: true }),
    levels: Type.Array(LevelSchema, { minItems: 1, maxItems: 10 }),
  },
  { additionalProperties: false },
);
export type PolicyBody = Static<typeof PolicyBodySchema>;

export const PolicySchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  is_default: Type.Boolean(),
  match: Type.Object({
    services: Type.Array(Type.String()),
    severities: Type.Array(SeveritySchema),
    labels: Type.Record(Type.String(), Type.String()),
  }),
  mode: Literals(ESCALATION_MODES),
  skip_when_acknowledged: Type.Boolean(),
  levels: Type.Array(LevelSchema),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const WindowBodySchema = Type.Object(
  {
    name: Text(200),
    type: Literals(MAINTENANCE_TYPES),
    starts_at: Timestamp,
    ends_at: Timestamp,
    match: Type.Optional(
      Type.Object(
        {
          services: Type.Array(Text(200), { maxItems: 50, default: [] }),
          labels: Type.Optional(Labels),
          location_ids: Type.Array(Text(100), { maxItems: 500, default: [] }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type WindowBody = Static<typeof WindowBodySchema>;

export const WindowSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  type: Literals(MAINTENANCE_TYPES),
  starts_at: Timestamp,
  ends_at: Timestamp,
  match: Type.Object({
    services: Type.Array(Type.String()),
    labels: Type.Record(Type.String(), Type.String()),
    location_ids: Type.Array(Type.String()),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const PolicyParamsSchema = Type.Object({ policy_id: Uuid });
export const WindowParamsSchema = Type.Object({ window_id: Uuid });
export const ListQuerySchema = Type.Object(Page, { additionalProperties: false });
export const WindowListQuerySchema = Type.Object(
  {
    active_at: Type.Optional({ ...Timestamp, description: 'only windows open at this instant' }),
    ...Page,
  },
  { additionalProperties: false },
);
