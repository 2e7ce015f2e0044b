/**
 * The shared life of a bench server child that keeps its data in a fresh temporary dir: it prints its
 * announcement (one JSON line with its port) once started, and stops on SIGTERM, SIGINT (a Ctrl-C
 * reaches this process too) or when the bench closes our stdin (it died), including while still
 * starting, and always removes the data dir.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServerLifecycle<T> {
  /** Names the server in the error printed when it fails to start, e.g. `bench cloud`. */
  name: string;
  /** Prefix of the temporary data dir's name. */
  dirPrefix: string;
  start(dataDir: string): Promise<T>;
  stop(started: T): Promise<void>;
  /** The JSON printed once started: `{"port":N}` and anything else the bench needs. */
  announcement(started: T): { port: number } & Record<string, unknown>;
}

export function runUntilStopped<T>({ name, dirPrefix, start, stop, announcement }: ServerLifecycle<T>) {
  const dataDir = mkdtemp(join(tmpdir(), dirPrefix));
  const started = dataDir.then(start);
  let stopping = false;
  const shutdown = (code: number) => {
    if (stopping) return;
    stopping = true;
    started
      .then(stop, () => undefined)
      .finally(() => dataDir.then((dir) => rm(dir, { recursive: true, force: true })))
      .then(
        () => process.exit(code),
        () => process.exit(1),
      );
  };
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGINT', () => shutdown(0));
  process.stdin.on('end', () => shutdown(0)).resume();
  started.then(
    (value) => {
      if (!stopping) process.stdout.write(`${JSON.stringify(announcement(value))}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`${name}: failed to start: ${(error as Error).stack ?? String(error)}\n`);
      shutdown(1);
    },
  );
}
