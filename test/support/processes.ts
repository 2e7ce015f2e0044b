import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryArgs } from './entries.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const START_TIMEOUT_MS = 60_000;

export interface Started {
  child: ChildProcess;
  port: number;
  /** The log line that said it was listening (other ports it chose are on it too). */
  line: string;
}

/**
 * Runs one of our entry points as node itself (the run's bundle of it, or the source with tsx's
 * loader; `compiled`: the built file given, with its `nodeArgs`), so a SIGKILL hits the process
 * under test and not a wrapper; resolves once it logs the line that carries its port.
 */
export function startProcess(
  script: string,
  env: Record<string, string>,
  listening: RegExp,
  options: { compiled?: boolean; nodeArgs?: readonly string[] } = {},
): Promise<Started> {
  const run = options.compiled ? [script] : entryArgs(script);
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...run], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  return new Promise<Started>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start in time\n${stderr}`));
    }, START_TIMEOUT_MS);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited (${code ?? signal}) before listening\n${stderr}`));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (!listening.test(line)) continue;
        const port = /"port":(\d+)/.exec(line);
        if (!port) continue;
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve({ child, port: Number(port[1]), line });
      }
    });
  });
}

/** Resolves once the process has ended, including when it already has. */
export const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

export async function kill(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') {
  child.kill(signal);
  await exited(child);
}

/** Polls until `check` answers something other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
