/**
 * The load processes (publishers, subscriber): forked with an IPC channel, asked by request and
 * answered with the result (requests may overlap). A child whose channel closes (the bench died)
 * exits.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const TSX_LOADER = import.meta.resolve('tsx');
const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const STOP_TIMEOUT_MS = 5000;

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export interface LoadProcess<Request> {
  pid: number;
  request<T>(message: Request): Promise<T>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** On process exit nothing can be awaited: kill what is left. */
export const killLoadProcesses = () => {
  for (const child of running) child.kill('SIGKILL');
};

export async function forkLoadProcess<Request>(file: string): Promise<LoadProcess<Request>> {
  const child = fork(file, [], {
    cwd: REPO_ROOT,
    execArgv: ['--import', TSX_LOADER],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  running.add(child);
  const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
  let next = 0;
  child.on('message', (reply: Reply) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.ok) waiter?.resolve(reply.value);
    else waiter?.reject(new Error(reply.error));
  });
  child.once('exit', (code, signal) => {
    running.delete(child);
    for (const waiter of pending.values())
      waiter.reject(new Error(`${file} exited (code ${code}, signal ${signal})`));
    pending.clear();
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  return {
    pid: child.pid ?? 0,
    request<T>(message: Request) {
      return new Promise<T>((resolve, reject) => {
        if (!child.connected) return reject(new Error(`${file} is not running`));
        next += 1;
        pending.set(next, { resolve: resolve as (value: unknown) => void, reject });
        child.send({ id: next, body: message });
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The child's side: answers each request with its handler's result or its error. */
export function serveRequests<Request>(handle: (request: Request) => Promise<unknown>) {
  process.on('message', (message: { id: number; body: Request }) => {
    handle(message.body).then(
      (value) => process.send?.({ id: message.id, ok: true, value }),
      (error: unknown) =>
        process.send?.({ id: message.id, ok: false, error: (error as Error).message ?? String(error) }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
