/**
 * Where installed releases live under the data directory, and the state the updater and the
 * launcher hand each other across restarts:
 *
 *   <data>/updates/versions/<version>/   an unpacked release (its own dist/, node_modules/, models/)
 *   <data>/updates/current               symlink to versions/<version>, swapped by rename
 *   <data>/updates/downloads/            partial downloads, kept across restarts to resume
 *   <data>/updates/checks/               scratch copies of the store's data for health checks
 *   <data>/updates/trusted-keys.json     update keys learned from endorsements
 *   <data>/updates/state.json            this file's InstallState
 *
 * The updater switches `current` only after the new version passed its health check, and leaves
 * `confirming` behind; the launcher counts the starts of an unconfirmed version and goes back to
 * the previous one when it never confirms, so a version that cannot even start is undone too.
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';
import { mkdir, readFile, readlink, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export interface InstallState {
  /** Switched to `version`; it confirms once it has started and checked itself. */
  confirming: { version: string; previous: string | undefined; boots: number } | null;
  /** The last version taken back, and why; the appliance reports it at its next start. */
  reverted: {
    version: string;
    previous: string | undefined;
    reason: string;
    at: string;
    /** When the running appliance logged it; it stays for the cloud to read. */
    noticed_at?: string | undefined;
  } | null;
}

/** Starts of an unconfirmed version before the launcher gives up on it. */
export const MAX_UNCONFIRMED_BOOTS = 2;

export function installPaths(dataDir: string) {
  const root = join(dataDir, 'updates');
  return {
    root,
    current: join(root, 'current'),
    versions: join(root, 'versions'),
    version: (version: string) => join(root, 'versions', version),
    downloads: join(root, 'downloads'),
    checks: join(root, 'checks'),
    trustedKeys: join(root, 'trusted-keys.json'),
    stateFile: join(root, 'state.json'),
  };
}

const EMPTY: InstallState = { confirming: null, reverted: null };

export async function readInstallState(dataDir: string): Promise<InstallState> {
  const text = await readFile(installPaths(dataDir).stateFile, 'utf8').catch(() => undefined);
  if (!text) return { ...EMPTY };
  try {
    return { ...EMPTY, ...(JSON.parse(text) as Partial<InstallState>) };
  } catch {
    return { ...EMPTY };
  }
}

/** Written whole and flushed before the rename: a power cut leaves the old state or the new. */
export async function writeInstallState(dataDir: string, state: InstallState) {
  const { root, stateFile } = installPaths(dataDir);
  await mkdir(root, { recursive: true });
  const temporary = `${stateFile}.tmp`;
  await writeFile(temporary, JSON.stringify(state));
  const fd = openSync(temporary, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  await rename(temporary, stateFile);
}

/** The version `current` points at, or undefined when the appliance runs the build it was installed with. */
export async function currentVersion(dataDir: string): Promise<string | undefined> {
  const target = await readlink(installPaths(dataDir).current).catch(() => undefined);
  return target?.split('/').at(-1);
}

/** Points `current` at `version` (undefined: at nothing, the installed build) in one rename. */
export async function pointCurrentAt(dataDir: string, version: string | undefined) {
  const { current, root } = installPaths(dataDir);
  if (version === undefined) return rm(current, { force: true });
  await mkdir(root, { recursive: true });
  const next = `${current}.next`;
  await rm(next, { force: true });
  await symlink(join('versions', version), next);
  await rename(next, current);
}
