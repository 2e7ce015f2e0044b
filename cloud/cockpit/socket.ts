/**
 * The console feed over WebSocket at /api/internal/cockpit/feed: the first frame is
 * `{type: 'auth', token}` (like chat); a cockpit operator or one of the tenant's administrators (the
 * fleet console's users) then receives the tenant's frames from the console hub (alert
 * notifications and state changes, approvals, rollouts, stores, publications). Only this path's
 * upgrades are handled; other listeners (chat's /api/v1/chat/ws) take theirs.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { type WebSocket, WebSocketServer } from 'ws';
import { PLATFORM_ADMIN_ROLES, type Role } from '../../shared/roles.ts';
import type { SessionService, TokenService } from '../identity/index.ts';
import type { ConsoleFeed } from './feed.ts';

export const FEED_PATH = '/api/internal/cockpit/feed';
/** Who may listen: the operations console's operators, and those who manage the tenant. */
export const FEED_ROLES: readonly Role[] = ['cockpit_operator', ...PLATFORM_ADMIN_ROLES];
/** Close codes: 4000 + the HTTP status each stands for. */
export const CLOSE = { unauthenticated: 4401, forbidden: 4403, timeout: 4408 } as const;
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
const SESSION_CHECK_MS = 30_000;

export interface FeedSocketDeps {
  feed: ConsoleFeed;
  tokens: TokenService;
  sessions: SessionService;
  log: Logger;
  authTimeoutMs: number;
}

type Principal = { tenantId: string; userId: string; sessionId: string };

export function createFeedSocket(deps: FeedSocketDeps) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024 });
  const servers = new Set<Server>();

  /** The token's principal when it is a live session of a feed role; otherwise the close code. */
  async function authenticate(token: unknown): Promise<Principal | number> {
    if (typeof token !== 'string' || token === '') return CLOSE.unauthenticated;
    const claims = await deps.tokens.verifyAccess(token).catch(() => undefined);
    if (!claims) return CLOSE.unauthenticated;
    const session = await deps.sessions.activeState(claims.session_id);
    if (!session || session.tenant_id !== claims.tenant_id || session.user_id !== claims.sub)
      return CLOSE.unauthenticated;
    if (!claims.roles.some((role) => FEED_ROLES.includes(role as Role))) return CLOSE.forbidden;
    return { tenantId: claims.tenant_id, userId: claims.sub, sessionId: claims.session_id };
  }

  function serve(socket: WebSocket, principal: Principal) {
    const send = (frame: unknown) => {
      if (socket.bufferedAmount > MAX_BUFFERED_BYTES) socket.close(1013, 'too far behind');
      else socket.send(JSON.stringify(frame));
    };
    const stop = deps.feed.subscribe((tenantId, frame) => {
      if (tenantId === principal.tenantId) send(frame);
    });
    // A session ended (logout, disabled operator) ends its feed too.
    const check = setInterval(() => {
      deps.sessions.activeState(principal.sessionId).then(
        (state) => {
          if (!state) socket.close(CLOSE.unauthenticated, 'session ended');
        },
        () => undefined,
      );
    }, SESSION_CHECK_MS);
    check.unref();
    socket.on('close', () => {
      clearInterval(check);
      stop();
    });
    send({ type: 'auth_ok', tenant_id: principal.tenantId, user_id: principal.userId });
  }

  function accept(socket: WebSocket) {
    const timer = setTimeout(
      () => socket.close(CLOSE.timeout, 'authentication timed out'),
      deps.authTimeoutMs,
    );
    socket.once('message', (data) => {
      clearTimeout(timer);
      let frame: { type?: unknown; token?: unknown } = {};
      try {
        frame = JSON.parse(String(data)) as typeof frame;
      } catch {
        // not JSON: refused below like any frame that is not an auth frame
      }
      if (frame?.type !== 'auth') return socket.close(CLOSE.unauthenticated, 'the first frame must be auth');
      authenticate(frame.token).then(
        (result) => {
          if (typeof result === 'number')
            return socket.close(result, result === CLOSE.forbidden ? 'not a console role' : 'invalid token');
          if (socket.readyState === socket.OPEN) serve(socket, result);
        },
        (error: unknown) => {
          deps.log.error({ err: error }, 'console feed authentication failed');
          socket.close(1011, 'internal error');
        },
      );
    });
    socket.on('close', () => clearTimeout(timer));
  }

  function onUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
    const path = (request.url ?? '').split('?')[0];
    if (path !== FEED_PATH) return; // another module's WebSocket
    wss.handleUpgrade(request, socket, head, accept);
  }

  return {
    attach(server: Server) {
      servers.add(server);
      server.on('upgrade', onUpgrade);
    },
    /** Closes every feed connection (the server is shutting down). */
    close() {
      for (const server of servers) server.off('upgrade', onUpgrade);
      servers.clear();
      for (const client of wss.clients) client.terminate();
      wss.close();
    },
  };
}
