import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import { releaseNotFound } from './errors.ts';
import type { ReleaseFiles } from './files.ts';
import type { UpdateKeys } from './keys.ts';
import { release } from './store.ts';

export interface ReleaseOptions {
  /** The largest archive an upload may carry (413 beyond). */
  maxBytes: number;
  /** How long a resumable upload stays open from its creation. */
  uploadTtlSeconds: number;
}

export const DEFAULT_RELEASE_OPTIONS: ReleaseOptions = {
  maxBytes: 1024 * 1024 * 1024,
  uploadTtlSeconds: 86_400,
};

/** What every part of the release service shares. */
export interface ReleaseContext {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: ReleaseOptions;
  files: ReleaseFiles;
  keys: UpdateKeys;
}

export const nowIso = (context: ReleaseContext) => context.clock.now().toISOString();

/** The tenant's release, or RELEASE_NOT_FOUND: another tenant's release does not exist for the caller. */
export async function requireRelease(context: ReleaseContext, tenantId: string, releaseId: string) {
  const row = await release(context.store.db, tenantId, releaseId);
  if (!row) throw releaseNotFound();
  return row;
}
