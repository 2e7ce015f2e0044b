/**
 * The chat WebSocket at /api/v1/chat/ws on the cloud's own HTTP server.
 *
 * Client → server frames (JSON text):
 *   {type:'auth', token}                      first frame: the HTTP bearer access token; again
 *                                             later with a fresh token to stay connected past expiry
 *   {type:'presence', status:'online'|'away'} the user's own presence
 *   {type:'presence_subscribe', user_ids:[…]} follow these users' presence (same tenant)
 *   {type:'ping'}                             answered {type:'pong'} (browsers cannot send pings)
 * Server → client frames:
 *   {type:'auth_ok', user_id, tenant_id}
 *   {type:'message', channel_id, message}     message: as GET …/messages returns it
 *   {type:'presence', user_id, status:'online'|'away'|'offline', at}
 *   {type:'incident', incident_id?, channel_id?, …}  what the incident flow broadcasts
 *   {type:'error', code, message}             a frame that could not be used; the socket stays open
 * Close codes: 4401 bad, expired or ended token (or a first frame that is not auth); 4408 no auth
 * frame within CHAT_AUTH_TIMEOUT_MS; 1001 server shutting down. WebSocket pings every
 * CHAT_HEARTBEAT_MS; a connection that missed the previous pong is dropped.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { type RawData, type WebSocket, WebSocketServer } from 'ws';
import type { Clock } from '../../shared/clock.ts';
import type { AccessClaims } from '../../shared/identity/tokens.ts';
import type { SessionService, TokenService } from '../identity/index.ts';
import type { ChatConfig } from './config.ts';
import type { Connection, Hub } from './hub.ts';

export const CHAT_WS_PATH = '/api/v1/chat/ws';
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_AUTH_TIMEOUT = 4408;
const MAX_CLIENT_FRAME_BYTES = 64 * 1024;
const MAX_WATCHED_USERS = 1000;
/** The heartbeat pings this many sockets, then rests BEAT_REST_MS (10,000 sockets: one second). */
const BEAT_SLICE = 200;
const BEAT_REST_MS = 20;

export interface SocketDeps {
  hub: Hub;
  tokens: TokenService;
  sessions: SessionService;
  clock: Clock;
  log: Logger;
  options: ChatConfig;
  /** Called once a connection authenticated, e.g. to follow the user's direct-message partners. */
  onAuthenticated(connection: Connection): Promise<void>;
}

type Frame = Record<string, unknown> & { type?: unknown };

function parseFrame(data: RawData): Frame | undefined {
  try {
    const value: unknown = JSON.parse(data.toString());
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Frame)
      : undefined;
  } catch {
    return undefined;
  }
}

const errorFrame = (code: string, message: string) => JSON.stringify({ type: 'error', code, message });

export function createChatSocket(deps: SocketDeps) {
  const { hub, log, options } = deps;
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
  const claimsOf = new WeakMap<WebSocket, AccessClaims>();
  const alive = new WeakMap<WebSocket, boolean>();
  let heartbeat: NodeJS.Timeout | undefined;
  let server: Server | undefined;

  /** Signature, expiry, and a session that is still live for this user and tenant. */
  async function verify(token: unknown): Promise<AccessClaims | undefined> {
    if (typeof token !== 'string' || token.length === 0) return undefined;
    try {
      const claims = await deps.tokens.verifyAccess(token);
      const session = await deps.sessions.activeState(claims.session_id);
      if (!session || session.tenant_id !== claims.tenant_id || session.user_id !== claims.sub)
        return undefined;
      return claims;
    } catch {
      return undefined;
    }
  }

  function authenticated(socket: WebSocket, claims: AccessClaims) {
    const connection: Connection = {
      socket,
      tenantId: claims.tenant_id,
      userId: claims.sub,
      watching: new Set(),
    };
    claimsOf.set(socket, claims);
    // auth_ok first: the user's own presence frame (online) follows it on this socket.
    socket.send(JSON.stringify({ type: 'auth_ok', user_id: claims.sub, tenant_id: claims.tenant_id }));
    hub.add(connection);
    socket.on('close', () => hub.remove(connection));
    deps
      .onAuthenticated(connection)
      .catch((error: unknown) => log.warn({ err: error }, 'chat: following direct partners failed'));
    return connection;
  }

  async function reauthenticate(connection: Connection, token: unknown) {
    const claims = await verify(token);
    if (!claims || claims.sub !== connection.userId || claims.tenant_id !== connection.tenantId) {
      connection.socket.close(CLOSE_UNAUTHORIZED, 'invalid token');
      return;
    }
    claimsOf.set(connection.socket, claims);
    connection.socket.send(
      JSON.stringify({ type: 'auth_ok', user_id: claims.sub, tenant_id: claims.tenant_id }),
    );
  }

  function onFrame(connection: Connection, frame: Frame) {
    switch (frame.type) {
      case 'ping':
        hub.send(connection, JSON.stringify({ type: 'pong' }));
        return;
      case 'presence':
        if (frame.status === 'online' || frame.status === 'away')
          return hub.setStatus(connection, frame.status);
        hub.send(connection, errorFrame('INVALID_FRAME', 'status must be online or away'));
        return;
      case 'presence_subscribe':
        return subscribe(connection, frame.user_ids);
      case 'auth':
        void reauthenticate(connection, frame.token);
        return;
      default:
        hub.send(
          connection,
          errorFrame('UNKNOWN_FRAME', 'type must be ping, presence, presence_subscribe or auth'),
        );
    }
  }

  function subscribe(connection: Connection, userIds: unknown) {
    const valid =
      Array.isArray(userIds) &&
      userIds.every((id) => typeof id === 'string' && id.length <= 64) &&
      connection.watching.size + userIds.length <= MAX_WATCHED_USERS;
    if (!valid) {
      hub.send(
        connection,
        errorFrame(
          'INVALID_FRAME',
          `user_ids must be an array of user ids; at most ${MAX_WATCHED_USERS} followed`,
        ),
      );
      return;
    }
    hub.watch(connection, userIds as string[]);
  }

  function accept(socket: WebSocket) {
    alive.set(socket, true);
    socket.on('pong', () => alive.set(socket, true));
    socket.on('error', (error) => log.debug({ err: error }, 'chat socket error'));
    const timer = setTimeout(
      () => socket.close(CLOSE_AUTH_TIMEOUT, 'authentication timed out'),
      options.authTimeoutMs,
    );
    let connection: Connection | undefined;
    let authenticating = false;
    socket.on('close', () => clearTimeout(timer));
    socket.on('message', (data) => {
      const frame = parseFrame(data);
      if (connection) {
        if (frame) onFrame(connection, frame);
        else hub.send(connection, errorFrame('INVALID_FRAME', 'frames are JSON objects with a type'));
        return;
      }
      if (authenticating) return; // frames sent before auth_ok are not served
      if (frame?.type !== 'auth') {
        socket.close(CLOSE_UNAUTHORIZED, 'the first frame must be {type:"auth", token}');
        return;
      }
      // The client answered in time; how long the check takes is the server's business.
      authenticating = true;
      clearTimeout(timer);
      void verify(frame.token).then((claims) => {
        if (socket.readyState !== socket.OPEN) return;
        if (!claims) return socket.close(CLOSE_UNAUTHORIZED, 'invalid token');
        connection = authenticated(socket, claims);
      });
    });
  }

  function onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
    // Other paths belong to other WebSockets on this server (the cockpit feed): leave them alone.
    const path = (request.url ?? '').split('?', 1)[0];
    if (path !== CHAT_WS_PATH) return;
    if (!options.flags.enabled) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(request, socket, head, accept);
  }

  /**
   * Pings every socket; drops the ones that missed the last pong, the ones whose token expired and
   * the ones whose session ended (logout, revocation: within one heartbeat, not at token expiry).
   * Slices of BEAT_SLICE sockets a short rest apart: ten thousand pings at once come back as ten
   * thousand pongs in one turn of the event loop, which held the messages in flight up to a second.
   * A slice's session checks share one read (the session store batches a turn's lookups).
   */
  async function beat() {
    const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
    const sockets = [...wss.clients];
    for (let first = 0; first < sockets.length; first += BEAT_SLICE) {
      if (first > 0) await new Promise((resolve) => setTimeout(resolve, BEAT_REST_MS));
      const pinged: Array<[WebSocket, AccessClaims]> = [];
      for (const socket of sockets.slice(first, first + BEAT_SLICE)) {
        if (socket.readyState !== socket.OPEN) continue;
        if (alive.get(socket) === false) {
          socket.terminate();
          continue;
        }
        const claims = claimsOf.get(socket);
        if (claims && claims.exp <= nowSeconds) {
          socket.close(CLOSE_UNAUTHORIZED, 'token expired; send a fresh auth frame before expiry');
          continue;
        }
        alive.set(socket, false);
        socket.ping();
        if (claims) pinged.push([socket, claims]);
      }
      await Promise.all(
        pinged.map(async ([socket, claims]) => {
          const session = await deps.sessions.activeState(claims.session_id).catch(() => 'unknown' as const);
          if (session === undefined && socket.readyState === socket.OPEN)
            socket.close(CLOSE_UNAUTHORIZED, 'session ended');
        }),
      );
    }
  }

  return {
    attach(target: Server) {
      server = target;
      target.on('upgrade', onUpgrade);
      heartbeat = setInterval(() => void beat(), options.heartbeatMs);
      heartbeat.unref();
    },
    beat,
    /** Closes every chat socket (1001) so the HTTP server can close. */
    disconnectAll() {
      clearInterval(heartbeat);
      server?.off('upgrade', onUpgrade);
      server = undefined;
      for (const socket of wss.clients) socket.close(1001, 'server shutting down');
      // A socket that does not finish the closing handshake promptly is cut.
      const cut = setTimeout(() => {
        for (const socket of wss.clients) socket.terminate();
      }, 1000);
      cut.unref();
      hub.clear();
    },
    clientCount: () => wss.clients.size,
  };
}

export type ChatSocket = ReturnType<typeof createChatSocket>;
