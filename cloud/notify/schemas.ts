import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { ATTEMPT_OUTCOMES, NOTIFICATION_STATUSES } from './tables.ts';
import { NOTIFICATION_CHANNELS } from './types.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Literals = <T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

export const ChannelSchema = Literals(NOTIFICATION_CHANNELS);
const Severity = Literals(['P1', 'P2', 'P3', 'P4', 'P5'] as const);

export const NotificationParamsSchema = Type.Object({ notification_id: Uuid });

export const NotificationListQuerySchema = Type.Object(
  {
    alert_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    status: Type.Optional(Literals(NOTIFICATION_STATUSES)),
    channel: Type.Optional(ChannelSchema),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);
export type NotificationListQuery = Static<typeof NotificationListQuerySchema>;

const PersonSchema = Type.Object({
  name: Type.String(),
  email: Type.String(),
  phone: Type.Optional(Nullable(Type.String())),
  push_token: Type.Optional(Nullable(Type.String())),
  user_id: Type.Optional(Nullable(Type.String())),
});

export const AttemptSchema = Type.Object({
  attempt: Type.Integer({ minimum: 1 }),
  channel: ChannelSchema,
  outcome: Literals(ATTEMPT_OUTCOMES, {
    description:
      'in_flight: on the wire now; delivered; retry: a passing failure, tried again; failed: final; skipped: nothing sent (channel or address missing, channel disabled); interrupted: the worker stopped mid-attempt',
  }),
  provider_status: Nullable(Type.Integer({ description: 'HTTP status or SMTP reply code' })),
  provider_answer: Nullable(Type.String({ description: 'the head of the provider’s answer' })),
  error: Nullable(Type.String()),
  started_at: Timestamp,
  finished_at: Nullable(Timestamp),
  duration_ms: Nullable(Type.Integer({ minimum: 0 })),
});

export const NotificationSchema = Type.Object({
  id: Uuid,
  alert_id: Nullable(Type.String()),
  channel: ChannelSchema,
  recipient: Nullable(PersonSchema),
  subject: Type.String(),
  text: Type.String(),
  severity: Severity,
  dedupe_key: Type.String(),
  status: Literals(NOTIFICATION_STATUSES),
  attempt_count: Type.Integer({ minimum: 0, description: 'attempts started so far' }),
  max_attempts: Type.Integer({ minimum: 1 }),
  next_attempt_at: Nullable({ ...Timestamp, description: 'while pending: when it is (re)tried' }),
  last_error: Nullable(Type.String()),
  provider_ref: Nullable(Type.String({ description: 'the provider’s id for the delivered message' })),
  created_at: Timestamp,
  updated_at: Timestamp,
  delivered_at: Nullable(Timestamp),
  attempts: Type.Array(AttemptSchema, { description: 'every attempt, oldest first' }),
});

const EmailFrom = Type.String({
  minLength: 3,
  maxLength: 320,
  pattern: '^([^<>]*<[^\\s@<>]+@[^\\s@<>]+>|[^\\s@<>]+@[^\\s@<>]+)$',
  description: 'an address, or "Name <address>"',
});

export const NotificationSettingsSchema = Type.Object({
  team_chat_webhook_url: Nullable(Type.String({ description: 'incoming-webhook URL (Slack-compatible)' })),
  email_from: Nullable(Type.String({ description: 'sender of this tenant’s e-mail; null: the default' })),
  enabled_channels: Type.Array(ChannelSchema, { description: 'channels this tenant is notified on' }),
  updated_at: Nullable(Timestamp),
});

export const NotificationSettingsBodySchema = Type.Object(
  {
    team_chat_webhook_url: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 2048 }))),
    email_from: Type.Optional(Nullable(EmailFrom)),
    enabled_channels: Type.Optional(Type.Array(ChannelSchema, { uniqueItems: true, maxItems: 6 })),
  },
  { additionalProperties: false },
);
export type NotificationSettingsBody = Static<typeof NotificationSettingsBodySchema>;
