import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import { createCatalog } from './catalog.ts';
import type { ReleaseContext, ReleaseOptions } from './context.ts';
import { createReleaseFiles } from './files.ts';
import { createUpdateKeys } from './keys.ts';
import { createManifests } from './manifests.ts';
import { createUploads } from './uploads.ts';

export interface ReleaseDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: ReleaseOptions;
  /** Where archives are kept: `<DATA_DIR>/releases`. */
  dir: string;
  /** CLOUD_PUBLIC_URL: the address in the artifact URLs of signed manifests. */
  publicUrl: string | undefined;
}

const SWEEP_MS = 3_600_000;

/**
 * Releases in the cloud in one service: update keys, the catalog, resumable uploads and signed
 * manifests. The routes call it; the rollout engine calls `signedManifest`.
 */
export function createReleases(deps: ReleaseDeps) {
  const log = deps.log.child({ module: 'releases' });
  const keys = createUpdateKeys({
    db: deps.store.db,
    isUniqueViolation: deps.store.isUniqueViolation,
    clock: deps.clock,
  });
  const files = createReleaseFiles(deps.dir);
  const context: ReleaseContext = { ...deps, log, files, keys };
  const catalog = createCatalog(context);
  const uploads = createUploads(context, catalog);
  const sweeper = createSweeper(deps.dir, uploads.sweep, log);
  return {
    keys: { list: keys.list, rotate: keys.rotate, ensureActive: keys.ensureActive },
    ...catalog,
    uploads,
    ...createManifests(context, deps.publicUrl),
    // Rollouts (rollouts.ts) are a service of their own beside this one: they read `get` and `signedManifest`.

    /** Makes the first update key if there is none, and sweeps expired uploads every hour. */
    async start() {
      await keys.ensureActive();
      sweeper.start();
    },
    close: () => sweeper.stop(),
  };
}

export type ReleaseService = ReturnType<typeof createReleases>;

// A one-shot upload the process died during leaves its file behind: gone after a day.
const INCOMING_MAX_AGE_MS = 86_400_000;

function createSweeper(dir: string, sweepUploads: () => Promise<number>, log: Logger) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  async function sweepIncoming() {
    const incoming = join(dir, '.incoming');
    for (const name of await readdir(incoming).catch(() => [] as string[])) {
      const path = join(incoming, name);
      const stats = await stat(path).catch(() => undefined);
      if (stats && Date.now() - stats.mtimeMs > INCOMING_MAX_AGE_MS) await rm(path, { force: true });
    }
  }
  const sweep = () => {
    running ??= Promise.all([sweepUploads(), sweepIncoming()])
      .then(() => undefined)
      .catch((error: unknown) => log.warn({ err: error }, 'release upload sweep failed'))
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  return {
    start() {
      if (timer) return;
      void sweep();
      timer = setInterval(sweep, SWEEP_MS);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
