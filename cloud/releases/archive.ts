/**
 * What makes bytes a release: gzip, a tar that reads to its end, and a release.json at its root
 * naming a plain version. Checked as the bytes stream past (hashed in the same pass), so an archive
 * of hundreds of megabytes is never held in memory.
 */
import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import { Parser, type ReadEntry } from 'tar';
import { isPlainVersion } from '../../shared/devices/update-manifest.ts';
import type { AppError } from '../../shared/http/errors.ts';
import { archiveInvalid, releaseJsonInvalid } from './errors.ts';

const MAX_RELEASE_JSON_BYTES = 64 * 1024;
const GZIP_MAGIC = [0x1f, 0x8b];

export interface Inspection {
  size: number;
  sha256: string;
  version: string;
  /** The archive's release.json as it is. */
  meta: Record<string, unknown>;
}

export interface Inspector {
  /** Takes the next bytes; rejects as soon as they cannot be a release. */
  write(chunk: Uint8Array): Promise<void>;
  /** After the last bytes: the release they make, or why they make none. */
  finish(): Promise<Inspection>;
}

const isReleaseJson = (entry: ReadEntry) => entry.path.replace(/^\.\//, '') === 'release.json';

/** The release's version from release.json's text; the rest is kept as the archive says it. */
export function readReleaseJson(text: Buffer): Inspection['meta'] & { version: string } {
  let meta: unknown;
  try {
    meta = JSON.parse(text.toString('utf8'));
  } catch {
    throw releaseJsonInvalid('is not JSON');
  }
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta))
    throw releaseJsonInvalid('is not a JSON object');
  const { version, format } = meta as Record<string, unknown>;
  if (format !== undefined && format !== 1) throw releaseJsonInvalid(`has format ${String(format)}, not 1`);
  if (typeof version !== 'string' || !isPlainVersion(version))
    throw releaseJsonInvalid('has no plain version (letters, digits, . + -; at most 64)');
  return { ...(meta as Record<string, unknown>), version };
}

/** Resolves once the emitter emits any of `events`. */
const first = (emitter: EventEmitter, events: string[]) =>
  new Promise<void>((resolve) => {
    for (const event of events) emitter.once(event, () => resolve());
  });

export function createInspector(): Inspector {
  const hash = createHash('sha256');
  let size = 0;
  let failure: AppError | undefined;
  let releaseJson: Buffer | undefined;
  let releaseJsonProblem: string | undefined;

  const parser = new Parser({
    strict: true,
    onReadEntry(entry) {
      if (!isReleaseJson(entry)) return entry.resume();
      if (releaseJson || releaseJsonProblem) releaseJsonProblem = 'appears twice at the root';
      else if (entry.type !== 'File') releaseJsonProblem = 'is not a file';
      else if (entry.size > MAX_RELEASE_JSON_BYTES)
        releaseJsonProblem = `is larger than ${MAX_RELEASE_JSON_BYTES} bytes`;
      if (releaseJsonProblem) return entry.resume();
      const parts: Buffer[] = [];
      entry.on('data', (part: Buffer) => parts.push(part));
      entry.on('end', () => {
        releaseJson = Buffer.concat(parts);
      });
    },
  });
  parser.on('error', (error: Error & { code?: string }) => {
    failure ??= archiveInvalid(`is not a readable tar.gz (${error.code ?? error.message})`);
  });
  const ended = first(parser, ['end', 'close', 'error']);

  return {
    async write(chunk) {
      if (failure) throw failure;
      const bytes = Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
      for (let i = size; i < GZIP_MAGIC.length && i - size < bytes.length; i += 1)
        if (bytes[i - size] !== GZIP_MAGIC[i]) failure = archiveInvalid('is not gzip-compressed');
      if (failure) throw failure;
      size += bytes.length;
      hash.update(bytes);
      if (!parser.write(bytes)) await Promise.race([first(parser, ['drain']), ended]);
      if (failure) throw failure;
    },

    async finish() {
      if (size < GZIP_MAGIC.length && !failure) failure = archiveInvalid('is not gzip-compressed');
      if (failure) throw failure;
      parser.end();
      await ended;
      if (failure) throw failure;
      if (releaseJsonProblem) throw releaseJsonInvalid(releaseJsonProblem);
      if (!releaseJson) throw releaseJsonInvalid('is not at the archive’s root');
      const meta = readReleaseJson(releaseJson);
      return { size, sha256: hash.digest('hex'), version: meta.version, meta };
    },
  };
}
