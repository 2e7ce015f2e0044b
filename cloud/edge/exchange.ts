/**
 * Requests to the gateway over keep-alive connections of our own, one request at a time on each
 * (no pipelining, so a slow answer never holds up another). Written for the router's one job: about
 * half the CPU per request of undici's pool, which served it before (see docs/edge-and-sso.md).
 * A connection goes back to the pool only after a response framed to its last byte, with the
 * request sent whole; anything else closes it.
 */
import { connect as connectTcp, type Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { connect as connectTls } from 'node:tls';
import {
  type BodyFraming,
  ProtocolError,
  type ResponseEvents,
  ResponseParser,
  requestHead,
} from './http1.ts';

export interface GatewayRequest {
  method: string;
  path: string;
  /** Flat [name, value, ...], framing headers (Content-Length) included, hop-by-hop ones not. */
  headers: string[];
  body: Readable | null;
  framing: BodyFraming;
}

/** What the caller hears of its request: a head, body pieces and an end, or an error. */
export interface GatewayAnswer {
  onHead(status: number, reason: string, headers: string[]): void;
  /** false: hold the gateway's answer back until `resume()`. */
  onData(chunk: Buffer): boolean;
  onEnd(): void;
  onError(error: Error): void;
}

export interface Exchange {
  resume(): void;
  /** The client left: the request is given up and its connection closed. */
  abort(): void;
}

/** The gateway did not connect or answer in time: 504, where a refused connection is 502. */
export class UpstreamTimeout extends Error {
  override name = 'UpstreamTimeout';
}

export interface PoolOptions {
  origin: URL;
  connectTimeoutMs: number;
  /** The gateway's silence, either way, while a request is out. */
  upstreamTimeoutMs: number;
}

// Without a Keep-Alive hint from the gateway an idle connection is kept this long (undici's
// default); with one, a second less than it says, so that we never reuse what it is closing.
const DEFAULT_IDLE_MS = 4000;
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);
const HINT_MARGIN_MS = 1000;

function openSocket({ origin, connectTimeoutMs }: PoolOptions) {
  const host = origin.hostname.replace(/^\[|\]$/g, '');
  const port = Number(origin.port);
  const secure = origin.protocol === 'https:';
  const socket = secure ? connectTls({ host, port, servername: host }) : connectTcp({ host, port });
  socket.setNoDelay(true);
  const timer = setTimeout(
    () => socket.destroy(new UpstreamTimeout('gateway connect timed out')),
    connectTimeoutMs,
  );
  const clear = () => clearTimeout(timer);
  socket.once(secure ? 'secureConnect' : 'connect', clear).once('close', clear);
  return socket;
}

/** One connection to the gateway and the request on it, if any. */
class Connection implements ResponseEvents {
  readonly parser = new ResponseParser(this);
  exchange: GatewayExchange | undefined;
  /** Some of the current response has arrived: a failure now is not the stale-connection kind. */
  heard = false;
  #completed: boolean | undefined;
  idleSince = 0;
  keepAliveMs = DEFAULT_IDLE_MS;

  constructor(
    readonly socket: Socket,
    readonly pool: GatewayPool,
  ) {
    socket.on('data', (data: Buffer) => this.#data(data));
    socket.on('end', () => this.#ended());
    socket.on('error', (error: Error) => this.#fail(error));
    socket.on('close', () => this.#fail(new Error('gateway closed the connection')));
    socket.on('timeout', () => this.#fail(new UpstreamTimeout('gateway did not answer in time')));
    socket.on('drain', () => this.exchange?.drained());
    socket.setTimeout(pool.options.upstreamTimeoutMs);
  }

  begin(exchange: GatewayExchange) {
    this.exchange = exchange;
    this.heard = false;
    this.#completed = undefined;
    this.parser.expect(exchange.request.method === 'HEAD');
  }

  head(status: number, reason: string, headers: string[]) {
    this.#hint(headers);
    this.exchange?.answer.onHead(status, reason, headers);
  }

  body(chunk: Buffer) {
    if (this.exchange && !this.exchange.answer.onData(chunk)) this.socket.pause();
  }

  complete(reusable: boolean) {
    this.#completed = reusable;
  }

  /** The gateway's `Keep-Alive: timeout=N`, the time it keeps an idle connection open. */
  #hint(headers: string[]) {
    for (let i = 0; i < headers.length; i += 2) {
      if (headers[i]!.length !== 10 || headers[i]!.toLowerCase() !== 'keep-alive') continue;
      const seconds = /timeout=(\d+)/i.exec(headers[i + 1]!)?.[1];
      if (seconds) this.keepAliveMs = Number(seconds) * 1000 - HINT_MARGIN_MS;
    }
  }

  #data(data: Buffer) {
    // Bytes nobody asked for (on an idle connection): it cannot be trusted with another request.
    if (!this.exchange) return void this.socket.destroy();
    this.heard = true;
    try {
      this.parser.feed(data);
    } catch (error) {
      // Bytes past a whole answer: the answer goes out, the connection does not stay.
      if (this.#completed !== undefined) return this.#settle(false);
      return this.#fail(error as Error);
    }
    if (this.#completed !== undefined) this.#settle(this.#completed);
  }

  #ended() {
    if (!this.exchange) return void this.socket.destroy();
    // Closed before a byte of the answer: maybe an idle connection the gateway was closing.
    if (!this.heard) return this.#fail(new Error('gateway closed the connection'));
    try {
      this.parser.end();
      this.#settle(false);
    } catch (error) {
      this.#fail(error as Error);
    }
  }

  #settle(reusable: boolean) {
    const exchange = this.exchange!;
    this.exchange = undefined;
    const keep = reusable && exchange.sent && !this.socket.destroyed;
    exchange.completed();
    if (keep) this.pool.release(this);
    else this.socket.destroy();
  }

  #fail(error: Error) {
    const exchange = this.exchange;
    this.exchange = undefined;
    this.pool.forget(this);
    this.socket.destroy();
    exchange?.failed(error, this);
  }
}

/** A request and its answer, moved to a fresh connection once when a reused one turns out closed. */
class GatewayExchange implements Exchange {
  sent = false;
  #connection: Connection | undefined;
  #reused = false;
  #retried = false;
  #over = false;

  constructor(
    readonly pool: GatewayPool,
    readonly request: GatewayRequest,
    readonly answer: GatewayAnswer,
  ) {}

  start(connection: Connection, reused: boolean) {
    this.#connection = connection;
    this.#reused = reused;
    connection.begin(this);
    const { socket } = connection;
    const { method, path, headers, body, framing } = this.request;
    socket.write(requestHead(method, path, headers, framing), 'latin1');
    if (body === null) this.sent = true;
    else this.#stream(body, socket, framing);
  }

  #stream(body: Readable, socket: Socket, framing: BodyFraming) {
    body.on('data', (chunk: Buffer) => {
      if (this.#over || socket.destroyed) return;
      const ok = framing === 'chunked' ? writeChunk(socket, chunk) : socket.write(chunk);
      if (!ok) body.pause();
    });
    body.once('end', () => {
      if (this.#over || socket.destroyed) return;
      if (framing === 'chunked') socket.write('0\r\n\r\n');
      this.sent = true;
    });
  }

  drained() {
    this.request.body?.resume();
  }

  completed() {
    this.#over = true;
    this.answer.onEnd();
  }

  failed(error: Error, connection: Connection) {
    if (this.#over) return;
    // A reused connection the gateway closed while idle: nothing was read and nothing consumed,
    // so an idempotent request (RFC 9110 §9.2.2: only those) goes again on a new one.
    const { body, method } = this.request;
    const stale =
      this.#reused && !connection.heard && body === null && IDEMPOTENT.has(method) && !this.#retried;
    if (stale && !(error instanceof ProtocolError) && !(error instanceof UpstreamTimeout)) {
      this.#retried = true;
      return this.start(this.pool.open(), false);
    }
    this.#over = true;
    this.answer.onError(error);
  }

  resume() {
    if (!this.#over) this.#connection?.socket.resume();
  }

  abort() {
    if (this.#over) return;
    this.#over = true;
    this.#connection?.socket.destroy();
  }
}

function writeChunk(socket: Socket, chunk: Buffer) {
  if (chunk.length === 0) return true;
  socket.cork();
  socket.write(`${chunk.length.toString(16)}\r\n`, 'latin1');
  socket.write(chunk);
  const ok = socket.write('\r\n', 'latin1');
  socket.uncork();
  return ok;
}

/** The connections to one gateway: the idle ones most recently used first, and every open one. */
export class GatewayPool {
  readonly #idle: Connection[] = [];
  readonly #open = new Set<Connection>();

  constructor(readonly options: PoolOptions) {}

  request(request: GatewayRequest, answer: GatewayAnswer): Exchange {
    const exchange = new GatewayExchange(this, request, answer);
    const idle = this.#takeIdle();
    exchange.start(idle ?? this.open(), idle !== undefined);
    return exchange;
  }

  open() {
    const connection = new Connection(openSocket(this.options), this);
    this.#open.add(connection);
    return connection;
  }

  #takeIdle() {
    const now = Date.now();
    for (let connection = this.#idle.pop(); connection; connection = this.#idle.pop()) {
      if (now - connection.idleSince < connection.keepAliveMs && !connection.socket.destroyed)
        return connection;
      this.#open.delete(connection);
      connection.socket.destroy();
    }
    return undefined;
  }

  release(connection: Connection) {
    connection.idleSince = Date.now();
    // Paused by the last client's back-pressure after its answer was all read.
    connection.socket.resume();
    this.#idle.push(connection);
  }

  forget(connection: Connection) {
    this.#open.delete(connection);
    const at = this.#idle.indexOf(connection);
    if (at !== -1) this.#idle.splice(at, 1);
  }

  async close() {
    for (const connection of this.#open) connection.socket.destroy();
    this.#open.clear();
    this.#idle.length = 0;
  }
}
