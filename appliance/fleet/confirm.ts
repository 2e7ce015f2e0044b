import { readdir, rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import { type CheckResult, failureReason } from './health-check.ts';
import {
  type InstallState,
  installPaths,
  pointCurrentAt,
  readInstallState,
  writeInstallState,
} from './install-state.ts';

/** Removes every installed version but those named. */
async function pruneVersions(dataDir: string, keep: Array<string | undefined>, log: Logger) {
  const { versions, version } = installPaths(dataDir);
  const removed: string[] = [];
  for (const name of await readdir(versions).catch(() => [] as string[])) {
    if (keep.includes(name)) continue;
    await rm(version(name), { recursive: true, force: true });
    removed.push(name);
  }
  if (removed.length > 0) log.info({ removed }, 'older versions removed');
}

/**
 * At start, after the API listens: a version the updater switched to confirms itself once it runs
 * and passes its in-process checks (older versions are then removed: the running one and the one
 * before it stay, for the launcher to go back to); one that fails them goes back to the version
 * before and asks for a restart into it. A version taken back is logged once, and stays recorded
 * for the cloud to read.
 */
export async function settleInstall(deps: {
  dataDir: string;
  runningVersion: string;
  check: () => Promise<CheckResult[]>;
  clock: Clock;
  log: Logger;
  restart: () => void;
}): Promise<'confirmed' | 'reverted' | undefined> {
  const { dataDir, log } = deps;
  const state: InstallState = await readInstallState(dataDir);
  let reverted = state.reverted;
  if (reverted && !reverted.noticed_at) {
    log.warn({ reverted }, 'an update was taken back');
    reverted = { ...reverted, noticed_at: deps.clock.now().toISOString() };
    await writeInstallState(dataDir, { confirming: state.confirming, reverted });
  }
  const confirming = state.confirming;
  if (!confirming || confirming.version !== deps.runningVersion) return undefined;
  const checks = await deps.check();
  if (checks.every((check) => check.ok)) {
    await writeInstallState(dataDir, { confirming: null, reverted });
    log.info({ version: confirming.version, previous: confirming.previous ?? null }, 'update confirmed');
    await pruneVersions(dataDir, [confirming.version, confirming.previous], log);
    return 'confirmed';
  }
  const reason = failureReason({ healthy: false, version: confirming.version, checks });
  const at = deps.clock.now().toISOString();
  await pointCurrentAt(dataDir, confirming.previous);
  await writeInstallState(dataDir, {
    confirming: null,
    reverted: { version: confirming.version, previous: confirming.previous, reason, at, noticed_at: at },
  });
  log.error(
    { version: confirming.version, checks },
    'update failed its checks after the restart; going back',
  );
  deps.restart();
  return 'reverted';
}
