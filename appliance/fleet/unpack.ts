import { access, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { posix } from 'node:path';
import { extract, type ReadEntry } from 'tar';

/**
 * A release archive unpacked into its version's folder. The archive's digest was checked, but
 * the check only says the cloud published it: unpacking still refuses anything that would write
 * outside the folder (absolute paths, `..`, links that lead out) and anything that is not a plain
 * file, folder or link (device files, FIFOs). It unpacks beside the target and is renamed into
 * place whole, so `versions/<version>` only ever holds a complete release.
 */
export interface ReleaseInfo {
  format: number;
  version: string;
  commit?: string;
  created_at?: string;
  platform?: string;
  arch?: string;
  node_abi?: string;
}

/** What a release must hold for the launcher and the health check to run it. */
const ENTRY = 'dist/appliance.mjs';

const ALLOWED = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link']);

const leavesRoot = (path: string) => path === '..' || path.startsWith('../');

/** Why an entry may not be unpacked, or undefined when it is harmless. */
export function entryProblem(path: string, entry: Pick<ReadEntry, 'type' | 'linkpath'>): string | undefined {
  if (posix.isAbsolute(path) || /^[A-Za-z]:/.test(path)) return `an absolute path (${path})`;
  if (path.split(/[\\/]/).includes('..')) return `a path with .. (${path})`;
  if (entry.type === 'CharacterDevice' || entry.type === 'BlockDevice' || entry.type === 'FIFO')
    return `a device file (${path})`;
  if (!ALLOWED.has(entry.type)) return `an entry of type ${entry.type} (${path})`;
  if (entry.type !== 'SymbolicLink' && entry.type !== 'Link') return undefined;
  const target = entry.linkpath ?? '';
  if (posix.isAbsolute(target)) return `a link to an absolute path (${path} -> ${target})`;
  // A symbolic link resolves from its own folder; a hard link names a path from the archive's root.
  const from = entry.type === 'SymbolicLink' ? posix.dirname(posix.normalize(path)) : '.';
  if (leavesRoot(posix.normalize(posix.join(from, target))))
    return `a link pointing outside the release (${path} -> ${target})`;
  return undefined;
}

async function readRelease(dir: string): Promise<ReleaseInfo> {
  const text = await readFile(posix.join(dir, 'release.json'), 'utf8').catch(() => undefined);
  if (text === undefined) throw new Error('the archive holds no release.json');
  let release: ReleaseInfo;
  try {
    release = JSON.parse(text) as ReleaseInfo;
  } catch {
    throw new Error('the archive’s release.json is not JSON');
  }
  if (release.format !== 1) throw new Error(`the archive’s release.json is format ${release.format}, not 1`);
  return release;
}

/** Unpacks `archive` into `target` (which must not exist yet); answers the release's own description. */
export async function unpackRelease(archive: string, target: string, version: string): Promise<ReleaseInfo> {
  const partial = `${target}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  try {
    const refused: string[] = [];
    await extract({
      file: archive,
      cwd: partial,
      strict: true,
      // Files belong to the appliance's user, whoever owned them where the release was built.
      preserveOwner: false,
      filter: (path, entry) => {
        const problem = entryProblem(path, entry as ReadEntry);
        if (problem) refused.push(problem);
        return problem === undefined;
      },
    });
    if (refused.length > 0)
      throw new Error(
        `the archive was refused: it holds ${refused[0]}${refused.length > 1 ? ` and ${refused.length - 1} more` : ''}`,
      );
    const release = await readRelease(partial);
    if (release.version !== version)
      throw new Error(`the archive is version ${release.version}, its manifest says ${version}`);
    await access(posix.join(partial, ENTRY)).catch(() => {
      throw new Error(`the archive holds no ${ENTRY}`);
    });
    await rename(partial, target);
    return release;
  } catch (error) {
    await rm(partial, { recursive: true, force: true });
    throw error;
  }
}
