import { createPublicKey, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import {
  manifestProblem,
  type SignedUpdate,
  type TrustedKeys,
  trustedKeys,
  updateKeyId,
} from '../../shared/devices/update-manifest.ts';
import { checkVersion } from './check-process.ts';
import { ArchiveMismatchError, downloadArchive } from './download.ts';
import { failureReason, type HealthReport } from './health-check.ts';
import {
  currentVersion,
  installPaths,
  pointCurrentAt,
  readInstallState,
  writeInstallState,
} from './install-state.ts';
import { unpackRelease } from './unpack.ts';

/**
 * Over-the-air updates, A/B style (install-state.ts has the layout). An update is refused before
 * a byte is fetched when its manifest is not signed by a trusted update key, or when the disk
 * cannot hold it; its archive is downloaded into a part file that survives restarts (the next
 * command for the same archive resumes it), checked against the manifest's SHA-256, unpacked into
 * `versions/<version>`, and the new version then checks itself in a process of its own on a copy
 * of the store's data. Only a healthy version is switched to; it confirms itself after the restart.
 */
export type UpdateOutcome =
  | { state: 'applied'; version: string; previous: string | undefined }
  | { state: 'rolled_back'; version: string; previous: string | undefined; reason: string }
  | { state: 'refused'; version: string; reason: string }
  | { state: 'failed'; version: string; reason: string }
  | { state: 'cancelled'; version: string };

export interface UpdateProgress {
  version: string;
  /** Bytes of the archive on disk, those of an earlier attempt included. */
  received: number;
  total: number;
}

/** What the free-disk check reads; fs.statfs's fields. */
export type DiskSpaceReader = (path: string) => Promise<{ bavail: number; bsize: number }>;

export interface UpdaterOptions {
  dataDir: string;
  /** The configured update key; keys it endorses (directly or down a chain) are trusted too. */
  publicKey: KeyObject | string;
  /** The version running now (its bundle's package.json): an update to it has nothing to do. */
  runningVersion: string;
  /** The environment the appliance was configured from: the new version's check runs with it. */
  env: Record<string, string | undefined>;
  clock: Clock;
  log: Logger;
  onProgress?: ((progress: UpdateProgress) => void) | undefined;
  statfs?: DiskSpaceReader | undefined;
  /** How long the new version's check may take before it is killed (60 s). */
  checkTimeoutMs?: number | undefined;
}

/** Room left over on top of what an update is known to need. */
export const DISK_MARGIN_BYTES = 64 * 1024 * 1024;

const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const sizeOf = (file: string) =>
  stat(file).then(
    (stats) => stats.size,
    () => 0,
  );

export function createUpdater(options: UpdaterOptions) {
  const { dataDir, log } = options;
  const paths = installPaths(dataDir);
  const now = () => options.clock.now().toISOString();
  let busy: string | undefined;

  /** The configured key and those learned from endorsements since. */
  async function trusted(): Promise<TrustedKeys> {
    const keys = trustedKeys([options.publicKey]);
    const saved = await readFile(paths.trustedKeys, 'utf8')
      .then((text) => JSON.parse(text) as { keys?: Array<{ key_id: string; public_key: string }> })
      .catch(() => ({ keys: [] }));
    for (const { key_id, public_key } of saved.keys ?? []) {
      try {
        const key = createPublicKey(public_key);
        if (updateKeyId(key) === key_id) keys.set(key_id, key);
      } catch {
        log.warn({ key_id }, 'a learned update key in trusted-keys.json is not a public key; ignored');
      }
    }
    return keys;
  }

  /** Learned keys only: the configured one comes from the configuration, which may change it. */
  async function saveLearned(keys: TrustedKeys) {
    const configured = updateKeyId(options.publicKey);
    const learned = [...keys]
      .filter(([id]) => id !== configured)
      .map(([key_id, key]) => ({
        key_id,
        public_key: key.export({ type: 'spki', format: 'pem' }).toString(),
      }));
    await mkdir(paths.root, { recursive: true });
    await writeFile(`${paths.trustedKeys}.tmp`, JSON.stringify({ keys: learned }, null, 2));
    await rename(`${paths.trustedKeys}.tmp`, paths.trustedKeys);
  }

  /** Why the manifest is refused; a newly endorsed key is kept only once a manifest is accepted. */
  async function accept(update: SignedUpdate) {
    const keys = await trusted();
    const known = keys.size;
    const problem = manifestProblem(update, keys);
    if (!problem && keys.size > known) {
      await saveLearned(keys);
      log.info({ keys: [...keys.keys()] }, 'update keys learned from an endorsement');
    }
    return problem;
  }

  /** Why the disk cannot take the update, or undefined when it can. */
  async function diskShortfall(update: SignedUpdate, part: string) {
    const remaining = update.size - Math.min(update.size, await sizeOf(part));
    const databases = (await readdir(dataDir).catch(() => [] as string[]))
      .filter((name) => /\.sqlite(-wal)?$/.test(name))
      .map((name) => sizeOf(join(dataDir, name)));
    const scratch = (await Promise.all(databases)).reduce((sum, size) => sum + size, 0);
    const needed = remaining + 3 * update.size + scratch + DISK_MARGIN_BYTES;
    const disk = await (options.statfs ?? statfs)(paths.root);
    const free = disk.bavail * disk.bsize;
    if (free >= needed) return undefined;
    return (
      `not enough free disk: the update needs ${needed} bytes (${megabytes(needed)}) under ${paths.root}, ` +
      `${free} bytes (${megabytes(free)}) are free; that is the download left (${remaining}), 3 × the ` +
      `archive to unpack it (${3 * update.size}), a copy of the store's databases for its check ` +
      `(${scratch}) and ${DISK_MARGIN_BYTES} to spare`
    );
  }

  /** Download, digest and unpack; answers an outcome only when the update ends here. */
  async function fetchAndUnpack(
    update: SignedUpdate,
    signal: AbortSignal | undefined,
    onProgress: ((progress: UpdateProgress) => void) | undefined,
  ): Promise<UpdateOutcome | undefined> {
    const { version } = update;
    await mkdir(paths.downloads, { recursive: true });
    const part = join(paths.downloads, `${update.sha256}.part`);
    const shortfall = await diskShortfall(update, part);
    if (shortfall) {
      log.warn({ version, reason: shortfall }, 'update refused');
      return { state: 'refused', version, reason: shortfall };
    }
    try {
      await downloadArchive({
        url: update.url,
        size: update.size,
        sha256: update.sha256,
        part,
        signal,
        log,
        onProgress: (received) => onProgress?.({ version, received, total: update.size }),
      });
    } catch (error) {
      if (signal?.aborted) return { state: 'cancelled', version };
      const reason = (error as Error).message;
      // A network failure keeps the part for the next attempt; wrong bytes were already thrown away.
      log.warn({ version, reason, kept: !(error instanceof ArchiveMismatchError) }, 'update download failed');
      return { state: 'failed', version, reason };
    }
    try {
      const release = await unpackRelease(part, paths.version(version), version);
      log.info({ version, commit: release.commit ?? null }, 'update unpacked');
    } catch (error) {
      const reason = (error as Error).message;
      log.warn({ version, reason }, 'update archive refused');
      return { state: 'failed', version, reason };
    } finally {
      // Unpacked, or refused for what it holds (which a new download would not change).
      await rm(part, { force: true });
    }
    return undefined;
  }

  async function check(version: string): Promise<HealthReport> {
    try {
      return await checkVersion({
        dataDir,
        versionDir: paths.version(version),
        version,
        env: options.env,
        timeoutMs: options.checkTimeoutMs,
      });
    } catch (error) {
      const detail = `the check could not be prepared: ${(error as Error).message}`;
      return { healthy: false, version, checks: [{ name: 'prepare', ok: false, detail }] };
    }
  }

  /** Switches to a version that passed its check; a version that failed it is never switched to. */
  async function checkAndSwitch(version: string, previous: string | undefined): Promise<UpdateOutcome> {
    const report = await check(version);
    const { reverted } = await readInstallState(dataDir);
    if (!report.healthy) {
      const reason = failureReason(report);
      await writeInstallState(dataDir, {
        confirming: null,
        reverted: { version, previous, reason, at: now() },
      });
      await rm(paths.version(version), { recursive: true, force: true });
      log.warn(
        { version, previous, checks: report.checks },
        'update failed its health check; kept the running version',
      );
      return { state: 'rolled_back', version, previous, reason };
    }
    // Confirming first: a stop between the two writes leaves a state recover() settles.
    await writeInstallState(dataDir, { confirming: { version, previous, boots: 0 }, reverted });
    await pointCurrentAt(dataDir, version);
    log.info({ version, previous, checks: report.checks }, 'update passed its health check; switched to it');
    return { state: 'applied', version, previous };
  }

  async function install(
    update: SignedUpdate,
    signal: AbortSignal | undefined,
    onProgress: ((progress: UpdateProgress) => void) | undefined,
  ): Promise<UpdateOutcome> {
    const { version } = update;
    const previous = await currentVersion(dataDir);
    // Already there: nothing to install, nothing to restart into.
    if (version === (previous ?? options.runningVersion))
      return { state: 'applied', version, previous: version };
    // Unpacked by an earlier attempt that stopped before its check: only the check is left.
    if (!existsSync(paths.version(version))) {
      const ended = await fetchAndUnpack(update, signal, onProgress);
      if (ended) return ended;
    }
    if (signal?.aborted) return { state: 'cancelled', version };
    return checkAndSwitch(version, previous);
  }

  return {
    current: () => currentVersion(dataDir),

    /** `onProgress` (this apply's) takes the place of the updater's own. */
    async apply(
      update: SignedUpdate,
      signal?: AbortSignal,
      onProgress: ((progress: UpdateProgress) => void) | undefined = options.onProgress,
    ): Promise<UpdateOutcome> {
      const problem = await accept(update);
      if (problem) {
        log.warn({ version: update.version, problem }, 'update refused');
        return { state: 'refused', version: update.version, reason: problem };
      }
      if (busy)
        return { state: 'failed', version: update.version, reason: `an update to ${busy} is in progress` };
      busy = update.version;
      try {
        return await install(update, signal, onProgress);
      } finally {
        busy = undefined;
      }
    },

    /**
     * At start-up: scratch copies and half-unpacked folders a stop left behind are removed, and a
     * switch cut short between its two writes (confirming written, `current` not yet moved) is
     * dropped; the command that asked for it failed with the stop, and the cloud sends it again.
     */
    async recover(): Promise<UpdateOutcome | undefined> {
      await rm(paths.checks, { recursive: true, force: true });
      for (const name of await readdir(paths.versions).catch(() => [] as string[]))
        if (name.endsWith('.partial')) await rm(join(paths.versions, name), { recursive: true, force: true });
      const state = await readInstallState(dataDir);
      const switching = state.confirming;
      if (!switching || switching.version === options.runningVersion) return undefined;
      if (switching.version === (await currentVersion(dataDir))) return undefined;
      await writeInstallState(dataDir, { confirming: null, reverted: state.reverted });
      const reason =
        'the appliance stopped before it switched to the checked version; the update can be sent again';
      return { state: 'failed', version: switching.version, reason };
    },
  };
}

export type Updater = ReturnType<typeof createUpdater>;
