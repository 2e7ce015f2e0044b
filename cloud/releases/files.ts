/**
 * Release archives as files under `<DATA_DIR>/releases/`: `<tenant>/<release>.tar.gz` once
 * published, `.uploads/<upload>.part` while a resumable upload grows, `.incoming/<id>.part` while
 * a one-shot upload arrives. The edge's object store takes whole buffers only, and an archive
 * must stream in (and out, by byte range), so releases keep files of their own. Several gateway
 * replicas must share the directory (a network volume).
 */
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface WriteResult {
  written: number;
  /** Why the body stopped early: the client went away, or it ran past `limit`. */
  error?: unknown;
  overflow?: boolean;
}

/**
 * Writes the body into `file` from `position` as it arrives, each chunk shown to `onChunk` first
 * (which may refuse it by throwing). Never more than `limit` bytes: the chunk that would pass it
 * stops the write with `overflow`.
 */
export async function writeBody(
  body: AsyncIterable<Uint8Array>,
  file: FileHandle,
  options: { position: number; limit: number; onChunk?: (chunk: Uint8Array) => Promise<void> },
): Promise<WriteResult> {
  let written = 0;
  try {
    for await (const chunk of body) {
      if (written + chunk.byteLength > options.limit) return { written, overflow: true };
      await options.onChunk?.(chunk);
      await file.write(chunk, 0, chunk.byteLength, options.position + written);
      written += chunk.byteLength;
    }
    await file.datasync();
    return { written };
  } catch (error) {
    await file.datasync().catch(() => undefined);
    return { written, error };
  }
}

export function createReleaseFiles(root: string) {
  const ensureDir = (path: string) => mkdir(dirname(path), { recursive: true });
  return {
    storageKey: (tenantId: string, releaseId: string) => `${tenantId}/${releaseId}.tar.gz`,
    pathOf: (storageKey: string) => join(root, storageKey),
    partOf: (uploadId: string) => join(root, '.uploads', `${uploadId}.part`),

    /** A new file for a one-shot upload to land in. */
    async incoming() {
      const path = join(root, '.incoming', `${randomUUID()}.part`);
      await ensureDir(path);
      return { path, file: await open(path, 'wx') };
    },

    /** An upload's part, made empty on its first chunk. */
    async openPart(uploadId: string) {
      const path = join(root, '.uploads', `${uploadId}.part`);
      await ensureDir(path);
      return open(path, 'a+').then(async (file) => {
        // 'a+' only makes the file: positioned writes need a handle that does not append.
        await file.close();
        return open(path, 'r+');
      });
    },

    /** Moves a checked file to where a release's artifact lives; same file system, so atomic. */
    async publish(from: string, storageKey: string) {
      const to = join(root, storageKey);
      await ensureDir(to);
      await rename(from, to);
      return to;
    },

    /** Puts a published file back where it came from, when its row could not be written. */
    async unpublish(storageKey: string, to: string) {
      const from = join(root, storageKey);
      await rename(from, to).catch(() => rm(from, { force: true }));
    },

    remove: (path: string) => rm(path, { force: true }),

    read: (storageKey: string, range: { start: number; end: number }) =>
      createReadStream(join(root, storageKey), { start: range.start, end: range.end }),
  };
}

export type ReleaseFiles = ReturnType<typeof createReleaseFiles>;
