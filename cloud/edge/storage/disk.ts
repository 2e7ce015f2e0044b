import { createReadStream } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { contentTypeOf } from './content-types.ts';
import type { ObjectStore } from './index.ts';

/**
 * Objects as files under one directory. The content type comes from the key's extension (a small
 * table; no sidecar files to keep in step). The ETag is the file's size, inode and modification
 * time in nanoseconds: rewriting the file changes it without reading every byte on every request.
 */
export function createDiskStore(dir: string): ObjectStore {
  const root = resolve(dir);
  // A key that resolves outside the root (`..`, an absolute path) is no object of ours.
  const pathOf = (key: string) => {
    const path = resolve(root, key);
    return path.startsWith(root + sep) ? path : undefined;
  };
  return {
    async get(key) {
      const path = pathOf(key);
      if (!path) return undefined;
      const stats = await stat(path, { bigint: true }).catch(() => undefined);
      if (!stats?.isFile()) return undefined;
      return {
        stream: createReadStream(path),
        contentType: contentTypeOf(key),
        etag: `"${stats.size.toString(36)}-${stats.ino.toString(36)}-${stats.mtimeNs.toString(36)}"`,
        size: Number(stats.size),
      };
    },
    async put(key, body) {
      const path = pathOf(key);
      if (!path) throw new RangeError(`Object key outside the store: ${key}`);
      await mkdir(dirname(path), { recursive: true });
      await writeFile(path, body);
    },
    async close() {},
  };
}
