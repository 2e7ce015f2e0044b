import { type Static, Type } from '@sinclair/typebox';
import { PageNumber } from '../../shared/http/numbers.ts';

export * from './schemas-deliveries.ts';

/** What the two webhook interfaces accept and answer. */
const Timestamp = Type.String({ format: 'date-time' });
const NullableTimestamp = Type.Unsafe<string | null>({ type: ['string', 'null'], format: 'date-time' });
const NullableInteger = Type.Unsafe<number | null>({ type: ['integer', 'null'] });
const NullableNumber = Type.Unsafe<number | null>({ type: ['number', 'null'] });
const NullableString = Type.Unsafe<string | null>({ type: ['string', 'null'] });

export const WebhookIdParamsSchema = Type.Object({
  webhook_id: Type.String({ minLength: 1, maxLength: 64 }),
});
export const DeliveryIdParamsSchema = Type.Object({
  delivery_id: Type.String({ minLength: 1, maxLength: 64 }),
});

// No length bounds here: an empty or overlong URL is the documented `invalid_url`, which the URL check
// answers (at most 2048 characters), not a schema INVALID_REQUEST.
const Url = Type.String({ description: 'http(s) URL of the receiver, at most 2048 characters' });
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 100,
  description: 'event names of this interface’s catalog, or `category.*`, or `*`',
});
const Secret = Type.String({
  minLength: 16,
  maxLength: 256,
  description: 'HMAC-SHA256 key; generated (`whsec_…`) when omitted',
});
const Metadata = Type.Record(Type.String({ maxLength: 100 }), Type.Unknown(), { maxProperties: 50 });
const Headers = Type.Record(
  Type.String({ pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$" }),
  Type.String({ maxLength: 1024 }),
  {
    maxProperties: 20,
    description:
      'extra request headers; Content-Type, User-Agent, Host, Content-Length and X-Service-* are ours and refused',
  },
);

export const SettingsInputSchema = Type.Object(
  {
    timeout_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 60 })),
    retry_policy: Type.Optional(
      Type.Object(
        {
          max_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
          backoff: Type.Optional(
            Type.Union([Type.Literal('exponential'), Type.Literal('linear'), Type.Literal('fixed')], {
              description: 'first retry after 60 s; exponential doubles it, linear adds 60 s, fixed keeps it',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    batch_events: Type.Optional(Type.Boolean()),
    max_per_second: Type.Optional(
      Type.Unsafe<number | null>({
        type: ['number', 'null'],
        minimum: 0.1,
        maximum: 10_000,
        description: 'requests per second at most (null: unlimited)',
      }),
    ),
    max_in_flight: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 20,
        description: 'deliveries on the wire at once; 1 (the default) keeps event order',
      }),
    ),
  },
  { additionalProperties: false },
);

const SettingsSchema = Type.Object({
  timeout_seconds: Type.Integer(),
  retry_policy: Type.Object({ max_attempts: Type.Integer(), backoff: Type.String() }),
  batch_events: Type.Boolean(),
  max_per_second: NullableNumber,
  max_in_flight: Type.Integer(),
});

const StatusFields = {
  status: Type.String({
    description: '`active`, or `disabled` after failing for days (see disabled_reason)',
  }),
  disabled_reason: NullableString,
  disabled_at: NullableTimestamp,
};

const AdminBase = {
  id: Type.String(),
  url: Type.String(),
  description: Type.String(),
  ...StatusFields,
  events: Type.Array(Type.String()),
  headers: Type.Record(Type.String(), Type.String()),
  metadata: Type.Record(Type.String(), Type.Unknown()),
  settings: SettingsSchema,
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const AdminListItemSchema = Type.Object({
  ...AdminBase,
  secret_last4: Type.String(),
  stats: Type.Object({
    deliveries_24h: Type.Integer(),
    success_rate: Type.Number(),
    avg_latency_ms: Type.Number(),
  }),
});

export const AdminDetailSchema = Type.Object({
  ...AdminBase,
  secret_last4: Type.String(),
  stats: Type.Object({
    total_deliveries: Type.Integer(),
    successful_deliveries: Type.Integer(),
    failed_deliveries: Type.Integer(),
    success_rate: Type.Number(),
    avg_latency_ms: Type.Number(),
    last_delivery: NullableTimestamp,
    last_success: NullableTimestamp,
    last_failure: NullableTimestamp,
  }),
});

export const AdminCreatedSchema = Type.Object({
  ...AdminBase,
  secret: Type.String(),
  signing_key: Type.String(),
});

export const AdminCreateSchema = Type.Object(
  {
    url: Url,
    description: Type.Optional(Type.String({ maxLength: 500 })),
    events: Type.Optional(Events),
    secret: Type.Optional(Secret),
    metadata: Type.Optional(Metadata),
    headers: Type.Optional(Headers),
    settings: Type.Optional(SettingsInputSchema),
  },
  { additionalProperties: false },
);
export type AdminCreate = Static<typeof AdminCreateSchema>;

export const AdminUpdateSchema = Type.Object(
  {
    url: Type.Optional(Url),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    events: Type.Optional(Events),
    metadata: Type.Optional(Metadata),
    headers: Type.Optional(Headers),
    settings: Type.Optional(SettingsInputSchema),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const SubscriptionSchema = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  ...StatusFields,
  created_at: Timestamp,
});

// This interface's creation carries the secret the receiver already holds: there is nothing to generate.
const ReceiverSecret = Type.String({
  minLength: 16,
  maxLength: 256,
  description: 'HMAC-SHA256 key the receiver checks signatures with; required on this interface',
});

export const SubscriptionCreateSchema = Type.Object(
  { url: Url, events: Events, secret: ReceiverSecret },
  { additionalProperties: false },
);
export const SubscriptionUpdateSchema = Type.Object(
  { url: Type.Optional(Url), events: Type.Optional(Events) },
  { additionalProperties: false, minProperties: 1 },
);

export const EnableSchema = Type.Object(
  {
    replay: Type.Optional(
      Type.Boolean({ default: false, description: 'also send what it missed while disabled' }),
    ),
  },
  { additionalProperties: false },
);
export const EnabledSchema = Type.Object({
  id: Type.String(),
  status: Type.String(),
  missed_events: Type.Integer(),
  replayed: Type.Integer(),
});

export const RotatedSchema = Type.Object({
  id: Type.String(),
  new_secret: Type.String(),
  old_secret_valid_until: Timestamp,
  rotated_at: Timestamp,
});

export const CatalogSchema = Type.Object({
  events: Type.Array(
    Type.Object({
      category: Type.String(),
      events: Type.Array(
        Type.Object({
          name: Type.String(),
          description: Type.String(),
          payload_example: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        }),
      ),
    }),
  ),
});

export const SubscriptionTestSchema = Type.Object(
  { event_type: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);

export const AdminListSchema = Type.Object({
  webhooks: Type.Array(AdminListItemSchema),
  total: Type.Integer(),
});

export const PageQuerySchema = Type.Object(
  {
    page: PageNumber(),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
  },
  { additionalProperties: false },
);
/**
 * The subscription interface pages as the general list envelope does: the `next_cursor` of a page
 * comes back as `cursor` (here an opaque page number).
 */
export const CursorQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
    cursor: Type.Optional(
      Type.String({ pattern: '^[1-9][0-9]{0,8}$', description: 'next_cursor of the previous page' }),
    ),
  },
  { additionalProperties: false },
);

export const SubscriptionDeliverySchema = Type.Object({
  id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  status: Type.String(),
  response_code: NullableInteger,
  response_time_ms: NullableNumber,
  delivered_at: NullableTimestamp,
  next_retry_at: NullableTimestamp,
});
