/**
 * The appliance runtime, when the kiosk starts it itself: only from an AppImage, which cannot
 * install a system service. (The deb runs the runtime as the systemd service `edge-appliance`,
 * and the kiosk only waits for it.) The runtime is the `npm run build` bundle shipped in the
 * package's resources, run by the system's Node.js (its native modules are built for Node, not for
 * Electron), with its settings from an environment file in the systemd format so the same
 * settings work for either package. The supervisor starts it again when it exits, backing off
 * while it keeps failing, except when it refused its settings (exit 2): that needs a person.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';

/** The same flags as `APPLIANCE_NODE_FLAGS` in scripts/build.ts (a test holds them together). */
export const RUNTIME_NODE_FLAGS = ['--max-semi-space-size=4'] as const;

/** appliance/main.ts: settings refused. */
export const SETTINGS_REFUSED_EXIT_CODE = 2;
/** appliance/main.ts: a restart the cloud asked for. */
export const RESTART_EXIT_CODE = 75;

/** `KEY=value` lines as systemd's EnvironmentFile reads them; comments, blanks and odd lines skipped. */
export function parseEnvFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const match = /^([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    values[match[1]!] = unquote(match[2]!);
  }
  return values;
}

function unquote(value: string): string {
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote))
    return value.slice(1, -1);
  return value;
}

export interface RuntimeCommand {
  command: string;
  args: string[];
}

/** `node <flags> <resources>/appliance/dist/appliance.mjs`. */
export function runtimeCommand(resourcesPath: string, node = 'node'): RuntimeCommand {
  return {
    command: node,
    args: [...RUNTIME_NODE_FLAGS, join(resourcesPath, 'appliance', 'dist', 'appliance.mjs')],
  };
}

/** What the runtime inherits from the kiosk: enough to find programs and speak the locale, no more. */
const INHERITED = ['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR'] as const;

/**
 * The runtime's environment: a few of the kiosk's variables (not the AppImage's library paths,
 * which are Electron's), the defaults an AppImage needs (its data under the user's config
 * folder rather than the current directory), and the settings file over both.
 */
export function runtimeEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  settings: Readonly<Record<string, string>>,
  dataDir: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, NODE_ENV: 'production', APPLIANCE_DATA_DIR: dataDir, ...settings };
}

/** 1 s after the first failure, doubling to 30 s; a run of a minute or more starts the count again. */
export function restartDelayMs(failures: number): number {
  return Math.min(1000 * 2 ** Math.max(failures - 1, 0), 30_000);
}

export const STABLE_RUN_MS = 60_000;

/** What the kiosk knows of the runtime it started (see starting-page.ts). */
export type SupervisedStatus = 'running' | 'refused-settings' | 'no-node';

export interface RuntimeHandlers {
  exit(code: number | null): void;
  error(error: NodeJS.ErrnoException): void;
}

export interface RuntimeProcess {
  kill(signal: NodeJS.Signals): void;
}

export interface SupervisorTimers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface RuntimeSupervisorOptions {
  /** Spawns the runtime; `handlers` hear its exit, or that it could not be spawned. */
  start(handlers: RuntimeHandlers): RuntimeProcess;
  timers?: SupervisorTimers;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** After SIGTERM, how long the runtime has to stop before SIGKILL. */
  stopTimeoutMs?: number;
}

const realTimers: SupervisorTimers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Errors that mean the program could not be started at all (no `exit` may follow them). */
const SPAWN_FAILURES = new Set(['ENOENT', 'EACCES']);

export function createRuntimeSupervisor(options: RuntimeSupervisorOptions) {
  const { log } = options;
  const timers = options.timers ?? realTimers;
  let status: SupervisedStatus = 'running';
  let child: RuntimeProcess | undefined;
  let startedAt = 0;
  let failures = 0;
  let restartTimer: unknown;
  let stopping = false;
  let onStopped: (() => void) | undefined;

  function launch() {
    restartTimer = undefined;
    startedAt = timers.now();
    let settled = false;
    const once = (handle: () => void) => {
      if (settled) return;
      settled = true;
      child = undefined;
      if (stopping) onStopped?.();
      else handle();
    };
    status = 'running';
    child = options.start({
      exit: (code) => once(() => exited(code)),
      error: (error) => {
        if (SPAWN_FAILURES.has(error.code ?? '')) once(() => notStarted(error));
        else log.warn({ err: error }, 'appliance runtime process error');
      },
    });
  }

  function exited(code: number | null) {
    if (code === SETTINGS_REFUSED_EXIT_CODE) {
      status = 'refused-settings';
      log.error({ code }, 'the appliance runtime refused its settings; not restarting it');
      return;
    }
    const ranMs = timers.now() - startedAt;
    failures = code === RESTART_EXIT_CODE || ranMs >= STABLE_RUN_MS ? 0 : failures + 1;
    const delayMs = restartDelayMs(failures);
    log.warn({ code, ranMs, delayMs }, 'appliance runtime exited; starting it again');
    restartTimer = timers.setTimeout(launch, delayMs);
  }

  function notStarted(error: NodeJS.ErrnoException) {
    status = 'no-node';
    log.error({ err: error }, 'the appliance runtime could not be started');
  }

  return {
    start: launch,
    status: () => status,
    /** Stops the runtime (SIGTERM, then SIGKILL after the timeout) and does not start it again. */
    async stop() {
      stopping = true;
      if (restartTimer !== undefined) timers.clearTimeout(restartTimer);
      const running = child;
      if (running === undefined) return;
      let killTimer: unknown;
      await new Promise<void>((resolve) => {
        onStopped = resolve;
        running.kill('SIGTERM');
        killTimer = timers.setTimeout(() => running.kill('SIGKILL'), options.stopTimeoutMs ?? 10_000);
      });
      timers.clearTimeout(killTimer);
    },
  };
}
