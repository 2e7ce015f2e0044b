import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { entryArgs } from './entries.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const START_TIMEOUT_MS = 60_000;

export interface WorkerProcess {
  child: ChildProcess;
  /** The worker's lease owner name, from its start-up line. */
  owner: string;
  /** Its log lines at warn level and above (lost leases, failed lanes), kept for the report. */
  warnings: string[];
}

interface LogLine {
  level?: number;
  msg?: string;
  owner?: string;
}

function parse(line: string): LogLine | undefined {
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return undefined;
  }
}

/**
 * `npm run webhook-worker` as node itself (see entryArgs), so a SIGKILL hits the worker and not a
 * wrapper; resolves once it says it is running (it listens on no port, so processes.ts cannot wait
 * for it).
 */
export function startWebhookWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, entryArgs('cloud/webhook-worker.ts'), {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const warnings: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  return new Promise<WorkerProcess>((resolve, reject) => {
    let pending = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the webhook worker did not start in time\n${stderr}`));
    }, START_TIMEOUT_MS);
    const onExit = (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      reject(new Error(`the webhook worker exited (${code ?? signal}) before running\n${stderr}`));
    };
    child.once('exit', onExit);
    child.stdout!.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const entry = parse(line);
        if (entry?.level !== undefined && entry.level >= 40) warnings.push(line);
        if (entry?.msg !== 'webhook worker running' || !entry.owner) continue;
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve({ child, owner: entry.owner, warnings });
      }
    });
  });
}
