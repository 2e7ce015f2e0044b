/**
 * A version's bytes, kept in the database as pieces of CHUNK_BYTES: an upload is hashed and
 * written piece by piece as it arrives, a download (or a byte range of it) read piece by piece,
 * so a 200 MB model is never held whole in a gateway's memory.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Db } from '../../db/index.ts';
import { emptyUpload, rangeNotSatisfiable, sizeMismatch, tooLarge } from './errors.ts';
import * as queries from './store.ts';

export const CHUNK_BYTES = 1024 * 1024;

export interface UploadTarget {
  tenantId: string;
  modelId: string;
  version: string;
  fileId: string;
  startedAt: string;
}

export interface UploadLimits {
  maxBytes: number;
  /** The request's Content-Length, when it declared one. */
  declaredLength?: number | undefined;
}

/** Writes the upload's pieces under its own file id; on any failure they are deleted again. */
export async function writeUpload(
  db: Db,
  target: UploadTarget,
  body: AsyncIterable<Uint8Array>,
  limits: UploadLimits,
): Promise<{ size: number; sha256: string }> {
  if (limits.declaredLength !== undefined && limits.declaredLength > limits.maxBytes)
    throw tooLarge(limits.maxBytes);
  const hash = createHash('sha256');
  const piece = Buffer.allocUnsafe(CHUNK_BYTES);
  let filled = 0;
  let seq = 0;
  let size = 0;
  const flush = async () => {
    await queries.insertChunk(db, {
      file_id: target.fileId,
      seq: seq++,
      tenant_id: target.tenantId,
      model_id: target.modelId,
      version: target.version,
      bytes: Buffer.from(piece.subarray(0, filled)),
      created_at: target.startedAt,
    });
    filled = 0;
  };
  try {
    for await (const data of body) {
      size += data.byteLength;
      if (size > limits.maxBytes) throw tooLarge(limits.maxBytes);
      hash.update(data);
      for (let offset = 0; offset < data.byteLength; ) {
        const taken = Math.min(CHUNK_BYTES - filled, data.byteLength - offset);
        piece.set(data.subarray(offset, offset + taken), filled);
        filled += taken;
        offset += taken;
        if (filled === CHUNK_BYTES) await flush();
      }
    }
    if (filled > 0) await flush();
    if (size === 0) throw emptyUpload();
    if (limits.declaredLength !== undefined && size !== limits.declaredLength)
      throw sizeMismatch(size, limits.declaredLength);
    return { size, sha256: hash.digest('hex') };
  } catch (error) {
    await queries.deleteFile(db, target.tenantId, target.fileId);
    throw error;
  }
}

export interface ByteRange {
  start: number;
  /** Inclusive, as HTTP counts. */
  end: number;
}

/**
 * The one range of a `Range: bytes=…` header; undefined for none, a malformed one or several
 * ranges (the whole file is answered then, as HTTP allows). A range starting past the end is 416.
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

/** The file's bytes from `range.start` to `range.end`, reading only the pieces that hold them. */
export function readFile(
  db: Db,
  tenantId: string,
  file: { fileId: string; chunkSize: number },
  range: ByteRange,
): Readable {
  async function* pieces() {
    const firstSeq = Math.floor(range.start / file.chunkSize);
    const lastSeq = Math.floor(range.end / file.chunkSize);
    for (let seq = firstSeq; seq <= lastSeq; seq += 1) {
      const row = await queries.chunk(db, tenantId, file.fileId, seq);
      if (!row) throw new Error(`model file ${file.fileId} lacks piece ${seq}`);
      const base = seq * file.chunkSize;
      const from = Math.max(range.start - base, 0);
      const to = Math.min(range.end - base + 1, row.bytes.byteLength);
      yield Buffer.from(row.bytes.buffer, row.bytes.byteOffset + from, to - from);
    }
  }
  return Readable.from(pieces(), { objectMode: false });
}
