import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { DEVICE_TYPES } from '../../shared/mqtt/topics.ts';
import { COMMAND_KINDS, COMMAND_STATES, DEVICE_STATES, REVOCATION_REASONS } from './tables.ts';
import { TELEMETRY_PERIODS } from './telemetry.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
// One JSON-schema enum keeps the names' type for handlers and lists the values in the docs.
const Literals = <T extends readonly string[]>(values: T, options: { default?: T[number] } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const JsonObject = Type.Record(Type.String(), Type.Unknown());

export const DeviceTypeSchema = Literals(DEVICE_TYPES);
export const DeviceStateSchema = Literals(DEVICE_STATES);
const RevocationReasonSchema = Literals(REVOCATION_REASONS);

export const DeviceParamsSchema = Type.Object({ device_id: Uuid });
export const SerialParamsSchema = Type.Object({
  serial: Type.String({ pattern: '^[0-9a-fA-F]{1,64}$', description: 'hexadecimal' }),
});

export const NewDeviceSchema = Type.Object(
  {
    location_id: Uuid,
    device_type: DeviceTypeSchema,
    name: Text(120),
    serial_number: Text(128),
    model: Type.Optional(Text(120)),
    firmware_version: Type.Optional(Text(64)),
  },
  { additionalProperties: false },
);
export type NewDeviceBody = Static<typeof NewDeviceSchema>;

export const DeviceListQuerySchema = Type.Object(
  {
    location_id: Type.Optional(Uuid),
    state: Type.Optional(DeviceStateSchema),
    device_type: Type.Optional(DeviceTypeSchema),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);

export const DeviceSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  location_id: Uuid,
  device_type: DeviceTypeSchema,
  name: Type.String(),
  serial_number: Type.String(),
  model: Nullable(Type.String()),
  firmware_version: Nullable(Type.String()),
  state: DeviceStateSchema,
  last_seen_at: Nullable(Timestamp),
  enrolled_at: Nullable(Timestamp),
  certificate_expires_at: Nullable({
    ...Timestamp,
    description: 'when its newest live certificate runs out',
  }),
  enrollment_token_expires_at: Nullable({ ...Timestamp, description: 'set while an unused token is out' }),
  revoked_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const RegisteredDeviceSchema = Type.Composite([
  DeviceSchema,
  Type.Object({
    enrollment_token: Type.String({ description: 'shown this once; single use; valid 7 days' }),
  }),
]);

export const EnrollmentTokenSchema = Type.Object({
  device_id: Uuid,
  state: DeviceStateSchema,
  enrollment_token: Type.String({ description: 'shown this once; the previous token no longer works' }),
  expires_at: Timestamp,
});

export const RevokeBodySchema = Type.Object(
  { reason: Type.Optional(RevocationReasonSchema) },
  { additionalProperties: false },
);

export const CertificateSchema = Type.Object({
  serial: Type.String(),
  device_id: Uuid,
  not_before: Timestamp,
  not_after: Timestamp,
  revoked: Type.Boolean(),
  revoked_at: Nullable(Timestamp),
  revocation_reason: Nullable(RevocationReasonSchema),
  replaced_by: Nullable(Type.String({ description: 'the certificate issued in its place' })),
});

const DURATION = '^[1-9][0-9]{0,3}[hd]$';
const CURSOR = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z_[0-9a-f]{1,64}$';

export const CertificateQuerySchema = Type.Object(
  {
    expiring_within: Type.String({ pattern: DURATION, default: '30d', description: 'e.g. 30d, 7d, 12h' }),
    include_revoked: Type.Boolean({ default: false }),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional(Type.String({ pattern: CURSOR, description: 'next_cursor of the previous page' })),
  },
  { additionalProperties: false },
);

/** `30d` or `12h` in milliseconds (the schema's pattern has already checked the form). */
export const durationMs = (value: string) =>
  Number(value.slice(0, -1)) * (value.endsWith('d') ? 86_400_000 : 3_600_000);

export function parseExpiryCursor(cursor: string | undefined) {
  if (cursor === undefined) return undefined;
  const split = cursor.lastIndexOf('_');
  return { notAfter: cursor.slice(0, split), serial: cursor.slice(split + 1) };
}

export const RevokedQuerySchema = Type.Object(
  { since: Type.Optional({ ...Timestamp, description: 'only revocations at or after this time' }) },
  { additionalProperties: false },
);

export const RevokedListSchema = Type.Object({
  generated_at: Timestamp,
  revoked: Type.Array(
    Type.Object({
      serial: Type.String(),
      revoked_at: Timestamp,
      reason: RevocationReasonSchema,
      not_after: Timestamp,
    }),
  ),
});

export const CaSchema = Type.Object({
  certificate: Type.String({ description: 'PEM' }),
  fingerprint_sha256: Type.String(),
  not_after: Timestamp,
});

export const CommandSchema = Type.Object({
  command_id: Uuid,
  device_id: Uuid,
  kind: Literals(COMMAND_KINDS),
  state: Literals(COMMAND_STATES),
  payload: JsonObject,
  result: Nullable(JsonObject),
  expires_at: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
  acked_at: Nullable(Timestamp),
});

export const UpdateStatusSchema = Type.Composite([
  CommandSchema,
  Type.Object({
    version: Nullable(Type.String({ description: 'the version the update installs' })),
    rollout_id: Nullable({ ...Uuid, description: 'the rollout that sent the update, if one did' }),
  }),
]);

const PERIODS = Object.keys(TELEMETRY_PERIODS) as Array<keyof typeof TELEMETRY_PERIODS>;
export const TelemetryQuerySchema = Type.Object(
  { period: Literals(PERIODS, { default: '1h' }) },
  { additionalProperties: false },
);

export const TelemetrySchema = Type.Object({
  device_id: Uuid,
  period: Type.String(),
  from: Timestamp,
  to: Timestamp,
  samples: Type.Integer({ description: 'samples the aggregates were computed from' }),
  truncated: Type.Boolean({ description: 'more samples than are read at once: the newest were used' }),
  metrics: Type.Record(
    Type.String(),
    Type.Object({
      count: Type.Integer(),
      min: Type.Number(),
      max: Type.Number(),
      avg: Type.Number(),
      last: Type.Number(),
      last_at: Timestamp,
      points: Type.Array(Type.Object({ at: Timestamp, value: Type.Number() }), {
        description: 'at most 60: the mean of each sixtieth of the period that has samples',
      }),
    }),
  ),
});
