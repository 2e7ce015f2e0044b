/**
 * What the snapshots dir holds, read without following links: only `<YYYY-MM-DD>/<camera>/*.jpg`
 * counts as a snapshot, so a file someone else left in the dir (or a link out of it) is neither
 * counted against the budget nor ever deleted. Entries vanishing mid-walk (a concurrent purge) are
 * skipped, and a missing dir reads as empty.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

export interface StoredFile {
  file: string;
  /** The day folder's name, `YYYY-MM-DD`. */
  day: string;
  bytes: number;
  mtimeMs: number;
}

export interface Scan {
  snapshots: StoredFile[];
  /** Temporary files of writes in progress, or left by a crash mid-write. */
  parts: StoredFile[];
}

const DAY_FOLDER = /^\d{4}-\d{2}-\d{2}$/;

export async function scanSnapshots(root: string): Promise<Scan> {
  const scan: Scan = { snapshots: [], parts: [] };
  for (const day of await directories(root)) {
    if (!DAY_FOLDER.test(day)) continue;
    for (const camera of await directories(join(root, day))) {
      await scanCamera(join(root, day, camera), day, scan);
    }
  }
  return scan;
}

async function scanCamera(dir: string, day: string, scan: Scan) {
  for (const entry of await entries(dir)) {
    if (!entry.isFile()) continue;
    const list = entry.name.endsWith('.jpg')
      ? scan.snapshots
      : entry.name.endsWith('.part')
        ? scan.parts
        : null;
    if (!list) continue;
    const file = join(dir, entry.name);
    const stats = await lstat(file).catch(ignoreMissing);
    if (stats?.isFile()) list.push({ file, day, bytes: stats.size, mtimeMs: stats.mtimeMs });
  }
}

async function directories(dir: string): Promise<string[]> {
  return (await entries(dir)).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

async function entries(dir: string): Promise<Dirent[]> {
  return (await readdir(dir, { withFileTypes: true }).catch(ignoreMissing)) ?? [];
}

export function ignoreMissing(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
  throw error;
}
