/**
 * The HTTP sender behind webhook deliveries. Tenants pick the URLs, so it refuses private targets
 * (checked on the same DNS answer the socket connects to), never follows redirects, bounds every
 * request by its time-out and keeps only the head of a response body for the delivery log.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { performance } from 'node:perf_hooks';
import type { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { BLOCKED_ADDRESS_CODE, checkWebhookUrl, createGuardedLookup, type Resolve } from './address-guard.ts';

export type OutboundErrorClass =
  | 'timeout'
  | 'connection_refused'
  | 'dns'
  | 'blocked_address'
  | 'tls'
  | 'connection_reset'
  | 'network';

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /**
   * Requests naming the same pool share its connections; pools never share. One per subscription:
   * many tenants' hooks on one shared host (a Zapier, a Slack) then cannot queue behind one
   * another's hanging endpoint, as they would in a single per-origin pool.
   */
  pool?: string;
}

export type OutboundResult =
  | { kind: 'response'; status: number; headers: Record<string, string>; body: string; latencyMs: number }
  | { kind: 'error'; errorClass: OutboundErrorClass; message: string; latencyMs: number };

export interface OutboundOptions {
  allowPrivate: boolean;
  /** Injectable for tests (DNS rebinding): resolves a host name to all its addresses. Default dns.promises.lookup(host, { all: true }). */
  resolve?: Resolve;
  maxResponseBytes?: number; // default 4096: the response body kept for the delivery log
  connectionsPerOrigin?: number; // default 8
}

export interface Outbound {
  send(request: OutboundRequest): Promise<OutboundResult>;
  close(): Promise<void>;
}

const DEFAULT_MAX_RESPONSE_BYTES = 4096;
const DEFAULT_CONNECTIONS_PER_ORIGIN = 8;
// undici's connect timer is per agent, not per request. A request gives up at its own time-out;
// this only bounds how long an abandoned connection attempt (a host dropping SYNs) may linger.
const CONNECT_TIMEOUT_MS = 10_000;

const defaultResolve: Resolve = (hostname) => dnsLookup(hostname, { all: true });

const ERROR_CLASS_BY_CODE: Record<string, OutboundErrorClass> = {
  [BLOCKED_ADDRESS_CODE]: 'blocked_address',
  ECONNREFUSED: 'connection_refused',
  ENOTFOUND: 'dns',
  EAI_AGAIN: 'dns',
  EAI_FAIL: 'dns',
  EAI_NODATA: 'dns',
  EAI_NONAME: 'dns',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  UND_ERR_SOCKET: 'connection_reset', // "other side closed"
  ETIMEDOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  EPROTO: 'tls',
};

// OpenSSL verification codes that do not mention CERT; the rest are caught by the patterns below.
const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'HOSTNAME_MISMATCH',
]);

const isTlsCode = (code: string): boolean =>
  code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || code.includes('CERT') || TLS_CODES.has(code);

/** undici and net wrap causes inconsistently, so the whole cause chain is searched for a code. */
function classify(error: unknown): OutboundErrorClass {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string') {
      const known = ERROR_CLASS_BY_CODE[code];
      if (known) return known;
      if (isTlsCode(code)) return 'tls';
    }
    current = current.cause;
  }
  return 'network';
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return typeof code === 'string' && !error.message.includes(code)
    ? `${code}: ${error.message}`
    : error.message;
}

function flattenHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/**
 * Keeps the first `limit` bytes. Leaving the loop early destroys the body, which makes undici drop
 * the socket instead of draining an arbitrarily large answer into memory.
 */
async function readHead(body: Readable, limit: number): Promise<string> {
  const kept: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    kept.push(bytes.subarray(0, limit - size));
    size += Math.min(bytes.length, limit - size);
    if (size >= limit) break;
  }
  // A multi-byte character cut at the limit decodes as U+FFFD rather than failing.
  return Buffer.concat(kept).toString('utf8');
}

interface SendContext {
  agent: Agent;
  allowPrivate: boolean;
  maxResponseBytes: number;
}

async function post(context: SendContext, url: URL, request: OutboundRequest, signal: AbortSignal) {
  const response = await context.agent.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: request.headers,
    body: request.body,
    signal,
  });
  const body = await readHead(response.body, context.maxResponseBytes);
  return { status: response.statusCode, headers: flattenHeaders(response.headers), body };
}

async function send(context: SendContext, request: OutboundRequest): Promise<OutboundResult> {
  const started = performance.now();
  const latencyMs = () => Math.round(performance.now() - started);
  // Checked again at send time: the URL may have been stored under looser rules. This is also where
  // IP-literal hosts are judged, since net.connect skips the lookup for them.
  const checked = checkWebhookUrl(request.url, { allowPrivate: context.allowPrivate });
  if (!checked.ok) {
    return { kind: 'error', errorClass: 'blocked_address', message: checked.reason, latencyMs: latencyMs() };
  }
  // One timer over connect, headers and body: a server that trickles bytes cannot stretch it.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, request.timeoutMs);
  try {
    const response = await post(context, checked.url, request, controller.signal);
    return { kind: 'response', ...response, latencyMs: latencyMs() };
  } catch (error) {
    const errorClass = timedOut ? 'timeout' : classify(error);
    const message = timedOut ? `no complete response within ${request.timeoutMs} ms` : describe(error);
    return { kind: 'error', errorClass, message, latencyMs: latencyMs() };
  } finally {
    clearTimeout(timer);
  }
}

/** Pools unused this long are closed; a busy subscription keeps its warm connections. */
const POOL_IDLE_MS = 5 * 60_000;

export function createOutbound(options: OutboundOptions): Outbound {
  const newAgent = () =>
    new Agent({
      // Per-origin pools: a slow endpoint ties up only its own connections, never another origin's.
      connections: options.connectionsPerOrigin ?? DEFAULT_CONNECTIONS_PER_ORIGIN,
      connect: {
        lookup: createGuardedLookup(options.resolve ?? defaultResolve, options.allowPrivate),
        timeout: CONNECT_TIMEOUT_MS,
      },
      // No redirect handling is configured, so a 3xx comes back as the final answer: following it
      // would let a public endpoint bounce the request to a private one.
    });
  let shared = newAgent();
  const pools = new Map<string, { agent: Agent; usedAt: number }>();
  const sweep = setInterval(() => {
    const cutoff = performance.now() - POOL_IDLE_MS;
    for (const [key, pool] of pools) {
      if (pool.usedAt >= cutoff) continue;
      pools.delete(key);
      void pool.agent.close();
    }
  }, POOL_IDLE_MS);
  sweep.unref();

  function agentFor(key: string | undefined) {
    if (key === undefined) return shared;
    let pool = pools.get(key);
    if (!pool) {
      pool = { agent: newAgent(), usedAt: 0 };
      pools.set(key, pool);
    }
    pool.usedAt = performance.now();
    return pool.agent;
  }

  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return {
    send: (request) =>
      send({ agent: agentFor(request.pool), allowPrivate: options.allowPrivate, maxResponseBytes }, request),
    /**
     * Called after the worker's grace: what is still on the wire is cut, and its attempt fails (the
     * schedule sends it again). Sending afterwards opens fresh connections, so a stopped worker can
     * start again.
     */
    async close() {
      const agents = [shared, ...[...pools.values()].map((pool) => pool.agent)];
      shared = newAgent();
      pools.clear();
      await Promise.all(agents.map((agent) => agent.destroy()));
    },
  };
}
