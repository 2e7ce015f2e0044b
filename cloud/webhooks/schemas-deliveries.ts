import { Type } from '@sinclair/typebox';
import { PageNumber } from '../../shared/http/numbers.ts';

/** Deliveries, their log and statistics, as both interfaces report them. */
const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' });
const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });
const NullableNumber = Type.Unsafe<number | null>({ type: ['number', 'null'] });
const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });
const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), { maxProperties: 50 });

export const DeliveryQuerySchema = Type.Object(
  {
    status: Type.Optional(
      Type.Union([Type.Literal('success'), Type.Literal('failed'), Type.Literal('pending')]),
    ),
    event: Type.Optional(Type.String({ maxLength: 100 })),
    start_date: Type.Optional(Timestamp),
    end_date: Type.Optional(Timestamp),
    page: PageNumber(),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  },
  { additionalProperties: false },
);

export const DeliveryListItemSchema = Type.Object({
  id: Type.String(),
  webhook_id: Type.String(),
  event: Type.String(),
  event_id: Type.String(),
  status: Type.String(),
  response_code: NullableInteger,
  error: NullableString,
  latency_ms: NullableNumber,
  attempt: Type.Integer(),
  payload_size_bytes: Type.Integer(),
  next_retry: NullableTimestamp,
  delivered_at: NullableTimestamp,
  created_at: Timestamp,
  original_delivery_id: NullableString,
});

export const DeliveryPageSchema = Type.Object({
  deliveries: Type.Array(DeliveryListItemSchema),
  pagination: Type.Object({ total: Type.Integer(), page: Type.Integer(), limit: Type.Integer() }),
});

export const DeliveryDetailSchema = Type.Object({
  id: Type.String(),
  webhook_id: Type.String(),
  event: Type.String(),
  status: Type.String(),
  request: Type.Object({
    url: Type.String(),
    method: Type.String(),
    headers: Type.Record(Type.String(), Type.String()),
    body: Type.String(),
  }),
  response: Type.Union([
    Type.Object({
      status_code: NullableInteger,
      headers: Type.Record(Type.String(), Type.String()),
      body: Type.String(),
    }),
    Type.Null(),
  ]),
  timing: Type.Object({
    sent_at: NullableTimestamp,
    response_at: NullableTimestamp,
    latency_ms: NullableNumber,
  }),
  attempt: Type.Integer(),
  max_attempts: Type.Integer(),
  error: NullableString,
  next_retry: NullableTimestamp,
});

export const RetriedSchema = Type.Object({
  delivery_id: Type.String(),
  original_delivery_id: Type.String(),
  status: Type.String(),
  scheduled_at: Timestamp,
});

export const AdminTestSchema = Type.Object(
  { event: Type.String({ minLength: 1, maxLength: 100 }), data: Type.Optional(Metadata) },
  { additionalProperties: false },
);
export const TestResultSchema = Type.Object({
  delivery_id: Type.String(),
  status: Type.String(),
  response_code: NullableInteger,
  response_body: Type.String(),
  latency_ms: Type.Number(),
  error: NullableString,
});

export const VerifySchema = Type.Object(
  {
    payload: Type.String({ maxLength: 1_000_000 }),
    signature: Type.String({ maxLength: 1000 }),
    timestamp: Type.String({ maxLength: 32 }),
    secret: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);
export const VerifiedSchema = Type.Object({
  valid: Type.Boolean(),
  timestamp_valid: Type.Boolean(),
  signature_match: Type.Boolean(),
});

export const LogQuerySchema = Type.Object(
  {
    level: Type.Optional(Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('error')])),
    start_date: Type.Optional(Timestamp),
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
  },
  { additionalProperties: false },
);
export const LogsSchema = Type.Object({
  logs: Type.Array(
    Type.Object({
      timestamp: Timestamp,
      level: Type.String(),
      message: Type.String(),
      delivery_id: NullableString,
      event: NullableString,
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  ),
});

export const StatsQuerySchema = Type.Object(
  {
    period: Type.Union(
      [Type.Literal('hour'), Type.Literal('day'), Type.Literal('week'), Type.Literal('month')],
      {
        default: 'day',
      },
    ),
  },
  { additionalProperties: false },
);
const Rate = Type.Number({ minimum: 0, maximum: 1 });
export const StatsSchema = Type.Object({
  webhook_id: Type.String(),
  period: Type.String(),
  summary: Type.Object({
    total_deliveries: Type.Integer(),
    successful: Type.Integer(),
    failed: Type.Integer(),
    success_rate: Rate,
    avg_latency_ms: Type.Number(),
    p95_latency_ms: Type.Number(),
    p99_latency_ms: Type.Number(),
  }),
  by_event: Type.Array(Type.Object({ event: Type.String(), count: Type.Integer(), success_rate: Rate })),
  by_hour: Type.Array(Type.Object({ hour: Timestamp, deliveries: Type.Integer(), success_rate: Rate })),
  errors: Type.Object({ timeout: Type.Integer(), connection_refused: Type.Integer(), '5xx': Type.Integer() }),
});
