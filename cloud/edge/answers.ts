import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Rule 7: on every answer of the router, its own and the gateway's, HTTP and WebSocket alike. */
export const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'x-xss-protection': '1; mode=block',
  'referrer-policy': 'strict-origin-when-cross-origin',
} as const;

// RFC 9110 §7.6.1: these describe one connection, so they never cross the router.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The headers minus hop-by-hop ones, including any the Connection header names. */
export function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = headers.connection;
  const listed = named
    ? named
        .toLowerCase()
        .split(',')
        .map((name) => name.trim())
    : [];
  const kept: OutgoingHttpHeaders = {};
  for (const name in headers) {
    if (HOP_BY_HOP.has(name) || (listed.length > 0 && listed.includes(name))) continue;
    kept[name] = headers[name];
  }
  return kept;
}

/**
 * A response's raw header list (undici's) as the header object to answer with, in one pass: the
 * hop-by-hop ones dropped, repeated names (Set-Cookie) kept as arrays, then `added` over the rest.
 */
export function responseHeaders(raw: Buffer[], added: Record<string, string>): OutgoingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  let connection: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1');
    if (HOP_BY_HOP.has(name)) {
      if (name === 'connection') connection = value;
      continue;
    }
    const prior = headers[name];
    if (prior === undefined) headers[name] = value;
    else if (Array.isArray(prior)) prior.push(value);
    else headers[name] = [prior, value];
  }
  if (connection) for (const name of connection.toLowerCase().split(',')) delete headers[name.trim()];
  return Object.assign(headers, added);
}

/** A short text answer of the router's own. */
export function answerText(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

/** The head of a response written by hand on a raw socket (WebSocket upgrades). */
export function rawHead(status: number, headers: OutgoingHttpHeaders, reason = STATUS_CODES[status]) {
  let head = `HTTP/1.1 ${status} ${reason ?? ''}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) head += `${name}: ${one}\r\n`;
  }
  return `${head}\r\n`;
}

/** A short text answer on an upgrade's socket, which is then closed. */
export function answerSocket(
  socket: Duplex,
  status: number,
  body: string,
  headers: Record<string, string> = {},
) {
  if (!socket.writable) return void socket.destroy();
  const head = rawHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'content-type': 'text/plain; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    connection: 'close',
  });
  socket.end(head + body);
}
