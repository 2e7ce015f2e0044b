import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream';
import type { Logger } from 'pino';
import { answerText, SECURITY_HEADERS } from './answers.ts';
import type { ObjectStore } from './storage/index.ts';

export const STATIC_PREFIX = '/static/';
// Keys are content-addressed by the build (a new name per version), so a copy never goes stale.
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

/** The object key of a `/static/<key>` path, or undefined for one no object can have. */
export function staticKey(path: string) {
  let key: string;
  try {
    key = decodeURIComponent(path.slice(STATIC_PREFIX.length));
  } catch {
    return undefined;
  }
  const segments = key.split('/');
  const bad = segments.some(
    (s) => s === '' || s === '.' || s === '..' || s.includes('\\') || s.includes('\0'),
  );
  return bad ? undefined : key;
}

/** If-None-Match with the weak comparison RFC 9110 §13.1.2 prescribes; `*` matches any object. */
function matches(ifNoneMatch: string | undefined, etag: string) {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => opaque(tag) === opaque(etag));
}

/** Rule 5: the object's bytes with its type, a year of caching and its ETag; 304 when the client has it. */
export async function serveStatic(
  store: ObjectStore,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  extra: Record<string, string>,
  log: Logger,
) {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return answerText(res, 405, 'Method Not Allowed', { ...extra, allow: 'GET, HEAD' });
  const key = staticKey(path);
  const object = key === undefined ? undefined : await store.get(key);
  if (!object) return answerText(res, 404, 'Not Found', extra);
  const headers = { ...SECURITY_HEADERS, ...extra, etag: object.etag, 'cache-control': CACHE_CONTROL };
  const notModified = matches(req.headers['if-none-match'], object.etag);
  if (notModified || req.method === 'HEAD') object.stream.destroy();
  if (notModified) {
    res.writeHead(304, headers);
    return void res.end();
  }
  res.writeHead(200, { ...headers, 'content-type': object.contentType, 'content-length': object.size });
  if (req.method === 'HEAD') return void res.end();
  pipeline(object.stream, res, (error) => {
    if (error) log.debug({ err: error, key }, 'static object not sent in full');
  });
}
