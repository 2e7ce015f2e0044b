/**
 * Object storage for `/static/*`: one interface, a backend per file (a directory on disk, or an
 * S3-compatible bucket), chosen by the edge's config.
 */
import type { Readable } from 'node:stream';
import type { StorageConfig } from '../config.ts';
import { createDiskStore } from './disk.ts';
import { createS3Store } from './s3.ts';

export interface StoredObject {
  /** The object's bytes; the caller destroys it when it sends no body (HEAD, 304). */
  stream: Readable;
  contentType: string;
  /** A quoted entity tag, as it goes on the wire. */
  etag: string;
  size: number;
}

export interface ObjectStore {
  /** undefined when there is no such object (the router answers 404). */
  get(key: string): Promise<StoredObject | undefined>;
  /** For tools and tests: stores bytes under a key, typed by its extension. */
  put(key: string, body: Buffer | string): Promise<void>;
  close(): Promise<void>;
}

export function createObjectStore(config: StorageConfig): ObjectStore {
  return config.kind === 'disk' ? createDiskStore(config.dir) : createS3Store(config);
}
