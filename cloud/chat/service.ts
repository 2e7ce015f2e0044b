/**
 * The chat service: channels (channels.ts), messages and threads, the incident flow's contract,
 * the retention sweeper and the WebSocket (socket.ts, hub.ts). A message is stored first and then
 * sent as a `message` frame to every open connection of every member of its channel.
 */
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import type { SessionService, TokenService } from '../identity/index.ts';
import type { Relay } from '../relay.ts';
import type { TenancyService } from '../tenancy/index.ts';
import { createChannels } from './channels.ts';
import type { ChatConfig } from './config.ts';
import * as errors from './errors.ts';
import { createHub } from './hub.ts';
import { MAX_ATTACHMENTS, type NewMessageBody } from './schemas.ts';
import { CHAT_WS_PATH, createChatSocket } from './socket.ts';
import * as store from './store.ts';
import type { ChatChannelRow, ChatMessageRow } from './tables.ts';
import { type ChatMessage, toChannel, toMessage } from './views.ts';

export interface ChatDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: ChatConfig;
  tokens: TokenService;
  sessions: SessionService;
  tenancy: TenancyService;
  /** Carries frames to the sockets other cloud replicas hold (cloud/relay.ts). */
  relay?: Relay;
}

export interface IncidentChannelRequest {
  incident_id: string;
  name: string;
  topic: string;
  member_user_ids: string[];
}

const SWEEP_BATCH = 1000;
/** A frame for the members of a channel (or, without one, the whole tenant), held by any replica. */
const RELAY_TOPIC = 'chat.frame';
const DAY_MS = 86_400_000;

export function createChatService(deps: ChatDeps) {
  const { db } = deps.store;
  const { options, log } = deps;
  const now = () => deps.clock.now().toISOString();
  const hub = createHub({ clock: deps.clock, presenceGraceMs: options.presenceGraceMs, log });
  const channels = createChannels(deps);
  const socket = createChatSocket({
    hub,
    tokens: deps.tokens,
    sessions: deps.sessions,
    clock: deps.clock,
    log,
    options,
    // Direct-message partners are everyone's first presence contacts.
    onAuthenticated: async (connection) =>
      hub.watch(connection, await store.directPartners(db, connection.tenantId, connection.userId)),
  });
  let sweeper: NodeJS.Timeout | undefined;

  const requireEnabled = () => {
    if (!options.flags.enabled) throw errors.chatDisabled();
  };

  /** This replica's connections of the channel's members (or of the tenant); their count. */
  async function sendHere(tenantId: string, channelId: string | null, data: string) {
    if (channelId === null) return hub.sendToTenant(tenantId, data);
    return hub.sendToUsers(tenantId, await store.memberIds(db, tenantId, channelId), data);
  }

  /** To every replica's connections: here at once, the others through the relay. */
  async function sendEverywhere(tenantId: string, channelId: string | null, data: string) {
    deps.relay?.publish(RELAY_TOPIC, { tenantId, channelId, data });
    return sendHere(tenantId, channelId, data);
  }

  deps.relay?.on(RELAY_TOPIC, async (payload) => {
    const { tenantId, channelId, data } = payload as {
      tenantId: string;
      channelId: string | null;
      data: string;
    };
    await sendHere(tenantId, channelId, data);
  });

  /** Sends the frame to every open connection of the channel's members; the count here. */
  const deliver = (tenantId: string, channelId: string, message: ChatMessage) =>
    sendEverywhere(tenantId, channelId, JSON.stringify({ type: 'message', channel_id: channelId, message }));

  async function insert(channel: ChatChannelRow, row: ChatMessageRow, joinAuthor: boolean) {
    await db.transaction().execute(async (trx) => {
      await store.insertMessage(trx, row);
      if (row.thread_id) await store.noteReply(trx, channel.tenant_id, row.thread_id, row.created_at);
      await store.touchChannel(trx, channel.tenant_id, channel.id, row.created_at);
      if (joinAuthor && row.author_id)
        await store.addMembers(
          trx,
          channels.memberRows(channel.tenant_id, channel.id, [row.author_id], 'member'),
        );
    });
    const message = toMessage(row);
    await deliver(channel.tenant_id, channel.id, message).catch((error: unknown) =>
      log.error({ err: error, channel_id: channel.id }, 'chat: delivering a message failed'),
    );
    return message;
  }

  function checkContent(body: NewMessageBody) {
    const size = Buffer.byteLength(body.content, 'utf8');
    if (size > options.maxMessageBytes) throw errors.messageTooLarge(size, options.maxMessageBytes);
    if (body.content.trim() === '' && (body.attachments ?? []).length === 0)
      throw errors.invalidField('body.content', 'must not be empty unless the message has attachments');
  }

  async function checkThread(tenantId: string, channelId: string, threadId: string | undefined) {
    if (threadId === undefined) return;
    const head = await store.message(db, tenantId, channelId, threadId);
    if (!head || head.thread_id !== null)
      throw errors.invalidField('body.thread_id', 'is not a top-level message of this channel');
  }

  const newRow = (
    channel: ChatChannelRow,
    fields: Pick<ChatMessageRow, 'thread_id' | 'author_id' | 'kind' | 'content' | 'attachments'>,
  ): ChatMessageRow => ({
    id: deps.newId(),
    tenant_id: channel.tenant_id,
    channel_id: channel.id,
    reply_count: 0,
    last_reply_at: null,
    created_at: now(),
    ...fields,
  });

  /** Deletes messages older than the retention period; the number deleted. */
  async function sweep() {
    const cutoff = new Date(deps.clock.now().getTime() - options.retentionDays * DAY_MS).toISOString();
    let total = 0;
    for (;;) {
      const deleted = await store.deleteExpired(db, cutoff, SWEEP_BATCH);
      total += deleted;
      if (deleted < SWEEP_BATCH) break;
    }
    if (total > 0) log.info({ deleted: total, cutoff }, 'chat: expired messages deleted');
    return total;
  }

  const sweepLogged = () =>
    sweep().catch((error: unknown) => log.error({ err: error }, 'chat: retention sweep failed'));

  return {
    channels,
    hub,
    requireEnabled,
    maxMessageBytes: options.maxMessageBytes,

    /** What a client needs before it connects: the WebSocket URL, limits and feature flags. */
    clientConfig(request: { host: string | undefined; protocol: string }) {
      const scheme = request.protocol === 'https' ? 'wss' : 'ws';
      return {
        websocket_url: options.websocketUrl ?? `${scheme}://${request.host ?? 'localhost'}${CHAT_WS_PATH}`,
        limits: {
          max_message_size: options.maxMessageBytes,
          max_attachments: MAX_ATTACHMENTS,
          message_retention_days: options.retentionDays,
          incident_auto_resolve_hours: options.incidentAutoResolveHours,
          auth_timeout_ms: options.authTimeoutMs,
          presence_grace_ms: options.presenceGraceMs,
          heartbeat_ms: options.heartbeatMs,
        },
        feature_flags: {
          'chat.enabled': options.flags.enabled,
          'chat.voice_transcription': options.flags.voice_transcription,
          'chat.ai_translation': options.flags.ai_translation,
          'chat.external_bridges': options.flags.external_bridges,
        },
      };
    },

    async postMessage(tenantId: string, userId: string, channelId: string, body: NewMessageBody) {
      const { channel, role } = await channels.visible(tenantId, userId, channelId);
      checkContent(body);
      await checkThread(tenantId, channelId, body.thread_id);
      const row = newRow(channel, {
        thread_id: body.thread_id ?? null,
        author_id: userId,
        kind: 'user',
        content: body.content,
        attachments: JSON.stringify(body.attachments ?? []),
      });
      // Writing in a public channel joins it, so its author hears the answers.
      return insert(channel, row, role === null);
    },

    async listMessages(
      tenantId: string,
      userId: string,
      channelId: string,
      page: { limit: number; cursor?: string | undefined; threadId?: string | undefined },
    ) {
      await channels.visible(tenantId, userId, channelId);
      const rows = await store.messages(db, tenantId, channelId, {
        limit: page.limit + 1,
        before: page.cursor,
        threadId: page.threadId,
      });
      const items = rows.slice(0, page.limit).map(toMessage);
      return { items, nextCursor: rows.length > page.limit ? items.at(-1)!.id : null };
    },

    /**
     * The incident's channel, with the responders as members; calling again for the same incident
     * (a retried flow, a second replica) returns the same channel and adds any new responders.
     * Responders who are not active users of the tenant are left out (and logged).
     */
    async createIncidentChannel(tenantId: string, request: IncidentChannelRequest) {
      const members: string[] = [];
      for (const userId of new Set(request.member_user_ids)) {
        if (await deps.tenancy.activeMember(tenantId, userId)) members.push(userId);
        else
          log.warn({ tenant_id: tenantId, user_id: userId }, 'chat: responder is not a user of the tenant');
      }
      const at = now();
      const row: ChatChannelRow = {
        id: deps.newId(),
        tenant_id: tenantId,
        type: 'incident',
        name: request.name.slice(0, 80),
        topic: request.topic.slice(0, 500) || null,
        brand_id: null,
        location_id: null,
        department: null,
        incident_id: request.incident_id,
        direct_key: null,
        created_by: null,
        created_at: at,
        updated_at: at,
        last_message_at: null,
      };
      const channel = await db.transaction().execute(async (trx) => {
        const inserted = await store.insertChannelOnce(trx, row);
        const current = inserted ? row : (await store.channelByIncident(trx, tenantId, request.incident_id))!;
        await store.addMembers(trx, channels.memberRows(tenantId, current.id, members, 'member'));
        return current;
      });
      return toChannel(channel, null, await store.countMembers(db, tenantId, channel.id));
    },

    /** A message from the system (no author, kind `system`), delivered like any other. */
    async postSystemMessage(tenantId: string, channelId: string, content: string) {
      const channel = await store.channel(db, tenantId, channelId);
      if (!channel) throw errors.channelNotFound();
      const size = Buffer.byteLength(content, 'utf8');
      if (size > options.maxMessageBytes) throw errors.messageTooLarge(size, options.maxMessageBytes);
      const row = newRow(channel, {
        thread_id: null,
        author_id: null,
        kind: 'system',
        content,
        attachments: '[]',
      });
      return insert(channel, row, false);
    },

    /**
     * An `incident` frame. With the frame's `channel_id` or `incident_id` naming an incident
     * channel of the tenant: to that channel's members; otherwise to every connected user of the
     * tenant. Never to another tenant. Resolves to the number of connections reached.
     */
    async broadcastIncident(tenantId: string, frame: Record<string, unknown>) {
      const data = JSON.stringify({ ...frame, type: 'incident' });
      try {
        const channel =
          typeof frame.channel_id === 'string'
            ? await store.channel(db, tenantId, frame.channel_id)
            : typeof frame.incident_id === 'string'
              ? await store.channelByIncident(db, tenantId, frame.incident_id)
              : undefined;
        return await sendEverywhere(tenantId, channel?.id ?? null, data);
      } catch (error) {
        log.error({ err: error, tenant_id: tenantId }, 'chat: broadcasting an incident failed');
        return 0;
      }
    },

    /** The time of the channel's latest message (null when none yet); undefined for no such channel. */
    async lastMessageAt(tenantId: string, channelId: string) {
      return (await store.channel(db, tenantId, channelId))?.last_message_at;
    },

    sweep,

    attach(server: Server) {
      socket.attach(server);
    },
    disconnectAll: () => socket.disconnectAll(),
    heartbeat: () => socket.beat(),

    start() {
      if (!options.runWorker || sweeper) return;
      sweeper = setInterval(sweepLogged, options.sweepIntervalMs);
      sweeper.unref();
      void sweepLogged();
    },

    async close() {
      clearInterval(sweeper);
      sweeper = undefined;
      socket.disconnectAll();
    },
  };
}

export type ChatService = ReturnType<typeof createChatService>;
