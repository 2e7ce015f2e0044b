/** Chat's tables. Every query of a request's path takes the tenant first. */
import type { Db } from '../db/index.ts';
import type { ChannelType, ChatChannelRow, ChatMemberRow, ChatMessageRow, MemberRole } from './tables.ts';

export interface ChannelFilter {
  type?: ChannelType | undefined;
  brandId?: string | undefined;
  locationId?: string | undefined;
  department?: string | undefined;
}

export const channel = (db: Db, tenantId: string, id: string) =>
  db
    .selectFrom('chat_channels')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();

export const channelByIncident = (db: Db, tenantId: string, incidentId: string) =>
  db
    .selectFrom('chat_channels')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('incident_id', '=', incidentId)
    .executeTakeFirst();

export const channelByDirectKey = (db: Db, tenantId: string, key: string) =>
  db
    .selectFrom('chat_channels')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('direct_key', '=', key)
    .executeTakeFirst();

export const insertChannel = (db: Db, row: ChatChannelRow) =>
  db.insertInto('chat_channels').values(row).execute();

/** Inserts unless the incident or direct pair already has its channel; true when inserted. */
export async function insertChannelOnce(db: Db, row: ChatChannelRow) {
  const target = row.incident_id !== null ? 'incident_id' : 'direct_key';
  const inserted = await db
    .insertInto('chat_channels')
    .values(row)
    .onConflict((c) => c.columns(['tenant_id', target]).where(target, 'is not', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Public channels of the tenant and every channel the user belongs to, newest first. */
export const visibleChannels = (
  db: Db,
  tenantId: string,
  userId: string,
  filter: ChannelFilter,
  page: { limit: number; before?: string | undefined },
) =>
  db
    .selectFrom('chat_channels as c')
    .leftJoin('chat_members as m', (join) =>
      join.onRef('m.channel_id', '=', 'c.id').on('m.user_id', '=', userId),
    )
    .selectAll('c')
    .select('m.role as my_role')
    .where('c.tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('c.type', '=', 'public'), eb('m.user_id', 'is not', null)]))
    .$if(filter.type !== undefined, (q) => q.where('c.type', '=', filter.type!))
    .$if(filter.brandId !== undefined, (q) => q.where('c.brand_id', '=', filter.brandId!))
    .$if(filter.locationId !== undefined, (q) => q.where('c.location_id', '=', filter.locationId!))
    .$if(filter.department !== undefined, (q) => q.where('c.department', '=', filter.department!))
    .$if(page.before !== undefined, (q) => q.where('c.id', '<', page.before!))
    .orderBy('c.id', 'desc')
    .limit(page.limit)
    .execute();

export const member = (db: Db, tenantId: string, channelId: string, userId: string) =>
  db
    .selectFrom('chat_members')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('channel_id', '=', channelId)
    .where('user_id', '=', userId)
    .executeTakeFirst();

// Five parameters a row: well under SQLite's 32,766 and PostgreSQL's 65,535 per statement.
const MEMBER_ROWS_PER_INSERT = 1000;

/** Adds the members not in yet; the ones already in keep their role. */
export async function addMembers(db: Db, rows: ChatMemberRow[]) {
  for (let first = 0; first < rows.length; first += MEMBER_ROWS_PER_INSERT)
    await db
      .insertInto('chat_members')
      .values(rows.slice(first, first + MEMBER_ROWS_PER_INSERT))
      .onConflict((c) => c.columns(['channel_id', 'user_id']).doNothing())
      .execute();
}

export const removeMember = (db: Db, tenantId: string, channelId: string, userId: string) =>
  db
    .deleteFrom('chat_members')
    .where('tenant_id', '=', tenantId)
    .where('channel_id', '=', channelId)
    .where('user_id', '=', userId)
    .executeTakeFirst();

export const setRole = (db: Db, tenantId: string, channelId: string, userId: string, role: MemberRole) =>
  db
    .updateTable('chat_members')
    .set({ role })
    .where('tenant_id', '=', tenantId)
    .where('channel_id', '=', channelId)
    .where('user_id', '=', userId)
    .execute();

/** Oldest first, by user id after the join time, so pages are stable. */
export const members = (
  db: Db,
  tenantId: string,
  channelId: string,
  page: { limit: number; after?: string | undefined },
) =>
  db
    .selectFrom('chat_members')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('channel_id', '=', channelId)
    .$if(page.after !== undefined, (q) => q.where('user_id', '>', page.after!))
    .orderBy('user_id')
    .limit(page.limit)
    .execute();

export const memberIds = async (db: Db, tenantId: string, channelId: string) =>
  (
    await db
      .selectFrom('chat_members')
      .select('user_id')
      .where('tenant_id', '=', tenantId)
      .where('channel_id', '=', channelId)
      .execute()
  ).map((row) => row.user_id);

export const countMembers = async (db: Db, tenantId: string, channelId: string, role?: MemberRole) =>
  Number(
    (
      await db
        .selectFrom('chat_members')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('tenant_id', '=', tenantId)
        .where('channel_id', '=', channelId)
        .$if(role !== undefined, (q) => q.where('role', '=', role!))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** The member who joined first (after `except`), to hand ownership to when the last owner leaves. */
export const eldestMember = (db: Db, tenantId: string, channelId: string) =>
  db
    .selectFrom('chat_members')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('channel_id', '=', channelId)
    .orderBy('joined_at')
    .orderBy('user_id')
    .limit(1)
    .executeTakeFirst();

export const insertMessage = (db: Db, row: ChatMessageRow) =>
  db.insertInto('chat_messages').values(row).execute();

export const message = (db: Db, tenantId: string, channelId: string, id: string) =>
  db
    .selectFrom('chat_messages')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('channel_id', '=', channelId)
    .where('id', '=', id)
    .executeTakeFirst();

export const noteReply = (db: Db, tenantId: string, threadId: string, at: string) =>
  db
    .updateTable('chat_messages')
    .set((eb) => ({ reply_count: eb('reply_count', '+', 1), last_reply_at: at }))
    .where('tenant_id', '=', tenantId)
    .where('id', '=', threadId)
    .execute();

export const touchChannel = (db: Db, tenantId: string, channelId: string, at: string) =>
  db
    .updateTable('chat_channels')
    .set({ last_message_at: at, updated_at: at })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', channelId)
    .execute();

/** Newest first: top-level messages, or the replies of one thread. */
export const messages = (
  db: Db,
  tenantId: string,
  channelId: string,
  page: { limit: number; before?: string | undefined; threadId?: string | undefined },
) =>
  db
    .selectFrom('chat_messages')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('channel_id', '=', channelId)
    .where('thread_id', page.threadId === undefined ? 'is' : '=', page.threadId ?? null)
    .$if(page.before !== undefined, (q) => q.where('id', '<', page.before!))
    .orderBy('id', 'desc')
    .limit(page.limit)
    .execute();

/**
 * One batch of the retention sweep, across tenants (it is the operator's rule, not a tenant's
 * request): replies older than the cutoff, and top-level messages older than it whose thread has
 * had no reply since, so a live thread never loses its head.
 */
export async function deleteExpired(db: Db, cutoff: string, batch: number) {
  const ids = db
    .selectFrom('chat_messages')
    .select('id')
    .where('created_at', '<', cutoff)
    .where((eb) => eb.or([eb('last_reply_at', 'is', null), eb('last_reply_at', '<', cutoff)]))
    .limit(batch);
  const result = await db.deleteFrom('chat_messages').where('id', 'in', ids).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The user ids sharing a direct channel with the user (presence contacts). */
export const directPartners = async (db: Db, tenantId: string, userId: string) =>
  (
    await db
      .selectFrom('chat_members as mine')
      .innerJoin('chat_channels as c', 'c.id', 'mine.channel_id')
      .innerJoin('chat_members as other', 'other.channel_id', 'mine.channel_id')
      .select('other.user_id')
      .where('mine.tenant_id', '=', tenantId)
      .where('mine.user_id', '=', userId)
      .where('c.type', '=', 'direct')
      .where('other.user_id', '!=', userId)
      .execute()
  ).map((row) => row.user_id);
