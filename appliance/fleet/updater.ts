import { createHash, type KeyObject } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { request } from 'undici';
import { manifestProblem, type SignedUpdate } from '../../shared/devices/update-manifest.ts';

/**
 * Over-the-air updates, A/B style: each version lives in `versions/<version>/`, and `current` is a
 * symlink swapped atomically (rename over it). An update is refused before a byte is fetched when
 * its manifest is not signed by the cloud's update key, and after the download when the bytes are
 * not the ones the manifest pins. Once switched, the new version must pass a health check, or the
 * link goes back to the previous version. The state file records an apply in progress, so an
 * appliance that dies mid-apply finishes or undoes it when it starts again.
 */
export type UpdateOutcome =
  | { state: 'applied'; version: string; previous: string | undefined }
  | { state: 'rolled_back'; version: string; previous: string | undefined; reason: string }
  | { state: 'refused'; version: string; reason: string }
  | { state: 'failed'; version: string; reason: string }
  | { state: 'cancelled'; version: string };

export interface UpdateProgress {
  version: string;
  received: number;
  total: number;
}

export interface UpdaterOptions {
  dir: string;
  publicKey: KeyObject | string;
  /** Does the version in this folder work? (The runtime starts it and asks its /health.) */
  healthCheck: (versionDir: string, version: string) => Promise<boolean>;
  onProgress?: (progress: UpdateProgress) => void;
  log: Logger;
}

interface ApplyingState {
  applying: { version: string; previous: string | undefined } | null;
}

export function createUpdater(options: UpdaterOptions) {
  const { dir, log } = options;
  const currentLink = join(dir, 'current');
  const stateFile = join(dir, 'state.json');
  const versionDir = (version: string) => join(dir, 'versions', version);

  async function current(): Promise<string | undefined> {
    const target = await readlink(currentLink).catch(() => undefined);
    return target?.split('/').at(-1);
  }

  async function pointAt(version: string | undefined) {
    if (version === undefined) return rm(currentLink, { force: true });
    const next = `${currentLink}.next`;
    await rm(next, { force: true });
    await symlink(join('versions', version), next);
    await rename(next, currentLink);
  }

  async function saveState(state: ApplyingState) {
    await writeFile(`${stateFile}.tmp`, JSON.stringify(state));
    await rename(`${stateFile}.tmp`, stateFile);
  }

  async function download(
    update: SignedUpdate,
    signal: AbortSignal | undefined,
    onProgress: ((progress: UpdateProgress) => void) | undefined,
  ) {
    const target = versionDir(update.version);
    await mkdir(target, { recursive: true });
    const part = join(target, 'artifact.part');
    const response = await request(update.url, { method: 'GET', signal: signal ?? null });
    if (response.statusCode !== 200) {
      await response.body.dump();
      throw new Error(`the artifact answered HTTP ${response.statusCode}`);
    }
    const digest = createHash('sha256');
    let received = 0;
    const body = response.body as unknown as Readable;
    body.on('data', (chunk: Buffer) => {
      received += chunk.length;
      digest.update(chunk);
      if (received > update.size) body.destroy(new Error('the artifact is larger than its manifest says'));
      onProgress?.({ version: update.version, received, total: update.size });
    });
    await pipeline(body, createWriteStream(part), { signal: signal ?? undefined });
    if (received !== update.size) throw new Error(`got ${received} bytes, the manifest says ${update.size}`);
    if (digest.digest('hex') !== update.sha256) throw new Error('the artifact does not match its SHA-256');
    await rename(part, join(target, 'artifact'));
  }

  /** Switches to `version`; keeps it only if it passes the health check. */
  async function switchTo(version: string, previous: string | undefined): Promise<UpdateOutcome> {
    await saveState({ applying: { version, previous } });
    await pointAt(version);
    const healthy = await options.healthCheck(versionDir(version), version).catch(() => false);
    if (!healthy) await pointAt(previous);
    await saveState({ applying: null });
    if (healthy) {
      log.info({ version, previous }, 'update applied');
      return { state: 'applied', version, previous };
    }
    log.warn({ version, previous }, 'update failed its health check; rolled back');
    return { state: 'rolled_back', version, previous, reason: 'the new version failed its health check' };
  }

  return {
    current,

    /** `onProgress` (this apply's) takes the place of the updater's own. */
    async apply(
      update: SignedUpdate,
      signal?: AbortSignal,
      onProgress: ((progress: UpdateProgress) => void) | undefined = options.onProgress,
    ): Promise<UpdateOutcome> {
      const problem = manifestProblem(update, options.publicKey);
      if (problem) {
        log.warn({ version: update.version, problem }, 'update refused');
        return { state: 'refused', version: update.version, reason: problem };
      }
      const previous = await current();
      if (previous === update.version) return { state: 'applied', version: update.version, previous };
      try {
        await download(update, signal, onProgress);
      } catch (error) {
        await rm(versionDir(update.version), { recursive: true, force: true });
        if (signal?.aborted) return { state: 'cancelled', version: update.version };
        const reason = (error as Error).message;
        log.warn({ version: update.version, reason }, 'update download failed');
        return { state: 'failed', version: update.version, reason };
      }
      return switchTo(update.version, previous);
    },

    /** At start-up: an apply cut short by a crash is checked again, and undone if it fails. */
    async recover(): Promise<UpdateOutcome | undefined> {
      const saved = (await readFile(stateFile, 'utf8').then(JSON.parse, () => ({
        applying: null,
      }))) as ApplyingState;
      if (!saved.applying) return undefined;
      return switchTo(saved.applying.version, saved.applying.previous);
    },
  };
}

export type Updater = ReturnType<typeof createUpdater>;
