/**
 * The launcher: what a supervisor (systemd, a container runtime) runs in a release instead of
 * dist/appliance.mjs. It starts the version an update pointed `current` at, else the build it was
 * installed with (its sibling appliance.mjs), as a child Node with the appliance's flags; starts it
 * again at once when it exits asking to (RESTART_EXIT_CODE: an update switched versions, or the
 * cloud asked), finding `current` afresh; and keeps the boot guard. A version switched to but not
 * yet confirmed (install-state.ts) gets MAX_UNCONFIRMED_BOOTS starts, crashes restarted, before the
 * launcher points `current` back at the version before it: a version that cannot even start is
 * undone without the cloud. Any other end of the child ends the launcher with the child's code,
 * for the supervisor to act on.
 *
 * It loads nothing from node_modules and only the install state from the appliance, so a release
 * whose packages are broken cannot keep the launcher from going back to the one before.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { constants, hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APPLIANCE_NODE_FLAGS, RESTART_EXIT_CODE } from '../process-codes.ts';
import {
  currentVersion,
  type InstallState,
  installPaths,
  MAX_UNCONFIRMED_BOOTS,
  pointCurrentAt,
  readInstallState,
  writeInstallState,
} from './install-state.ts';

/** APPLIANCE_DATA_DIR's default in appliance/config.ts (a test holds the two together). */
export const DEFAULT_DATA_DIR = './data/appliance';

type Level = 'info' | 'warn' | 'error';
export type LauncherLog = (level: Level, fields: Record<string, unknown>, msg: string) => void;

const PINO_LEVELS: Record<Level, number> = { info: 30, warn: 40, error: 50 };

/** One JSON line per entry, as pino writes them, so the appliance's log tools read both alike. */
export function jsonLog(write: (line: string) => void = (line) => process.stdout.write(line)): LauncherLog {
  const base = { pid: process.pid, hostname: hostname() };
  return (level, fields, msg) =>
    write(
      `${JSON.stringify({ level: PINO_LEVELS[level], time: Date.now(), ...base, module: 'launcher', ...fields, msg })}\n`,
    );
}

export interface LauncherOptions {
  dataDir: string;
  /** The appliance.mjs this launcher was installed beside: what runs when no update is current. */
  installed: string;
  /** Passed to the appliance after its script. */
  args: readonly string[];
  log: LauncherLog;
  now?: () => Date;
}

interface Target {
  version: string | undefined;
  script: string;
}

/**
 * The version's folder rather than the `current` link, so a switch during the start cannot mix two
 * versions; and its real path: the appliance runs only when its argv[1] is the path of its own
 * module, which Node takes through links (a data folder reached by a link would start nothing).
 */
async function target(options: LauncherOptions): Promise<Target> {
  const version = await currentVersion(options.dataDir);
  if (version === undefined) return { version, script: options.installed };
  const script = join(installPaths(options.dataDir).version(version), 'dist', 'appliance.mjs');
  if (existsSync(script)) return { version, script: realpathSync(script) };
  options.log(
    'warn',
    { version, script },
    'the current version holds no appliance; running the installed build',
  );
  return { version: undefined, script: options.installed };
}

/**
 * Counts this start of an unconfirmed version, or gives up on it. `current` goes back before the
 * state says so: a power cut between the two leaves `confirming` at its limit, and the next start
 * gives up again.
 */
async function guardBoot(options: LauncherOptions) {
  const { dataDir, log } = options;
  const state = await readInstallState(dataDir);
  const { confirming } = state;
  if (!confirming) return;
  const boots = confirming.boots + 1;
  if (boots <= MAX_UNCONFIRMED_BOOTS) {
    await writeInstallState(dataDir, { ...state, confirming: { ...confirming, boots } });
    log('info', { version: confirming.version, boots }, 'starting a version that has not confirmed yet');
    return;
  }
  await pointCurrentAt(dataDir, confirming.previous);
  const reverted: InstallState['reverted'] = {
    version: confirming.version,
    previous: confirming.previous,
    reason: `the new version did not start and confirm its health in ${MAX_UNCONFIRMED_BOOTS} tries`,
    at: (options.now?.() ?? new Date()).toISOString(),
  };
  await writeInstallState(dataDir, { ...state, confirming: null, reverted });
  log('warn', { version: confirming.version, previous: confirming.previous ?? null }, reverted.reason);
}

/** The exit code a shell would report: the child's own, or 128 + the signal that ended it. */
const exitCode = (code: number | null, signal: NodeJS.Signals | null) =>
  code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);

const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Runs the appliance until it ends for good; answers the code to exit with. The child gets a
 * process group of its own, so a terminal's Ctrl-C or a supervisor that signals the whole group
 * reaches it once, through the launcher, and not twice (the appliance's second SIGTERM is fatal).
 */
export async function runLauncher(options: LauncherOptions): Promise<number> {
  const { log } = options;
  let child: ChildProcess | undefined;
  let stoppedBy: NodeJS.Signals | undefined;
  const forward = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    log('info', { signal, child: child?.pid ?? null }, 'stopping');
    child?.kill(signal);
  };
  const killOrphan = () => child?.kill('SIGTERM');
  for (const signal of STOP_SIGNALS) process.on(signal, forward);
  process.on('exit', killOrphan);
  try {
    for (;;) {
      await guardBoot(options);
      const { version, script } = await target(options);
      if (stoppedBy) return 0;
      log('info', { version: version ?? null, script }, 'starting the appliance');
      const started = spawn(process.execPath, [...APPLIANCE_NODE_FLAGS, script, ...options.args], {
        stdio: 'inherit',
        detached: true,
      });
      child = started;
      const code = await ended(started, log);
      child = undefined;
      if (stoppedBy) return code;
      if (!(await startAgain(code, options))) return code;
    }
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, forward);
    process.off('exit', killOrphan);
  }
}

function ended(child: ChildProcess, log: LauncherLog) {
  return new Promise<number>((resolve) => {
    child.once('error', (error) => {
      log('error', { err: { message: error.message } }, 'the appliance could not be started');
      resolve(1);
    });
    child.once('exit', (code, signal) => resolve(exitCode(code, signal)));
  });
}

/** A restart asked for, or a crash of a version still proving itself; anything else is the supervisor's. */
async function startAgain(code: number, options: LauncherOptions) {
  if (code === RESTART_EXIT_CODE) {
    options.log('info', { code }, 'the appliance asked to be started again');
    return true;
  }
  if (code === 0) return false;
  const { confirming } = await readInstallState(options.dataDir);
  if (!confirming) return false;
  options.log(
    'warn',
    { code, version: confirming.version },
    'a version that has not confirmed yet exited; starting again',
  );
  return true;
}

async function main() {
  const code = await runLauncher({
    dataDir: process.env.APPLIANCE_DATA_DIR || DEFAULT_DATA_DIR,
    installed: fileURLToPath(new URL('./appliance.mjs', import.meta.url)),
    args: process.argv.slice(2),
    log: jsonLog(),
  });
  process.exit(code);
}

// Through realpath: a release is often reached by a link (/opt/edge-appliance), and the module's
// own URL is the real file's.
const invokedAs = process.argv[1] && existsSync(process.argv[1]) ? realpathSync(process.argv[1]) : undefined;
if (invokedAs === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    jsonLog()('error', { err: { message: (error as Error).message } }, 'the launcher failed');
    process.exit(1);
  });
}
