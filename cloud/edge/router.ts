import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import { answerSocket, answerText } from './answers.ts';
import type { EdgeConfig } from './config.ts';
import { forward, forwardedHeaders } from './forward.ts';
import { type ClientLimiter, limiterAnswer } from './limiter.ts';
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
 * The routing rules, in order. /health answers before the limiter: a
 * load balancer's probe must not spend, or be refused by, a client's budget. Every other request
 * is counted (L1, L2), then needs a tenant in its host (rule 2), then goes by its path.
 */
async function admit(req: IncomingMessage, config: EdgeConfig, deps: RouterDeps) {
  const answer = limiterAnswer(await deps.limiter.take(clientOf(req), deps.clock.now()));
  // L3: the limiter's 429 becomes the router's own, its counts and Retry-After kept.
  if (answer.status === 429) return { refused: { status: 429, body: 'Too Many Requests' }, answer };
  const tenant = tenantOf(req.headers.host, config.serviceDomain);
  if (tenant === undefined) return { refused: { status: 400, body: 'Invalid tenant' }, answer };
  return { tenant, answer };
}

export function createRouter(config: EdgeConfig, deps: RouterDeps) {
  async function route(req: IncomingMessage, res: ServerResponse) {
    const path = pathOf(req.url);
    if (path === '/health') return answerText(res, 200, 'OK');
    const { tenant, refused, answer } = await admit(req, config, deps);
    if (refused) return answerText(res, refused.status, refused.body, answer.headers);
    if (path.startsWith(API_PREFIX))
      return forward(deps.upstream, req, res, forwardedHeaders(req, tenant), answer.headers, deps.log);
    if (path.startsWith(STATIC_PREFIX))
      return serveStatic(deps.store, req, res, path, answer.headers, deps.log);
    return answerText(res, 404, 'Not Found', answer.headers);
  }

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    if (req.headers.upgrade?.toLowerCase() !== 'websocket')
      return answerSocket(socket, 400, 'Unsupported upgrade');
    const { tenant, refused, answer } = await admit(req, config, deps);
    if (refused) return answerSocket(socket, refused.status, refused.body, answer.headers);
    if (!pathOf(req.url).startsWith(API_PREFIX))
      return answerSocket(socket, 404, 'Not Found', answer.headers);
    tunnel(deps.upstream, req, socket, head, forwardedHeaders(req, tenant), answer.headers, deps.log);
  }

  return {
    request(req: IncomingMessage, res: ServerResponse) {
      route(req, res).catch((error: unknown) => {
        deps.log.error({ err: error, method: req.method, url: req.url }, 'edge request failed');
        if (res.headersSent) return void res.destroy();
        answerText(res, 500, 'Internal Server Error');
      });
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
