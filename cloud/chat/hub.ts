/**
 * The open chat connections of this process, by tenant and user, and everyone's presence. Frames
 * are addressed to a tenant's users, so no frame ever crosses tenants. Presence: a user is online
 * while any connection is open; `away` when they say so; `offline` only after the grace period
 * with no connection, so a reload or a network blip never shows them offline.
 */
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { Clock } from '../../shared/clock.ts';

export const PRESENCE_STATES = ['online', 'away', 'offline'] as const;
export type PresenceStatus = (typeof PRESENCE_STATES)[number];

/** A connection that has authenticated. */
export interface Connection {
  socket: WebSocket;
  tenantId: string;
  userId: string;
  /** Users whose presence this connection follows. */
  watching: Set<string>;
}

interface Presence {
  status: Exclude<PresenceStatus, 'offline'>;
  connections: Set<Connection>;
  offlineTimer: NodeJS.Timeout | undefined;
}

/** A client that stops reading is dropped once this much is queued for it. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;

export function createHub(deps: { clock: Clock; presenceGraceMs: number; log: Logger }) {
  const { clock, log } = deps;
  // tenant id → user id → presence and connections
  const tenants = new Map<string, Map<string, Presence>>();
  // tenant id → user id → connections watching that user's presence
  const watchers = new Map<string, Map<string, Set<Connection>>>();

  const usersOf = (tenantId: string) => {
    const users = tenants.get(tenantId) ?? new Map<string, Presence>();
    tenants.set(tenantId, users);
    return users;
  };

  function send(connection: Connection, data: string) {
    if (connection.socket.readyState !== connection.socket.OPEN) return false;
    if (connection.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      log.warn(
        { tenant_id: connection.tenantId, user_id: connection.userId },
        'chat client too slow; dropped',
      );
      connection.socket.terminate();
      return false;
    }
    connection.socket.send(data);
    return true;
  }

  function sendToUsers(tenantId: string, userIds: Iterable<string>, data: string) {
    const users = tenants.get(tenantId);
    if (!users) return 0;
    let sent = 0;
    for (const userId of userIds) {
      const presence = users.get(userId);
      if (!presence) continue;
      for (const connection of presence.connections) if (send(connection, data)) sent += 1;
    }
    return sent;
  }

  const statusOf = (tenantId: string, userId: string): PresenceStatus =>
    tenants.get(tenantId)?.get(userId)?.status ?? 'offline';

  const presenceFrame = (userId: string, status: PresenceStatus) =>
    JSON.stringify({ type: 'presence', user_id: userId, status, at: clock.now().toISOString() });

  /** To everyone watching the user, and to the user's own connections (their other tabs). */
  function publishPresence(tenantId: string, userId: string, status: PresenceStatus) {
    const data = presenceFrame(userId, status);
    const audience = new Set<Connection>(watchers.get(tenantId)?.get(userId) ?? []);
    for (const own of tenants.get(tenantId)?.get(userId)?.connections ?? []) audience.add(own);
    for (const connection of audience) send(connection, data);
  }

  function goOffline(tenantId: string, userId: string) {
    const users = tenants.get(tenantId);
    const presence = users?.get(userId);
    if (!users || !presence || presence.connections.size > 0) return;
    users.delete(userId);
    if (users.size === 0) tenants.delete(tenantId);
    publishPresence(tenantId, userId, 'offline');
  }

  return {
    add(connection: Connection) {
      const users = usersOf(connection.tenantId);
      const presence = users.get(connection.userId);
      if (presence) {
        // A reconnect within the grace period: still online (or away), and nobody hears otherwise.
        clearTimeout(presence.offlineTimer);
        presence.offlineTimer = undefined;
        presence.connections.add(connection);
        return;
      }
      users.set(connection.userId, {
        status: 'online',
        connections: new Set([connection]),
        offlineTimer: undefined,
      });
      publishPresence(connection.tenantId, connection.userId, 'online');
    },

    remove(connection: Connection) {
      const tenantWatchers = watchers.get(connection.tenantId);
      for (const userId of connection.watching) {
        const set = tenantWatchers?.get(userId);
        set?.delete(connection);
        if (set?.size === 0) tenantWatchers?.delete(userId);
      }
      const presence = tenants.get(connection.tenantId)?.get(connection.userId);
      if (!presence?.connections.delete(connection) || presence.connections.size > 0) return;
      const { tenantId, userId } = connection;
      presence.offlineTimer = setTimeout(() => goOffline(tenantId, userId), deps.presenceGraceMs);
      presence.offlineTimer.unref();
    },

    /** The user's own choice (away, or back online); every connection of theirs shares it. */
    setStatus(connection: Connection, status: 'online' | 'away') {
      const presence = tenants.get(connection.tenantId)?.get(connection.userId);
      if (!presence || presence.status === status) return;
      presence.status = status;
      publishPresence(connection.tenantId, connection.userId, status);
    },

    /** Follows the users' presence (same tenant only) and answers each one's current state. */
    watch(connection: Connection, userIds: readonly string[]) {
      const tenantWatchers = watchers.get(connection.tenantId) ?? new Map<string, Set<Connection>>();
      watchers.set(connection.tenantId, tenantWatchers);
      for (const userId of userIds) {
        connection.watching.add(userId);
        const set = tenantWatchers.get(userId) ?? new Set<Connection>();
        tenantWatchers.set(userId, set);
        set.add(connection);
        send(connection, presenceFrame(userId, statusOf(connection.tenantId, userId)));
      }
    },

    statusOf,
    sendToUsers,
    send,

    /** Every open connection of the tenant. */
    sendToTenant(tenantId: string, data: string) {
      const users = tenants.get(tenantId);
      return users ? sendToUsers(tenantId, users.keys(), data) : 0;
    },

    connectionCount() {
      let count = 0;
      for (const users of tenants.values())
        for (const presence of users.values()) count += presence.connections.size;
      return count;
    },

    /** Forgets everything (shutdown): no offline frames are sent. */
    clear() {
      for (const users of tenants.values())
        for (const presence of users.values()) clearTimeout(presence.offlineTimer);
      tenants.clear();
      watchers.clear();
    },
  };
}

export type Hub = ReturnType<typeof createHub>;
