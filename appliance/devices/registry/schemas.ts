import { type Static, Type } from '@sinclair/typebox';
import { DEVICE_TYPES } from '../../../shared/mqtt/topics.ts';
import { DeviceSettingsSchema } from './alerts.ts';

const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export { DeviceSettingsSchema };

export const DeviceSchema = Type.Object({
  id: Type.String(),
  device_type: Type.Union(DEVICE_TYPES.map((type) => Type.Literal(type))),
  location_id: Type.String(),
  status: Type.Union([Type.Literal('online'), Type.Literal('offline')]),
  firmware: Nullable(Type.String()),
  first_seen_at: Timestamp,
  last_seen_at: Timestamp,
  last_telemetry: Nullable(Type.Record(Type.String(), Type.Unknown())),
  last_telemetry_at: Nullable(Timestamp),
  settings: DeviceSettingsSchema,
});

// A device id is a topic level: no separators or wildcards.
export const DeviceParamsSchema = Type.Object({ device_id: Type.String({ pattern: '^[^/+#\\s]{1,128}$' }) });
export const AlertParamsSchema = Type.Object({ alert_id: Type.String({ minLength: 1, maxLength: 64 }) });

export const TelemetryQuerySchema = Type.Object(
  {
    period: Type.Union([Type.Literal('1h'), Type.Literal('24h'), Type.Literal('7d')], {
      default: '1h',
      description: 'How far back from now',
    }),
  },
  { additionalProperties: false },
);
export type TelemetryQuery = Static<typeof TelemetryQuerySchema>;

const MetricSchema = Type.Object({
  count: Type.Integer(),
  min: Type.Number(),
  max: Type.Number(),
  avg: Type.Number(),
  last: Type.Number(),
  last_at: Timestamp,
  points: Type.Array(Type.Object({ at: Timestamp, value: Type.Number() })),
});

export const TelemetrySchema = Type.Object({
  device_id: Type.String(),
  period: Type.String(),
  from: Timestamp,
  to: Timestamp,
  samples: Type.Integer(),
  metrics: Type.Record(Type.String(), MetricSchema),
});

export const AlertSchema = Type.Object({
  id: Type.String(),
  device_id: Type.String(),
  source: Type.Union([Type.Literal('threshold'), Type.Literal('device')]),
  type: Type.String(),
  severity: Type.String(),
  description: Type.String(),
  raised_at: Timestamp,
  cleared_at: Nullable(Timestamp),
  event_id: Nullable(Type.String()),
});

export const AlertsQuerySchema = Type.Object(
  {
    open: Type.Boolean({ default: false, description: 'Only alerts not cleared yet' }),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
  },
  { additionalProperties: false },
);

export const RestartSchema = Type.Object(
  {
    command_id: Type.String(),
    state: Type.Literal('succeeded', { description: 'the device acknowledged the restart' }),
  },
  {
    description:
      'Answered once the device acknowledges the command on its ack topic. A refusal by the device is 502 ' +
      'DEVICE_COMMAND_FAILED, no answer within APPLIANCE_DEVICE_COMMAND_TIMEOUT_SECONDS (30 s by default) 504 ' +
      'DEVICE_COMMAND_TIMEOUT, no broker or the appliance stopping 503; each message names the command id.',
  },
);
