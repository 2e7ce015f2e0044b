import type { ChatAttachment, ChatChannelRow, ChatMessageRow, MemberRole } from './tables.ts';

export const toChannel = (
  row: ChatChannelRow,
  myRole: MemberRole | null,
  memberCount?: number,
): ChatChannel => ({
  id: row.id,
  tenant_id: row.tenant_id,
  type: row.type,
  name: row.name,
  topic: row.topic,
  brand_id: row.brand_id,
  location_id: row.location_id,
  department: row.department,
  incident_id: row.incident_id,
  created_by: row.created_by,
  created_at: row.created_at,
  updated_at: row.updated_at,
  last_message_at: row.last_message_at,
  my_role: myRole,
  ...(memberCount === undefined ? {} : { member_count: memberCount }),
});

export interface ChatChannel extends Omit<ChatChannelRow, 'direct_key'> {
  /** The caller's role; null when the caller only sees it because it is public. */
  my_role: MemberRole | null;
  member_count?: number;
}

export const toMessage = (row: ChatMessageRow): ChatMessage => ({
  id: row.id,
  channel_id: row.channel_id,
  thread_id: row.thread_id,
  author_id: row.author_id,
  kind: row.kind,
  content: row.content,
  attachments: JSON.parse(row.attachments) as ChatAttachment[],
  reply_count: row.reply_count,
  last_reply_at: row.last_reply_at,
  created_at: row.created_at,
});

export type ChatMessage = Omit<ChatMessageRow, 'tenant_id' | 'attachments'> & {
  attachments: ChatAttachment[];
};
