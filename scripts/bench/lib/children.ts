/**
 * Servers under test, each run alone in a child process: started, its announcement (a JSON line
 * like `{"port":N,...}` on stdout) read, and stopped again whatever happens.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 10_000;
const STDERR_KEPT = 4096;

const TSX_LOADER = import.meta.resolve('tsx');
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** What a server prints once listening: its port and anything else the bench needs. */
export type Announcement = { port: number } & Record<string, unknown>;

export interface Server {
  announced: Announcement;
  stop(): Promise<void>;
}

export interface ServerSpec {
  file: string;
  env?: Record<string, string>;
  /** Write a V8 CPU profile here when the server exits. */
  cpuProfileDir?: string | undefined;
  /**
   * When set, only a JSON line with exactly these keys counts as the announcement, so that no other
   * line the server prints (a log line with a port in it) can be taken for it.
   */
  keys?: readonly string[];
  /**
   * A compiled JavaScript file run by Node alone, as production runs it (`npm run build`); by
   * default the TypeScript source runs through tsx's loader, as `npm run <side>` runs it.
   */
  compiled?: boolean;
  /** Node's own flags for the server (V8's heap sizes, say), as its deployment passes them. */
  nodeArgs?: readonly string[];
}

const running = new Set<ChildProcess>();

function exited(child: ChildProcess, timeoutMs: number) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** SIGTERM lets a server clean up (the servers remove their data dirs); SIGKILL when it does not exit. */
async function stopChild(child: ChildProcess) {
  child.kill('SIGTERM');
  if (!(await exited(child, STOP_TIMEOUT_MS))) child.kill('SIGKILL');
  running.delete(child);
}

// On process exit nothing can be awaited: ask the servers to stop and leave them to it.
export const signalAll = () => {
  for (const child of running) child.kill('SIGTERM');
};

function announcementOf(line: string, keys: readonly string[] | undefined): Announcement | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null) return undefined;
    if (keys) {
      const found = Object.keys(value);
      if (found.length !== keys.length || !keys.every((key) => found.includes(key))) return undefined;
    }
    return typeof (value as { port?: unknown }).port === 'number' ? (value as Announcement) : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the first JSON line with a port from the child's stdout, then discards the rest (request logs) unread. */
function announced(child: ChildProcess, stderr: () => string, keys: readonly string[] | undefined) {
  return new Promise<Announcement>((resolve, reject) => {
    let pending = '';
    const fail = (message: string) => {
      cleanup();
      reject(new Error(`${message}\n${stderr()}`));
    };
    const onData = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      const found = lines.map((line) => announcementOf(line, keys)).find((value) => value !== undefined);
      if (found === undefined) return;
      cleanup();
      child.stdout?.resume();
      resolve(found);
    };
    const onExit = (code: number | null) => fail(`server exited (code ${code}) before listening`);
    const onError = (error: Error) => fail(`server could not be started: ${error.message}`);
    const timer = setTimeout(
      () => fail(`server did not listen within ${START_TIMEOUT_MS} ms`),
      START_TIMEOUT_MS,
    );
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

// Node with tsx's loader rather than the tsx CLI: the CLI is a second process that relays signals
// and SIGKILLs a server slow to acknowledge one, which skips its clean-up on a busy machine.
export async function startServer({
  file,
  env = {},
  cpuProfileDir,
  keys,
  compiled = false,
  nodeArgs = [],
}: ServerSpec): Promise<Server> {
  const profiling = cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', cpuProfileDir] : [];
  const loader = compiled ? [] : ['--import', TSX_LOADER];
  const child = spawn(process.execPath, [...nodeArgs, ...profiling, ...loader, file], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    // stdin stays open and unused: the server takes its end as the bench having died.
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  try {
    return { announced: await announced(child, () => stderr, keys), stop: () => stopChild(child) };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

export async function withServer<T>(
  server: Promise<Server>,
  work: (announced: Announcement) => Promise<T>,
): Promise<T> {
  const { announced: info, stop } = await server;
  try {
    return await work(info);
  } finally {
    await stop();
  }
}
