/**
 * Channels and their members. Who may see a channel: anyone of the tenant for a public one, its
 * members for the others; a channel the caller may not see answers 404, never 403, so its
 * existence does not leak. Who may change members: a public or incident channel takes new members
 * from any member (and anyone joins a public one by adding themselves); a private or support
 * channel only from its owners; a direct channel never changes.
 */
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db, Store } from '../db/index.ts';
import type { TenancyService } from '../tenancy/index.ts';
import * as errors from './errors.ts';
import type { NewChannelBody, NewMemberBody } from './schemas.ts';
import * as store from './store.ts';
import type { ChatChannelRow, ChatMemberRow, MemberRole } from './tables.ts';
import { toChannel } from './views.ts';

export interface ChannelDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  tenancy: TenancyService;
}

type Page = { limit: number; cursor?: string | undefined };
const pageOf = <T>(rows: T[], limit: number, key: (row: T) => string) => {
  const items = rows.slice(0, limit);
  return { items, nextCursor: rows.length > limit ? key(items.at(-1)!) : null };
};

export const directKey = (a: string, b: string) => [a, b].sort().join(':');

export function createChannels(deps: ChannelDeps) {
  const { db } = deps.store;
  const now = () => deps.clock.now().toISOString();

  async function requireUsers(tenantId: string, userIds: readonly string[], field: string) {
    for (const userId of userIds)
      if (!(await deps.tenancy.activeMember(tenantId, userId)))
        throw errors.invalidField(field, `${userId} is not an active user of this tenant`);
  }

  /** The scope in the hierarchy; a location alone brings its brand. */
  async function scopeOf(tenantId: string, body: Pick<NewChannelBody, 'brand_id' | 'location_id'>) {
    let brandId = body.brand_id ?? null;
    if (brandId && !(await deps.tenancy.getGroup('brands', tenantId, brandId).catch(() => undefined)))
      throw errors.invalidField('body.brand_id', 'is not a brand of this tenant');
    if (!body.location_id) return { brandId, locationId: null };
    const location = await deps.tenancy.findLocation(tenantId, body.location_id);
    if (!location) throw errors.invalidField('body.location_id', 'is not a location of this tenant');
    if (brandId && location.brand_id !== brandId)
      throw errors.invalidField('body.location_id', 'belongs to another brand than body.brand_id');
    brandId = location.brand_id;
    return { brandId, locationId: location.id };
  }

  const memberRows = (tenantId: string, channelId: string, userIds: Iterable<string>, role: MemberRole) =>
    [...userIds].map(
      (userId): ChatMemberRow => ({
        tenant_id: tenantId,
        channel_id: channelId,
        user_id: userId,
        role,
        joined_at: now(),
      }),
    );

  /** The channel when the user may see it, with their role in it; else 404. */
  async function visible(tenantId: string, userId: string, channelId: string) {
    const channel = await store.channel(db, tenantId, channelId);
    if (!channel) throw errors.channelNotFound();
    const membership = await store.member(db, tenantId, channelId, userId);
    if (!membership && channel.type !== 'public') throw errors.channelNotFound();
    return { channel, role: membership?.role ?? null };
  }

  async function detail(tenantId: string, channel: ChatChannelRow, role: MemberRole | null) {
    return toChannel(channel, role, await store.countMembers(db, tenantId, channel.id));
  }

  async function newChannel(row: ChatChannelRow, members: ChatMemberRow[]) {
    await db.transaction().execute(async (trx) => {
      await store.insertChannel(trx as Db, row);
      await store.addMembers(trx as Db, members);
    });
  }

  return {
    visible,

    async create(tenantId: string, userId: string, body: NewChannelBody) {
      const scope = await scopeOf(tenantId, body);
      const invited = (body.member_user_ids ?? []).filter((id) => id !== userId);
      await requireUsers(tenantId, invited, 'body.member_user_ids');
      const at = now();
      const row: ChatChannelRow = {
        id: deps.newId(),
        tenant_id: tenantId,
        type: body.type,
        name: body.name,
        topic: body.topic ?? null,
        brand_id: scope.brandId,
        location_id: scope.locationId,
        department: body.department ?? null,
        incident_id: null,
        direct_key: null,
        created_by: userId,
        created_at: at,
        updated_at: at,
        last_message_at: null,
      };
      await newChannel(row, [
        ...memberRows(tenantId, row.id, [userId], 'owner'),
        ...memberRows(tenantId, row.id, invited, 'member'),
      ]);
      return detail(tenantId, row, 'owner');
    },

    /** The pair's one direct channel, opened on first use. */
    async direct(tenantId: string, userId: string, otherId: string) {
      if (otherId === userId)
        throw errors.invalidField('body.user_id', 'is yourself; a direct channel has two people');
      await requireUsers(tenantId, [otherId], 'body.user_id');
      const key = directKey(userId, otherId);
      const at = now();
      const row: ChatChannelRow = {
        id: deps.newId(),
        tenant_id: tenantId,
        type: 'direct',
        name: 'direct',
        topic: null,
        brand_id: null,
        location_id: null,
        department: null,
        incident_id: null,
        direct_key: key,
        created_by: userId,
        created_at: at,
        updated_at: at,
        last_message_at: null,
      };
      const created = await db.transaction().execute(async (trx) => {
        const inserted = await store.insertChannelOnce(trx as Db, row);
        if (inserted)
          await store.addMembers(trx as Db, memberRows(tenantId, row.id, [userId, otherId], 'member'));
        return inserted;
      });
      const channel = created ? row : (await store.channelByDirectKey(db, tenantId, key))!;
      return { channel: await detail(tenantId, channel, 'member'), created };
    },

    async list(tenantId: string, userId: string, filter: store.ChannelFilter, page: Page) {
      const rows = await store.visibleChannels(db, tenantId, userId, filter, {
        limit: page.limit + 1,
        before: page.cursor,
      });
      const result = pageOf(rows, page.limit, (row) => row.id);
      return { ...result, items: result.items.map((row) => toChannel(row, row.my_role ?? null)) };
    },

    async get(tenantId: string, userId: string, channelId: string) {
      const { channel, role } = await visible(tenantId, userId, channelId);
      return detail(tenantId, channel, role);
    },

    async members(tenantId: string, userId: string, channelId: string, page: Page) {
      await visible(tenantId, userId, channelId);
      const rows = await store.members(db, tenantId, channelId, {
        limit: page.limit + 1,
        after: page.cursor,
      });
      const result = pageOf(rows, page.limit, (row) => row.user_id);
      return {
        ...result,
        items: result.items.map(({ user_id, role, joined_at }) => ({ user_id, role, joined_at })),
      };
    },

    async invite(tenantId: string, userId: string, channelId: string, body: NewMemberBody) {
      const { channel, role } = await visible(tenantId, userId, channelId);
      if (channel.type === 'direct') throw errors.directChannelFixed();
      const joiningPublic = channel.type === 'public' && body.user_id === userId;
      const anyMemberInvites = channel.type === 'public' || channel.type === 'incident';
      if (!joiningPublic && role === null) throw errors.channelNotFound();
      if (!joiningPublic && !anyMemberInvites && role !== 'owner') throw errors.notOwner();
      const newRole = body.role ?? 'member';
      if (newRole === 'owner' && role !== 'owner') throw errors.notOwner();
      await requireUsers(tenantId, [body.user_id], 'body.user_id');
      const existing = await store.member(db, tenantId, channelId, body.user_id);
      if (!existing) await store.addMembers(db, memberRows(tenantId, channelId, [body.user_id], newRole));
      else if (existing.role !== newRole && role === 'owner')
        await store.setRole(db, tenantId, channelId, body.user_id, newRole);
      const after = (await store.member(db, tenantId, channelId, body.user_id))!;
      return {
        member: { user_id: after.user_id, role: after.role, joined_at: after.joined_at },
        created: !existing,
      };
    },

    /** Removing yourself is leaving; removing someone else takes an owner. */
    async remove(tenantId: string, userId: string, channelId: string, targetId: string) {
      const { channel, role } = await visible(tenantId, userId, channelId);
      if (role === null) throw errors.memberNotFound();
      if (channel.type === 'direct') throw errors.directChannelFixed();
      if (targetId !== userId && role !== 'owner') throw errors.notOwner();
      await db.transaction().execute(async (trx) => {
        const removed = await store.removeMember(trx as Db, tenantId, channelId, targetId);
        if (Number(removed.numDeletedRows) === 0) throw errors.memberNotFound();
        // The last owner leaving hands the channel to whoever joined first, so it is never ownerless.
        if (
          channel.type === 'incident' ||
          (await store.countMembers(trx as Db, tenantId, channelId, 'owner')) > 0
        )
          return;
        const heir = await store.eldestMember(trx as Db, tenantId, channelId);
        if (heir) await store.setRole(trx as Db, tenantId, channelId, heir.user_id, 'owner');
      });
    },

    memberRows,
    requireUsers,
  };
}

export type Channels = ReturnType<typeof createChannels>;
