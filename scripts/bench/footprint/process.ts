/**
 * A compiled program started as its deployment starts it (Node alone, its script, its
 * environment), its stdout read as pino's JSON lines until the one that says it is ready, the rest
 * then read and dropped; stopped by SIGTERM, killed when it does not end.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const READY_TIMEOUT_MS = 90_000;
const STOP_TIMEOUT_MS = 15_000;
const STDERR_KEPT = 4000;

export type LogLine = Record<string, unknown> & { msg?: string };

export interface Started {
  pid: number;
  ready: LogLine;
  /** Warnings and errors it logged (level 40 and up), the last few. */
  warnings(): { count: number; last: string[] };
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** On process exit nothing can be awaited: kill what is left (the launcher takes its appliance down). */
export const killStarted = () => {
  for (const child of running) child.kill('SIGKILL');
};

function readLines(child: ChildProcess, onLine: (line: LogLine) => void) {
  let pending = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    for (const text of lines) {
      try {
        onLine(JSON.parse(text) as LogLine);
      } catch {
        // Not a log line: ignored.
      }
    }
  });
}

function stopper(child: ChildProcess) {
  return async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    }
    running.delete(child);
  };
}

export async function startCompiled(
  args: readonly string[],
  env: Record<string, string>,
  isReady: (line: LogLine) => boolean,
): Promise<Started> {
  const child = spawn(process.execPath, args, {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  const warnings = { count: 0, last: [] as string[] };
  let onReady: (line: LogLine) => void = () => {};
  readLines(child, (line) => {
    if (Number(line.level) >= 40) {
      warnings.count += 1;
      warnings.last = [...warnings.last, String(line.msg ?? '')].slice(-5);
    }
    if (isReady(line)) onReady(line);
  });
  const stop = stopper(child);
  try {
    const ready = await new Promise<LogLine>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`not ready in ${READY_TIMEOUT_MS} ms`)),
        READY_TIMEOUT_MS,
      );
      onReady = (line) => {
        clearTimeout(timer);
        resolve(line);
      };
      child.once('exit', (code) => reject(new Error(`exited (code ${code}) before it was ready`)));
      child.once('error', reject);
    });
    return { pid: child.pid ?? 0, ready, warnings: () => warnings, stop };
  } catch (error) {
    await stop();
    throw new Error(`${args.join(' ')}: ${(error as Error).message}\n${stderr}`);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
