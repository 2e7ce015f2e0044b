/**
 * Keeps the appliance in step with the cloud: a round soon after every write (debounced), one on
 * a schedule whatever happens, one as soon as the cloud asks (its open wait request), and, while
 * the cloud is unreachable, retries with exponential back-off and jitter. Rounds never overlap.
 */
import cron, { type ScheduledTask } from 'node-cron';
import { Gauge, type Registry } from 'prom-client';
import type { ApplianceDatabase } from '../db/index.ts';
import { BackPressureError, CloudUnavailableError, type SyncClient, type SyncRound } from './client.ts';

export interface SyncWorkerOptions {
  /** How often to look for new outbox rows: push on write costs one indexed read this often. */
  watchIntervalMs: number;
  /** Writes arriving this close together go in one round. */
  debounceMs: number;
  /** node-cron expression of the scheduled round. */
  schedule: string;
  minBackoffMs: number;
  maxBackoffMs: number;
  /** Seconds the cloud may hold the wait request open. */
  waitSeconds: number;
}

export interface SyncLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export function createSyncWorker(
  db: ApplianceDatabase,
  client: SyncClient,
  options: SyncWorkerOptions,
  observability: { registry?: Registry | undefined; log?: SyncLogger | undefined } = {},
) {
  const newestSeq = db.prepare('select coalesce(max(seq), 0) as seq from outbox');
  const registers = observability.registry ? [observability.registry] : [];
  new Gauge({
    name: 'sync_queue_depth',
    help: 'Changes in the outbox the cloud has not answered yet',
    registers,
    collect() {
      this.set(client.queue().n);
    },
  });

  let online = false;
  let running: Promise<SyncRound | undefined> | undefined;
  let again = false;
  let lastSeq = (newestSeq.get() as { seq: number }).seq;
  let backoffMs = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let debounceTimer: NodeJS.Timeout | undefined;
  let watchTimer: NodeJS.Timeout | undefined;
  let task: ScheduledTask | undefined;
  let stopped = true;
  const listeners = new Set<(round: SyncRound) => void>();

  const nextBackoff = () => {
    backoffMs = backoffMs === 0 ? options.minBackoffMs : Math.min(options.maxBackoffMs, backoffMs * 2);
    // Full jitter: a fleet coming back after an outage does not knock on the cloud in step.
    return Math.round(backoffMs / 2 + Math.random() * (backoffMs / 2));
  };

  async function round(): Promise<SyncRound | undefined> {
    try {
      const result = await client.sync();
      if (!online) observability.log?.info({}, 'sync: the cloud is reachable');
      online = true;
      backoffMs = 0;
      for (const listener of listeners) listener(result);
      return result;
    } catch (error) {
      const unreachable = error instanceof CloudUnavailableError;
      if (online && unreachable)
        observability.log?.warn({ err: error }, 'sync: the cloud is unreachable; selling continues');
      if (unreachable) online = false;
      if (!unreachable && !(error instanceof BackPressureError))
        observability.log?.warn({ err: error }, 'sync: round failed');
      const delay = error instanceof BackPressureError ? error.retryAfterMs : nextBackoff();
      if (!stopped) {
        clearTimeout(retryTimer);
        retryTimer = setTimeout(() => void run(), delay);
      }
      return undefined;
    }
  }

  /** Runs a round, or, if one is running, one more right after it. */
  function run(): Promise<SyncRound | undefined> {
    if (running) {
      again = true;
      return running;
    }
    running = round().finally(() => {
      running = undefined;
      if (again && !stopped) {
        again = false;
        void run();
      }
    });
    return running;
  }

  function watch() {
    const seq = (newestSeq.get() as { seq: number }).seq;
    if (seq === lastSeq) return;
    lastSeq = seq;
    clearTimeout(debounceTimer);
    debounceTimer = setTimeout(() => {
      // While offline the back-off timer decides; a write does not hammer a dead link.
      if (online || backoffMs === 0) void run();
    }, options.debounceMs);
  }

  async function waitLoop() {
    while (!stopped) {
      try {
        const answer = await client.waitForTrigger(options.waitSeconds);
        if (answer.triggered && !stopped) {
          observability.log?.info({ priority: answer.priority }, 'sync: the cloud asked for a round');
          await run();
        }
        if (!online && !stopped) void run();
      } catch (error) {
        // The open wait request is the first to notice the cloud going away; the screens should
        // not learn it only at the next scheduled round. The round's back-off covers reconnecting.
        if (error instanceof CloudUnavailableError && online && !stopped) {
          observability.log?.warn({ err: error }, 'sync: the cloud is unreachable; selling continues');
          online = false;
        }
        await new Promise((resolve) =>
          setTimeout(resolve, Math.max(options.minBackoffMs, backoffMs || 1000)),
        );
      }
    }
  }

  return {
    start() {
      if (!stopped) return;
      stopped = false;
      watchTimer = setInterval(watch, options.watchIntervalMs);
      task = cron.schedule(options.schedule, () => void run());
      void run();
      void waitLoop();
    },
    async stop() {
      stopped = true;
      clearInterval(watchTimer);
      clearTimeout(retryTimer);
      clearTimeout(debounceTimer);
      await task?.stop();
      await running;
      await client.close();
      observability.registry?.removeSingleMetric('sync_queue_depth');
    },
    /** A round now (the kiosk's "sync now"); resolves when it ends. */
    syncNow: () => run(),
    onRound(listener: (round: SyncRound) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get online() {
      return online;
    },
  };
}

export type SyncWorker = ReturnType<typeof createSyncWorker>;
