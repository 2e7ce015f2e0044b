/**
 * The API process from the bench's side: compiled as production builds the appliance (`bundle`,
 * with the detection worker's file beside it, where the detector looks for it), forked with the
 * appliance's Node flags and an IPC channel, asked by request. A process whose channel closes
 * (the bench died) exits; on the bench's exit whatever is left is killed.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { APPLIANCE_NODE_FLAGS, bundle } from '../../build.ts';
import type { ApiRequest, InitReply } from './protocol.ts';

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const API_SOURCE = 'scripts/bench/vision/api.ts';
const API_COMPILED = join(REPO_ROOT, 'dist/bench/vision-api.mjs');
const WORKER_SOURCE = 'appliance/vision/detect/worker.ts';
const WORKER_COMPILED = join(REPO_ROOT, 'dist/bench/vision-detect-worker.mjs');
const STOP_TIMEOUT_MS = 10_000;
const STDERR_KEPT = 4000;

type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: string };

export interface ApiProcess {
  pid: number;
  init: InitReply;
  request<T>(message: ApiRequest, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();

/** On process exit nothing can be awaited: kill what is left (its ffmpeg children end with their pipes). */
export const killApiProcesses = () => {
  for (const child of running) child.kill('SIGKILL');
};

export async function compileApi() {
  await Promise.all([bundle(API_SOURCE, API_COMPILED), bundle(WORKER_SOURCE, WORKER_COMPILED)]);
}

function connect(child: ChildProcess, stderr: () => string) {
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
      waiter.reject(new Error(`the API process exited (code ${code}, signal ${signal})\n${stderr()}`));
    pending.clear();
  });
  return function request<T>(message: ApiRequest, timeoutMs = 60_000) {
    return new Promise<T>((resolve, reject) => {
      if (!child.connected) return reject(new Error('the API process is not running'));
      next += 1;
      const id = next;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the API process did not answer ${message.op} within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      child.send({ id, body: message });
    });
  };
}

/** A fresh API process with the model loaded; `cpuProfileDir` makes it write V8 CPU profiles there. */
export async function startApi(init: {
  model: string;
  maxBatch: number;
  /** The appliance's unless set (to compare others). */
  nodeFlags?: readonly string[] | undefined;
  cpuProfileDir?: string | undefined;
}) {
  const profiling = init.cpuProfileDir ? ['--cpu-prof', '--cpu-prof-dir', init.cpuProfileDir] : [];
  const child = fork(API_COMPILED, [], {
    cwd: REPO_ROOT,
    execArgv: [...(init.nodeFlags ?? APPLIANCE_NODE_FLAGS), ...profiling],
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  running.add(child);
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEPT);
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const request = connect(child, () => stderr);
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await request({ op: 'stop' }).catch(() => undefined);
    child.disconnect();
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  };
  try {
    const reply = await request<InitReply>({ op: 'init', model: init.model, maxBatch: init.maxBatch });
    return { pid: child.pid ?? 0, init: reply, request, stop } satisfies ApiProcess;
  } catch (error) {
    await stop();
    throw error;
  }
}
