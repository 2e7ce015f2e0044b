/**
 * HTTP/1.1 as the router speaks it to the gateway (RFC 9112), no I/O: a request's head, and a
 * strict parser of the gateway's responses. Strict because a connection is reused for other
 * tenants' requests: anything the parser does not fully understand, or a byte past the end of a
 * response, is a ProtocolError and the connection is never used again.
 */

export class ProtocolError extends Error {
  override name = 'ProtocolError';
}

// A response head or a trailer section larger than this is refused, as a chunk-size line past 4 KiB.
const MAX_HEAD_BYTES = 64 * 1024;
const MAX_LINE_BYTES = 4096;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// What Node refuses to write in a header value: caught here, as the gateway's fault (502).
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: ([^\r\n]*))?$/;
const CHUNK_SIZE = /^([0-9a-fA-F]{1,8})[ \t]*(?:;.*)?$/;
const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');

/** How a request's body is framed on the way to the gateway. */
export type BodyFraming = 'none' | 'length' | 'chunked';

/**
 * The request line and headers. The method, path and the client's headers come from Node's own
 * parser, which refuses CR, LF and other controls in them; the router's own values are checked
 * where it makes them.
 */
export function requestHead(method: string, path: string, headers: string[], framing: BodyFraming) {
  let head = `${method} ${path} HTTP/1.1\r\n`;
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  if (framing === 'chunked') head += 'transfer-encoding: chunked\r\n';
  return `${head}connection: keep-alive\r\n\r\n`;
}

/** What a parsed response tells its reader, in order: head, body pieces, complete. */
export interface ResponseEvents {
  head(status: number, reason: string, headers: string[]): void;
  body(chunk: Buffer): void;
  /** `reusable`: the gateway did not ask to close, and the body's end was framed, not the close. */
  complete(reusable: boolean): void;
}

interface Head {
  status: number;
  reason: string;
  headers: string[];
  length: number | undefined;
  /** A Transfer-Encoding was sent; chunked: `chunked` was its final coding. */
  encoded: boolean;
  chunked: boolean;
  reusable: boolean;
}

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-end' | 'trailers' | 'close' | 'done';

function contentLength(prior: number | undefined, value: string) {
  if (!/^\d{1,15}$/.test(value)) throw new ProtocolError(`bad content-length "${value}"`);
  const length = Number(value);
  if (prior !== undefined && prior !== length) throw new ProtocolError('conflicting content-length');
  return length;
}

function headerLine(line: string, head: Head) {
  const colon = line.indexOf(':');
  const name = colon > 0 ? line.slice(0, colon) : '';
  if (!TOKEN.test(name)) throw new ProtocolError('malformed header line');
  const value = line.slice(colon + 1).trim();
  if (INVALID_VALUE.test(value)) throw new ProtocolError(`control character in header ${name}`);
  const lower = name.toLowerCase();
  if (lower === 'content-length') head.length = contentLength(head.length, value);
  else if (lower === 'transfer-encoding') {
    head.encoded = true;
    head.chunked = /(?:^|,)\s*chunked\s*$/i.test(value);
  } else if (lower === 'connection' && /(?:^|,)\s*close\s*(?:,|$)/i.test(value)) head.reusable = false;
  head.headers.push(name, value);
}

function parseHead(text: string): Head {
  const lines = text.split('\r\n');
  const status = STATUS_LINE.exec(lines[0] ?? '');
  if (!status) throw new ProtocolError('malformed status line');
  const head: Head = {
    status: Number(status[2]),
    reason: status[3] ?? '',
    headers: [],
    length: undefined,
    encoded: false,
    chunked: false,
    reusable: status[1] === '1',
  };
  for (let i = 1; i < lines.length; i++) headerLine(lines[i]!, head);
  // Either framing alone is fine; both is how responses are smuggled, so neither is trusted.
  if (head.encoded && head.length !== undefined)
    throw new ProtocolError('both content-length and transfer-encoding');
  return head;
}

/** A reader of one response at a time on one connection; `feed` throws ProtocolError. */
export class ResponseParser {
  #state: State = 'done';
  #pending: Buffer | undefined;
  #left = 0;
  #reusable = false;
  #noBody = false;

  constructor(private readonly events: ResponseEvents) {}

  /** Expects the response to a new request; a HEAD request's response has no body, whatever it says. */
  expect(headRequest: boolean) {
    this.#state = 'head';
    this.#pending = undefined;
    this.#noBody = headRequest;
  }

  feed(data: Buffer) {
    let at = 0;
    while (at < data.length) {
      if (this.#state === 'done') throw new ProtocolError('bytes past the end of the response');
      at = this.#step(data, at);
    }
  }

  /** The gateway closed the connection: that ends a body framed by the close, and nothing else. */
  end() {
    if (this.#state !== 'close') throw new ProtocolError('connection closed before the response ended');
    this.#finish();
  }

  #step(data: Buffer, at: number): number {
    switch (this.#state) {
      case 'head':
        return this.#readHead(data, at);
      case 'length':
      case 'chunk-data':
        return this.#readCounted(data, at);
      case 'close':
        this.events.body(at === 0 ? data : data.subarray(at));
        return data.length;
      case 'chunk-size':
        return this.#readLine(data, at, (line) => this.#chunkSize(line));
      case 'chunk-end':
        return this.#readLine(data, at, (line) => this.#chunkEnd(line));
      default:
        return this.#readLine(data, at, (line) => this.#trailer(line));
    }
  }

  /** Everything up to the blank line that ends the head, however the pieces arrive. */
  #readHead(data: Buffer, at: number) {
    const buffer = this.#join(data, at);
    const end = buffer.indexOf(HEAD_END);
    if (end === -1) return this.#keep(buffer, MAX_HEAD_BYTES, 'response head too large', data.length);
    this.#pending = undefined;
    this.#onHead(parseHead(buffer.toString('latin1', 0, end)));
    return this.#consumedUpTo(data, at, buffer, end + HEAD_END.length);
  }

  #onHead(head: Head) {
    if (head.status < 200) {
      if (head.status === 101) throw new ProtocolError('unexpected 101 Switching Protocols');
      return; // 1xx: the final answer follows
    }
    this.events.head(head.status, head.reason, head.headers);
    this.#reusable = head.reusable;
    this.#state = this.#bodyState(head);
    if (this.#state === 'done') this.events.complete(this.#reusable);
  }

  /** RFC 9112 §6.3: how the body ends, in its order of rules. */
  #bodyState(head: Head): State {
    if (this.#noBody || head.status === 204 || head.status === 304) return 'done';
    if (head.chunked) return 'chunk-size';
    if (head.length === undefined || head.encoded) {
      this.#reusable = false;
      return 'close';
    }
    this.#left = head.length;
    return head.length === 0 ? 'done' : 'length';
  }

  #readCounted(data: Buffer, at: number) {
    const take = Math.min(this.#left, data.length - at);
    this.events.body(at === 0 && take === data.length ? data : data.subarray(at, at + take));
    this.#left -= take;
    if (this.#left === 0) {
      if (this.#state === 'length') this.#finish();
      else this.#state = 'chunk-end';
    }
    return at + take;
  }

  #readLine(data: Buffer, at: number, onLine: (line: string) => void) {
    const buffer = this.#join(data, at);
    const end = buffer.indexOf(CRLF);
    if (end === -1) return this.#keep(buffer, MAX_LINE_BYTES, 'chunk line too long', data.length);
    this.#pending = undefined;
    onLine(buffer.toString('latin1', 0, end));
    return this.#consumedUpTo(data, at, buffer, end + CRLF.length);
  }

  #chunkSize(line: string) {
    const size = CHUNK_SIZE.exec(line);
    if (!size) throw new ProtocolError('malformed chunk size');
    this.#left = Number.parseInt(size[1]!, 16);
    this.#state = this.#left === 0 ? 'trailers' : 'chunk-data';
  }

  #chunkEnd(line: string) {
    if (line !== '') throw new ProtocolError('chunk not followed by CRLF');
    this.#state = 'chunk-size';
  }

  /** Trailer fields are not passed on (nothing the router answers with is a trailer); the blank line ends the body. */
  #trailer(line: string) {
    if (line === '') return this.#finish();
    this.#left += line.length;
    if (this.#left > MAX_HEAD_BYTES) throw new ProtocolError('trailers too large');
  }

  #finish() {
    this.#state = 'done';
    this.events.complete(this.#reusable);
  }

  #join(data: Buffer, at: number) {
    const rest = at === 0 ? data : data.subarray(at);
    return this.#pending ? Buffer.concat([this.#pending, rest]) : rest;
  }

  /** Keeps an unfinished head or line for the next piece; all of `data` is then read. */
  #keep(buffer: Buffer, limit: number, message: string, read: number) {
    if (buffer.length > limit) throw new ProtocolError(message);
    this.#pending = Buffer.from(buffer);
    return read;
  }

  /** Where in `data` the parse stands once `buffer` (pending bytes, then data from `at`) is read to `used`. */
  #consumedUpTo(data: Buffer, at: number, buffer: Buffer, used: number) {
    return at + used - (buffer.length - (data.length - at));
  }
}
