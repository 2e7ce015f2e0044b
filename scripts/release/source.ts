/** The commit a release is built from, and whether the checkout holds changes to what goes into it. */
import { execFileSync } from 'node:child_process';

export interface SourceCommit {
  commit: string;
  /** Committer time in seconds since the epoch: the release's time, the same on every rebuild. */
  time: number;
  /** Changed or new files among RELEASE_INPUTS; the archive then is not the commit's. */
  dirty: boolean;
}

/**
 * What a release is made of, besides node_modules (installed from package-lock.json): the sources
 * bundled and the kiosk UI's, the models, and the build that turns them into the archive.
 */
export const RELEASE_INPUTS = [
  'appliance',
  'shared',
  'models',
  'scripts/build.ts',
  'scripts/release.ts',
  'scripts/release',
  'scripts/kiosk/build-ui.ts',
  'scripts/web-build.ts',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
] as const;

const git = (root: string, args: string[]) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

export function sourceCommit(root: string): SourceCommit {
  let commit: string;
  try {
    commit = git(root, ['rev-parse', '--verify', 'HEAD']);
  } catch {
    throw new Error(`a release is built from a git checkout with a commit; ${root} has none`);
  }
  const time = Number(git(root, ['show', '-s', '--format=%ct', commit]));
  const changes = git(root, ['status', '--porcelain', '--untracked-files=all', '--', ...RELEASE_INPUTS]);
  return { commit, time, dirty: changes !== '' };
}
