import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import { answerSocket, answerText } from './answers.ts';
import type { EdgeConfig } from './config.ts';
import { forward, forwardedHeaders } from './forward.ts';
import { type ClientLimiter, type LimitDecision, limiterAnswer } from './limiter.ts';
import { STATIC_PREFIX, serveStatic } from './static.ts';
import type { ObjectStore } from './storage/index.ts';
import { tenantOf } from './tenant.ts';
import type { Upstream } from './upstream.ts';
import type { Tunnels } from './websocket.ts';
import { tunnel } from './websocket.ts';

export interface RouterDeps {
  limiter: ClientLimiter;
  store: ObjectStore;
  upstream: Upstream;
  clock: Clock;
  log: Logger;
  tunnels: Tunnels;
}

const API_PREFIX = '/api/v1/';
// An address is at most 45 characters; a longer header is cut so it cannot grow the limiter's keys.
const MAX_CLIENT_KEY = 64;

const pathOf = (url: string | undefined) => {
  const raw = url ?? '/';
  const query = raw.indexOf('?');
  return query === -1 ? raw : raw.slice(0, query);
};

/** The limiter's key: the address Cloudflare saw (CF-Connecting-IP), `unknown` without one. */
function clientOf(req: IncomingMessage) {
  const header = req.headers['cf-connecting-ip'];
  const address = typeof header === 'string' ? header.trim() : '';
  return address === '' ? 'unknown' : address.slice(0, MAX_CLIENT_KEY);
}

/**
 * What the limiter (L1, L2) and the host (rule 2) make of a counted request: refused with the
 * limiter's 429 (L3: its counts and Retry-After kept) or a 400, or admitted for its tenant.
 */
function admission(req: IncomingMessage, config: EdgeConfig, decision: LimitDecision) {
  const answer = limiterAnswer(decision);
  if (answer.status === 429) return { refused: { status: 429, body: 'Too Many Requests' }, answer };
  const tenant = tenantOf(req.headers.host, config.serviceDomain);
  if (tenant === undefined) return { refused: { status: 400, body: 'Invalid tenant' }, answer };
  return { tenant, answer };
}

const take = (req: IncomingMessage, deps: RouterDeps) => deps.limiter.take(clientOf(req), deps.clock.now());

/**
 * The routing rules, in order. /health answers before the limiter: a load balancer's probe must
 * not spend, or be refused by, a client's budget. Every other request is counted, then needs a
 * tenant in its host, then goes by its path. Synchronous while the limiter answers at once (in
 * memory): a promise per request is a cost the hop need not pay.
 */
export function createRouter(config: EdgeConfig, deps: RouterDeps) {
  function route(req: IncomingMessage, res: ServerResponse): void | Promise<void> {
    const path = pathOf(req.url);
    if (path === '/health') return answerText(res, 200, 'OK');
    const decision = take(req, deps);
    if (decision instanceof Promise) return decision.then((d) => admitted(req, res, path, d));
    return admitted(req, res, path, decision);
  }

  function admitted(req: IncomingMessage, res: ServerResponse, path: string, decision: LimitDecision) {
    const { tenant, refused, answer } = admission(req, config, decision);
    if (refused) return answerText(res, refused.status, refused.body, answer.headers);
    if (path.startsWith(API_PREFIX))
      return forward(deps.upstream, req, res, forwardedHeaders(req, tenant), answer.headers, deps.log);
    if (path.startsWith(STATIC_PREFIX))
      return serveStatic(deps.store, req, res, path, answer.headers, deps.log);
    return answerText(res, 404, 'Not Found', answer.headers);
  }

  function failed(req: IncomingMessage, res: ServerResponse, error: unknown) {
    deps.log.error({ err: error, method: req.method, url: req.url }, 'edge request failed');
    if (res.headersSent) return void res.destroy();
    answerText(res, 500, 'Internal Server Error');
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    if (req.headers.upgrade?.toLowerCase() !== 'websocket')
      return answerSocket(socket, 400, 'Unsupported upgrade');
    const { tenant, refused, answer } = admission(req, config, await take(req, deps));
    if (refused) return answerSocket(socket, refused.status, refused.body, answer.headers);
    if (!pathOf(req.url).startsWith(API_PREFIX))
      return answerSocket(socket, 404, 'Not Found', answer.headers);
    tunnel(deps.upstream, req, socket, head, forwardedHeaders(req, tenant), answer.headers, deps.log);
  }

  return {
    request(req: IncomingMessage, res: ServerResponse) {
      try {
        route(req, res)?.catch((error: unknown) => failed(req, res, error));
      } catch (error) {
        failed(req, res, error);
      }
    },
    upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
      // Held from the start, so stopping the router can close upgrades still waiting on the gateway.
      deps.tunnels.add(socket);
      socket.on('error', () => socket.destroy()).once('close', () => deps.tunnels.delete(socket));
      upgrade(req, socket, head).catch((error: unknown) => {
        deps.log.error({ err: error, url: req.url }, 'edge upgrade failed');
        answerSocket(socket, 500, 'Internal Server Error');
      });
    },
  };
}
