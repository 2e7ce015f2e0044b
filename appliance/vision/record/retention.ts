/**
 * The snapshots on disk: written through here so the disk budget holds, kept for
 * `video_retention_days` (whole day folders, and any file by its mtime), and the oldest deleted
 * first when the budget is exceeded. Everything deleted is checked to lie inside the dir.
 */
import { rmdir, unlink } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import cron from 'node-cron';
import type { Logger } from 'pino';
import type { Clock } from '../../../shared/clock.ts';
import { isWithin } from './paths.ts';
import { ignoreMissing, type StoredFile, scanSnapshots } from './scan.ts';
import {
  encodeSnapshot,
  type RawImage,
  type SnapshotBox,
  type SnapshotKind,
  snapshotName,
  type WrittenSnapshot,
  writeJpeg,
} from './snapshot.ts';

export interface SnapshotStoreOptions {
  dir: string;
  /** The edge device's `video_retention_days`. */
  retentionDays: number;
  budgetBytes: number;
  /**
   * Over budget, delete down to this share of it, so the next few snapshots do not each set off a
   * scan of the whole dir.
   */
  lowWater?: number | undefined;
  quality?: number | undefined;
  clock: Clock;
  log: Logger;
}

export interface SaveSnapshot {
  frame: RawImage;
  boxes: readonly SnapshotBox[];
  cameraId: string;
  kind: SnapshotKind;
  /** When the frame was captured; now by default. */
  at?: Date | undefined;
}

export interface Removed {
  files: number;
  bytes: number;
}

export interface Usage {
  bytes: number;
  files: number;
  /** The oldest snapshot's mtime. */
  oldest: Date | undefined;
}

const DAY_MS = 86_400_000;
/** A `.part` this old belongs to no write still running (one takes milliseconds): a crash left it. */
const STALE_PART_MS = 3_600_000;

export type SnapshotStore = ReturnType<typeof createSnapshotStore>;

export function createSnapshotStore(options: SnapshotStoreOptions) {
  const { retentionDays, budgetBytes, clock } = options;
  if (!(retentionDays >= 0)) throw new Error('retentionDays must be 0 or more');
  if (!(budgetBytes > 0)) throw new Error('budgetBytes must be positive');
  const root = resolve(options.dir);
  const lowWater = budgetBytes * (options.lowWater ?? 0.9);
  const log = options.log.child({ module: 'vision-snapshots' });
  // Bytes on disk as of the last scan plus what was written since; undefined until the first scan.
  let used: number | undefined;
  let running = Promise.resolve();

  /** Purges and budget sweeps one at a time; writes go on meanwhile. */
  function exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = running.then(work);
    running = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  async function remove(files: readonly StoredFile[]): Promise<Removed> {
    const removed: Removed = { files: 0, bytes: 0 };
    const dirs = new Set<string>();
    for (const { file, bytes } of files) {
      if (!isWithin(root, file) || resolve(file) === root) continue;
      const gone = await unlink(file).then(() => true, ignoreMissing);
      dirs.add(dirname(file));
      if (!gone) continue;
      removed.files += 1;
      removed.bytes += bytes;
    }
    await removeEmptyFolders(dirs);
    return removed;
  }

  /** Camera folders, then their day folders, once empty; a folder a write just refilled stays. */
  async function removeEmptyFolders(dirs: Set<string>) {
    const days = new Set<string>();
    for (const dir of dirs) {
      if (await removeIfEmpty(dir)) days.add(dirname(dir));
    }
    for (const day of days) await removeIfEmpty(day);
  }

  async function removeIfEmpty(dir: string): Promise<boolean> {
    if (!isWithin(root, dir) || resolve(dir) === root) return false;
    return rmdir(dir).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code === 'ENOENT',
    );
  }

  function purge(): Promise<Removed> {
    return exclusive(async () => {
      const now = clock.now().getTime();
      const cutoff = now - retentionDays * DAY_MS;
      const { snapshots, parts } = await scanSnapshots(root);
      const expired = snapshots.filter((s) => dayEnd(s.day) <= cutoff || s.mtimeMs < cutoff);
      const stale = parts.filter((p) => p.mtimeMs < now - STALE_PART_MS);
      const removed = await remove([...expired, ...stale]);
      used = sum(snapshots) - sum(expired);
      if (removed.files > 0) log.info({ ...removed, retentionDays }, 'expired snapshots removed');
      return removed;
    });
  }

  function enforceBudget(): Promise<Removed> {
    return exclusive(async () => {
      const { snapshots } = await scanSnapshots(root);
      let total = sum(snapshots);
      const doomed: StoredFile[] = [];
      const oldestFirst = snapshots.sort((a, b) => a.mtimeMs - b.mtimeMs || a.file.localeCompare(b.file));
      if (total > budgetBytes) {
        // Down to the low-water mark, sparing the newest unless it alone is over the budget.
        for (const snapshot of oldestFirst) {
          const last = doomed.length === oldestFirst.length - 1;
          if (total <= lowWater || (last && total <= budgetBytes)) break;
          doomed.push(snapshot);
          total -= snapshot.bytes;
        }
      }
      const removed = await remove(doomed);
      used = total;
      if (removed.files > 0)
        log.warn({ ...removed, budgetBytes }, 'snapshot disk budget exceeded; oldest removed');
      return removed;
    });
  }

  async function save(input: SaveSnapshot): Promise<WrittenSnapshot | undefined> {
    const jpeg = await encodeSnapshot(input.frame, input.boxes, { quality: options.quality });
    if (jpeg.length > budgetBytes) {
      log.warn(
        { bytes: jpeg.length, budgetBytes, cameraId: input.cameraId },
        'snapshot over the disk budget; not written',
      );
      return undefined;
    }
    const at = input.at ?? clock.now();
    const written = await writeJpeg(root, snapshotName(input.cameraId, at, input.kind), jpeg);
    if (used !== undefined) used += written.bytes;
    if (used === undefined || used > budgetBytes) {
      await enforceBudget().catch((error: unknown) =>
        log.warn({ err: error }, 'snapshot budget sweep failed'),
      );
    }
    return written;
  }

  async function usage(): Promise<Usage> {
    const { snapshots } = await scanSnapshots(root);
    const oldest = snapshots.reduce((min, s) => Math.min(min, s.mtimeMs), Number.POSITIVE_INFINITY);
    return {
      bytes: sum(snapshots),
      files: snapshots.length,
      oldest: snapshots.length ? new Date(oldest) : undefined,
    };
  }

  return { dir: root, save, purge, enforceBudget, usage };
}

const dayEnd = (day: string) => Date.parse(`${day}T00:00:00.000Z`) + DAY_MS;
const sum = (files: readonly StoredFile[]) => files.reduce((total, f) => total + f.bytes, 0);

/**
 * Purge, then the budget, on a cron schedule (hourly by default) and once now: an appliance that
 * restarts often would otherwise keep missing its hour. Returns the stop function.
 */
export function scheduleRetention(store: SnapshotStore, log: Logger, expression = '7 * * * *') {
  const sweep = () =>
    store
      .purge()
      .then(() => store.enforceBudget())
      .catch((error: unknown) =>
        log.warn({ err: error }, 'snapshot retention sweep failed; retried next run'),
      );
  const task = cron.schedule(expression, sweep);
  void sweep();
  return () => void task.stop();
}
