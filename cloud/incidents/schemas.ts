import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { INCIDENT_SEVERITIES, INCIDENT_SOURCES, INCIDENT_STATUSES, TIMELINE_KINDS } from './tables.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
// One JSON-schema enum keeps the names' type for handlers and lists the values in the docs.
const Literals = <T extends readonly string[]>(values: T, options: { default?: T[number] } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });

export const IncidentStatusSchema = Literals(INCIDENT_STATUSES);
export const IncidentSeveritySchema = Literals(INCIDENT_SEVERITIES);
const IncidentType = Type.String({
  pattern: '^[a-z][a-z0-9_]{0,63}$',
  description: 'what the device reports, e.g. temperature_alert',
});

export const IncidentParamsSchema = Type.Object({ incident_id: Uuid });

/** Spec 3's "incident create request (device form)". */
export const NewDeviceIncidentSchema = Type.Object(
  {
    type: IncidentType,
    device_id: { ...Uuid, description: 'a device of the cloud registry, at location_id' },
    location_id: Uuid,
    severity: Type.Optional(Literals(INCIDENT_SEVERITIES, { default: 'high' })),
    description: Text(2000),
  },
  { additionalProperties: false },
);
export type NewDeviceIncidentBody = Static<typeof NewDeviceIncidentSchema>;

export const IncidentListQuerySchema = Type.Object(
  {
    status: Type.Optional(IncidentStatusSchema),
    type: Type.Optional(IncidentType),
    location_id: Type.Optional(Uuid),
    device_id: Type.Optional(Text(128)),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);
export type IncidentListQuery = Static<typeof IncidentListQuerySchema>;

export const IncidentSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  type: Nullable(Type.String({ description: 'the device form’s type; null for the title form' })),
  title: Type.String(),
  severity: IncidentSeveritySchema,
  status: IncidentStatusSchema,
  service: Nullable(Type.String()),
  description: Nullable(Type.String()),
  runbook_url: Nullable(Type.String()),
  device_id: Nullable(Type.String()),
  location_id: Nullable(Type.String()),
  source: Literals(INCIDENT_SOURCES),
  source_event_id: Nullable(Type.String({ description: 'the domain event that opened it' })),
  occurrences: Type.Integer({
    minimum: 1,
    description: 'alerts folded into this incident while it was unresolved, the first included',
  }),
  last_occurred_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  acknowledged_at: Nullable(Timestamp),
  acknowledged_by: Nullable(Type.String({ description: 'user id' })),
  resolved_at: Nullable(Timestamp),
  resolved_by: Nullable(Type.String({ description: 'user id' })),
});

const Url = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2000 });
const Service = Type.String({ minLength: 1, maxLength: 120 });

/** Spec 3's incident create request (the title form). */
export const NewIncidentSchema = Type.Object(
  {
    title: Text(200),
    severity: IncidentSeveritySchema,
    service: Type.Optional(Service),
    description: Type.Optional(Text(2000)),
    runbook_url: Type.Optional({ ...Url, description: 'else the best runbook of the catalog is attached' }),
  },
  { additionalProperties: false },
);
export type NewIncidentBody = Static<typeof NewIncidentSchema>;

export const IncidentApiListQuerySchema = Type.Object(
  {
    status: Type.Optional(IncidentStatusSchema),
    severity: Type.Optional(IncidentSeveritySchema),
    service: Type.Optional(Service),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);

export const ResponderSchema = Type.Object({
  name: Type.String(),
  email: Type.String(),
  user_id: Nullable(Type.String({ description: 'the tenant user invited to the channel' })),
  invited: Type.Boolean({ description: 'false: not a user of the tenant, notified only' }),
});

/** The whole incident record of /api/v1/incidents (the request is all the API documents of it). */
export const IncidentRecordSchema = Type.Composite([
  IncidentSchema,
  Type.Object({
    alert_id: Nullable(Type.String({ description: 'the alert that opened it' })),
    channel_id: Nullable(Type.String({ description: 'its dedicated chat channel' })),
    runbook_id: Nullable(Type.String({ description: 'the catalog runbook attached, if any' })),
    responders: Type.Array(ResponderSchema),
    started_at: Timestamp,
    last_activity_at: { ...Timestamp, description: 'the latest occurrence or timeline entry' },
  }),
]);

export const TimelineEntrySchema = Type.Object({
  id: Uuid,
  incident_id: Uuid,
  at: Timestamp,
  kind: Literals(TIMELINE_KINDS),
  actor: Nullable(Type.String({ description: 'user id; null for the system' })),
  text: Type.String(),
  data: Nullable(Type.Record(Type.String(), Type.Unknown())),
});

export const TimelineQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);

export const NoteSchema = Type.Object({ text: Text(4000) }, { additionalProperties: false });

export const TransitionBodySchema = Type.Object(
  { note: Type.Optional(Text(2000)) },
  { additionalProperties: false },
);

const LabelValue = Type.String({ minLength: 1, maxLength: 200 });
const RunbookMatchSchema = Type.Object(
  {
    service: Type.Optional(Nullable(Service)),
    type: Type.Optional(
      Nullable({ ...IncidentType, description: 'the incident type, e.g. temperature_alert' }),
    ),
    labels: Type.Optional(
      Type.Record(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_.-]{0,63}$' }), LabelValue, {
        maxProperties: 20,
        description: 'every label must be on the alert with this value',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RunbookBodySchema = Type.Object(
  { name: Text(200), url: Url, match: Type.Optional(RunbookMatchSchema) },
  { additionalProperties: false },
);
export type RunbookBody = Static<typeof RunbookBodySchema>;

export const RunbookSchema = Type.Object({
  id: Uuid,
  name: Type.String(),
  url: Type.String(),
  match: Type.Object({
    service: Nullable(Type.String()),
    type: Nullable(Type.String()),
    labels: Type.Record(Type.String(), Type.String()),
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const RunbookParamsSchema = Type.Object({ runbook_id: Uuid });

export const PageQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);
