import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { CHANNEL_TYPES, CREATABLE_CHANNEL_TYPES, MEMBER_ROLES } from './tables.ts';

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Literals = <T extends readonly string[]>(values: T, options: { default?: T[number] } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
const Text = (max: number) => Type.String({ minLength: 1, maxLength: max });
const Department = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9 _&.-]{0,63}$',
  description: 'a department within the brand or location, e.g. "Kitchen"',
});

export const MAX_ATTACHMENTS = 10;
/** Attachments are references to files stored elsewhere; 2 GiB is the largest size accepted. */
export const MAX_ATTACHMENT_BYTES = 2 * 1024 ** 3;

export const ChannelParamsSchema = Type.Object({ channel_id: Uuid });
export const MemberParamsSchema = Type.Object({ channel_id: Uuid, user_id: Uuid });

export const NewChannelSchema = Type.Object(
  {
    type: Literals(CREATABLE_CHANNEL_TYPES),
    name: Text(80),
    topic: Type.Optional(Text(500)),
    brand_id: Type.Optional({ ...Uuid, description: 'a brand of the tenant' }),
    location_id: Type.Optional({ ...Uuid, description: 'a location of the tenant (of brand_id when both)' }),
    department: Type.Optional(Department),
    member_user_ids: Type.Optional(
      Type.Array(Uuid, { maxItems: 500, uniqueItems: true, description: 'invited besides the creator' }),
    ),
  },
  { additionalProperties: false },
);
export type NewChannelBody = Static<typeof NewChannelSchema>;

export const DirectChannelSchema = Type.Object(
  { user_id: { ...Uuid, description: 'the other person' } },
  { additionalProperties: false },
);

export const ChannelListQuerySchema = Type.Object(
  {
    type: Type.Optional(Literals(CHANNEL_TYPES)),
    brand_id: Type.Optional(Uuid),
    location_id: Type.Optional(Uuid),
    department: Type.Optional(Department),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);
export type ChannelListQuery = Static<typeof ChannelListQuerySchema>;

export const ChannelSchema = Type.Object({
  id: Uuid,
  tenant_id: Uuid,
  type: Literals(CHANNEL_TYPES),
  name: Type.String(),
  topic: Nullable(Type.String()),
  brand_id: Nullable(Type.String()),
  location_id: Nullable(Type.String()),
  department: Nullable(Type.String()),
  incident_id: Nullable(Type.String({ description: 'incident channels: the incident' })),
  created_by: Nullable(Type.String({ description: 'user id; null for channels the system opened' })),
  created_at: Timestamp,
  updated_at: Timestamp,
  last_message_at: Nullable(Timestamp),
  my_role: Nullable(Literals(MEMBER_ROLES, {})),
  member_count: Type.Optional(Type.Integer({ minimum: 0, description: 'on the single-channel answers' })),
});

export const NewMemberSchema = Type.Object(
  {
    user_id: { ...Uuid, description: 'a user of the tenant; your own id joins a public channel' },
    role: Type.Optional(Literals(MEMBER_ROLES, { default: 'member' })),
  },
  { additionalProperties: false },
);
export type NewMemberBody = Static<typeof NewMemberSchema>;

export const MemberListQuerySchema = Type.Object(
  {
    limit: Type.Integer({ minimum: 1, maximum: 500, default: 100 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);

export const MemberSchema = Type.Object({
  user_id: Uuid,
  role: Literals(MEMBER_ROLES),
  joined_at: Timestamp,
});

export const AttachmentSchema = Type.Object(
  {
    name: Text(255),
    content_type: Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$',
      description: 'a media type, e.g. image/png',
    }),
    size: Type.Integer({ minimum: 0, maximum: MAX_ATTACHMENT_BYTES, description: 'bytes' }),
    url: Type.String({
      maxLength: 2048,
      pattern: '^https?://[^\\s/?#]+[^\\s]*$',
      description: 'where the file is stored (http or https)',
    }),
  },
  { additionalProperties: false },
);

/** Spec 3's chat message send request. The content's byte limit is checked by the service (413). */
export const NewMessageSchema = Type.Object(
  {
    content: Type.String({ description: 'up to CHAT_MAX_MESSAGE_SIZE bytes of UTF-8 (65,536)' }),
    thread_id: Type.Optional({ ...Uuid, description: 'a top-level message of this channel' }),
    attachments: Type.Optional(Type.Array(AttachmentSchema, { maxItems: MAX_ATTACHMENTS })),
  },
  { additionalProperties: false },
);
export type NewMessageBody = Static<typeof NewMessageSchema>;

export const MessageListQuerySchema = Type.Object(
  {
    thread_id: Type.Optional({ ...Uuid, description: 'the replies of this thread; else top-level messages' }),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    cursor: Type.Optional({ ...Uuid, description: 'next_cursor of the previous page' }),
  },
  { additionalProperties: false },
);
export type MessageListQuery = Static<typeof MessageListQuerySchema>;

export const MessageSchema = Type.Object({
  id: Uuid,
  channel_id: Uuid,
  thread_id: Nullable(Uuid),
  author_id: Nullable(Type.String({ description: 'user id; null for system messages' })),
  kind: Literals(['user', 'system'] as const),
  content: Type.String(),
  attachments: Type.Array(AttachmentSchema),
  reply_count: Type.Integer({ minimum: 0 }),
  last_reply_at: Nullable(Timestamp),
  created_at: Timestamp,
});

export const ChatConfigSchema = Type.Object({
  websocket_url: Type.String(),
  limits: Type.Object({
    max_message_size: Type.Integer({ description: 'UTF-8 bytes of a message’s content' }),
    max_attachments: Type.Integer(),
    message_retention_days: Type.Integer(),
    incident_auto_resolve_hours: Type.Integer(),
    auth_timeout_ms: Type.Integer(),
    presence_grace_ms: Type.Integer(),
    heartbeat_ms: Type.Integer(),
  }),
  feature_flags: Type.Object({
    'chat.enabled': Type.Boolean(),
    'chat.voice_transcription': Type.Boolean(),
    'chat.ai_translation': Type.Boolean(),
    'chat.external_bridges': Type.Boolean(),
  }),
});
