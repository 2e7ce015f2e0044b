import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { answerText, connectionNamed, HOP_BY_HOP, responseHeaders } from './answers.ts';
import type { Exchange } from './exchange.ts';
import type { BodyFraming } from './http1.ts';
import { type GatewayAnswer, isTimeout, type Upstream } from './upstream.ts';

// Set by the router whatever the client sent; Node answers Expect: 100-continue itself (the body
// then comes on and is streamed on).
const REPLACED = new Set([
  'x-tenant-id',
  'x-forwarded-host',
  'x-forwarded-for',
  'x-forwarded-proto',
  'expect',
]);

/**
 * The headers the gateway gets, as a flat [name, value, ...] list (undici takes it as it is): the
 * client's end-to-end ones (Host and CF-Connecting-IP included, so the gateway names itself as
 * clients reach it), the tenant and the original host set by us whatever the client sent, and the
 * usual X-Forwarded-For and -Proto. TLS ends in front of the router (the CDN), which says so in
 * X-Forwarded-Proto; anything else is plain http.
 */
export function forwardedHeaders(req: IncomingMessage, tenant: string): string[] {
  const { headers } = req;
  const listed = connectionNamed(headers.connection);
  const forwarded: string[] = [];
  for (const name in headers) {
    if (HOP_BY_HOP.has(name) || REPLACED.has(name) || (listed.length > 0 && listed.includes(name))) continue;
    const value = headers[name]!;
    if (typeof value === 'string') forwarded.push(name, value);
    else for (const one of value) forwarded.push(name, one);
  }
  const peer = req.socket.remoteAddress ?? 'unknown';
  const prior = headers['x-forwarded-for'];
  forwarded.push(
    'x-tenant-id',
    tenant,
    'x-forwarded-host',
    headers.host ?? '',
    'x-forwarded-for',
    prior ? `${prior}, ${peer}` : peer,
    'x-forwarded-proto',
    headers['x-forwarded-proto'] === 'https' ? 'https' : 'http',
  );
  return forwarded;
}

/** 504 when the gateway was too slow, 502 when it could not be reached or broke off. */
export function upstreamFailure(error: Error) {
  return isTimeout(error) ? { status: 504, body: 'Gateway Timeout' } : { status: 502, body: 'Bad Gateway' };
}

/** As the client framed its body: Node has read any chunked framing off, so it is put back on. */
function framingOf(req: IncomingMessage): BodyFraming {
  if (req.headers['transfer-encoding'] !== undefined) return 'chunked';
  return req.headers['content-length'] === undefined ? 'none' : 'length';
}

/**
 * Writes the gateway's answer as it arrives: a client that stops reading pauses the gateway's
 * response (resumed on drain), and a client that leaves aborts the request upstream. The latest
 * piece of the body is held until the next one or the end, so that a body in one piece (most API
 * answers) goes out with the head in a single end(). A class, not closures: one object per request.
 */
class Answering implements GatewayAnswer {
  exchange: Exchange | undefined;
  #held: Buffer | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly extra: Record<string, string>,
    readonly log: Logger,
  ) {
    res.on('close', () => {
      if (!res.writableFinished) this.exchange?.abort();
    });
  }

  onHead(status: number, reason: string, headers: string[]) {
    const answer = responseHeaders(headers, this.extra);
    if (reason) this.res.writeHead(status, reason, answer);
    else this.res.writeHead(status, answer);
  }

  onData(chunk: Buffer) {
    const held = this.#held;
    this.#held = chunk;
    if (held === undefined || this.res.write(held)) return true;
    this.res.once('drain', () => this.exchange?.resume());
    return false;
  }

  onEnd() {
    const held = this.#held;
    this.#held = undefined;
    this.res.end(held);
  }

  onError(error: Error) {
    const { req, res } = this;
    if (res.destroyed) return; // the client left first
    if (res.headersSent) return void res.destroy();
    this.log.warn({ err: error, method: req.method, url: req.url }, 'gateway request failed');
    const { status, body } = upstreamFailure(error);
    // The rest of an unread upload is not worth reading: answer, then close the connection.
    if (!req.complete) res.shouldKeepAlive = false;
    req.resume();
    answerText(res, status, body, this.extra);
  }
}

/**
 * Streams the request to the gateway and its response back, neither body held whole (back-pressure
 * both ways). `extra` goes on the response (the limiter's counts).
 */
export function forward(
  upstream: Upstream,
  req: IncomingMessage,
  res: ServerResponse,
  headers: string[],
  extra: Record<string, string>,
  log: Logger,
) {
  const framing = framingOf(req);
  const answering = new Answering(req, res, extra, log);
  answering.exchange = upstream.request(
    {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers,
      body: framing === 'none' ? null : req,
      framing,
    },
    answering,
  );
}
