/** Raw bodies in and artifacts out: streamed both ways, never held whole. */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { rangeNotSatisfiable, unsupportedType } from './errors.ts';
import type { Release } from './views.ts';

export const ARCHIVE_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream'];
export const CHUNK_TYPES = ['application/offset+octet-stream', 'application/octet-stream'];

/** The raw types reach handlers as the request stream itself (in this plugin's routes only). */
export function acceptRawBodies(app: FastifyInstance) {
  const types = [...new Set([...ARCHIVE_TYPES, ...CHUNK_TYPES])];
  app.addContentTypeParser(types, (_request, payload, done) => done(null, payload));
}

const mediaType = (request: FastifyRequest) =>
  request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();

/**
 * The body's bytes as they arrive, as one of `types`; no body at all is empty. Stopping early
 * leaves the request to be drained rather than destroyed, so the refusal still reaches the client.
 */
export function rawBody(request: FastifyRequest, types: string[]): AsyncIterable<Uint8Array> {
  const type = mediaType(request);
  if (request.body instanceof Readable && type && types.includes(type))
    return request.body.iterator({ destroyOnReturn: false });
  if (type) throw unsupportedType(types.join(' or '));
  return (async function* () {})();
}

export const declaredLength = (request: FastifyRequest) => {
  const raw = request.headers['content-length'];
  return raw === undefined ? undefined : Number(raw);
};

interface ByteRange {
  start: number;
  /** Inclusive, as HTTP counts. */
  end: number;
}

/**
 * The one range of a `Range: bytes=…` header; undefined for none, a malformed one or several
 * (the whole artifact is answered then, as HTTP allows). A range starting past the end is 416.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  const match = header?.match(/^bytes=(\d*)-(\d*)$/);
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const [first, last] = [match[1]!, match[2]!];
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) throw rangeNotSatisfiable(size);
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (start >= size) throw rangeNotSatisfiable(size);
  if (end < start) return undefined;
  return { start, end };
}

/** The artifact, whole or one range of it; ETag is its SHA-256, so a download resumes with If-Range. */
export async function sendArtifact(
  request: FastifyRequest,
  reply: FastifyReply,
  artifact: { release: Release; read(range: ByteRange): Readable },
) {
  const { release } = artifact;
  const etag = `"${release.sha256}"`;
  reply.headers({
    etag,
    'accept-ranges': 'bytes',
    'content-type': 'application/gzip',
    'content-disposition': `attachment; filename="release-${release.version}.tar.gz"`,
    'cache-control': 'private, no-transform',
  });
  if (request.headers['if-none-match'] === etag) return reply.code(304).send();
  const ifRange = request.headers['if-range'];
  const range =
    ifRange === undefined || ifRange === etag ? parseRange(request.headers.range, release.size) : undefined;
  const { start, end } = range ?? { start: 0, end: release.size - 1 };
  if (range) reply.code(206).header('content-range', `bytes ${start}-${end}/${release.size}`);
  reply.header('content-length', end - start + 1);
  // An empty stream: Fastify keeps the length given above for a HEAD answered with a stream.
  if (request.method === 'HEAD') return reply.send(Readable.from([]));
  return reply.send(artifact.read({ start, end }));
}
