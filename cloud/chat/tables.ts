/**
 * Chat's tables. A channel sits in the workspace hierarchy tenant / brand / location / department:
 * `brand_id` and `location_id` are the tenancy's ids, `department` a name within them; all null is
 * tenant-wide.
 */
export const CHANNEL_TYPES = ['public', 'private', 'incident', 'support', 'direct'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

/** The types a person creates through POST /channels; incident and direct channels have their own ways. */
export const CREATABLE_CHANNEL_TYPES = ['public', 'private', 'support'] as const;

export const MEMBER_ROLES = ['owner', 'member'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

export interface ChatChannelRow {
  id: string;
  tenant_id: string;
  type: ChannelType;
  name: string;
  topic: string | null;
  brand_id: string | null;
  location_id: string | null;
  department: string | null;
  /** Incident channels: the incident; unique per tenant, so creating it again returns the same one. */
  incident_id: string | null;
  /** Direct channels: the two user ids, sorted, joined by ':'; unique per tenant. */
  direct_key: string | null;
  /** Null for the channels the system opens (incidents). */
  created_by: string | null;
  created_at: string;
  updated_at: string;
  last_message_at: string | null;
}

export interface ChatMemberRow {
  tenant_id: string;
  channel_id: string;
  user_id: string;
  role: MemberRole;
  joined_at: string;
}

export interface ChatAttachment {
  name: string;
  content_type: string;
  size: number;
  url: string;
}

export interface ChatMessageRow {
  id: string;
  tenant_id: string;
  channel_id: string;
  /** The top-level message this one answers; null for a top-level message. */
  thread_id: string | null;
  /** Null for a system message. */
  author_id: string | null;
  kind: 'user' | 'system';
  content: string;
  /** JSON array of ChatAttachment. */
  attachments: string;
  reply_count: number;
  last_reply_at: string | null;
  created_at: string;
}

export interface ChatTables {
  chat_channels: ChatChannelRow;
  chat_members: ChatMemberRow;
  chat_messages: ChatMessageRow;
}
