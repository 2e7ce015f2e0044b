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
export const HOP_BY_HOP = new Set([
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
  const listed = connectionNamed(headers.connection);
  const kept: OutgoingHttpHeaders = {};
  for (const name in headers) {
    if (HOP_BY_HOP.has(name) || (listed.length > 0 && listed.includes(name))) continue;
    kept[name] = headers[name];
  }
  return kept;
}

const SECURITY_LIST = Object.entries(SECURITY_HEADERS).flat();
const SECURITY_NAMES = new Set(Object.keys(SECURITY_HEADERS));

/** The names a Connection header lists beyond keep-alive and close (those name no header). */
export function connectionNamed(value: string | undefined): string[] {
  if (value === undefined) return [];
  const lower = value.toLowerCase();
  if (lower === 'keep-alive' || lower === 'close') return [];
  return lower.split(',').map((name) => name.trim());
}

/**
 * The gateway's headers (a flat [name, value, ...] list as they came) as the list to answer with,
 * in one pass and without an object: the hop-by-hop ones and any that the security headers or
 * `extra` replace dropped, repeated names (Set-Cookie) kept as they came, then ours after them.
 */
export function responseHeaders(raw: string[], extra: Record<string, string>): string[] {
  const headers: string[] = [];
  let connection: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) {
      if (lower === 'connection') connection = raw[i + 1];
      continue;
    }
    if (SECURITY_NAMES.has(lower) || Object.hasOwn(extra, lower)) continue;
    headers.push(name, raw[i + 1]!);
  }
  const named = connectionNamed(connection);
  const kept = named.length === 0 ? headers : withoutNamed(headers, named);
  kept.push(...SECURITY_LIST);
  for (const name in extra) kept.push(name, extra[name]!);
  return kept;
}

function withoutNamed(headers: string[], names: string[]) {
  const kept: string[] = [];
  for (let i = 0; i < headers.length; i += 2)
    if (!names.includes(headers[i]!.toLowerCase())) kept.push(headers[i]!, headers[i + 1]!);
  return kept;
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
