import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { INCIDENT_SEVERITIES, INCIDENT_SOURCES, INCIDENT_STATUSES } from './tables.ts';

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
