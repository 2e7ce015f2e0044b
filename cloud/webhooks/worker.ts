import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import { createLaneRunner } from './lane.ts';
import type { Outbound } from './outbound.ts';
import type { Recorder } from './recorder.ts';
import { deliveries, lanes } from './store.ts';
import type { WebhookDeliveryRow, WebhookSubscriptionRow } from './tables.ts';

export interface WorkerOptions {
  /** Subscriptions served at once; a hanging endpoint holds one lane, never the others. */
  maxLanes: number;
  /** How often due work is looked for when nothing woke the worker. */
  pollMs: number;
  /** How long a lane stays ours without renewal: a dead worker's lanes free up after this. */
  leaseMs: number;
}

export interface WorkerDeps {
  db: Db;
  clock: Clock;
  newId: IdGenerator;
  outbound: Outbound;
  recorder: Recorder;
  log: Logger;
  options: WorkerOptions;
}

/**
 * The delivery engine. A subscription's due deliveries form a lane, served by one worker at a time
 * (a lease in `webhook_lanes`), in event order, at the endpoint's rate and concurrency; any number
 * of workers in any number of processes share the lanes. Each attempt is marked on its delivery
 * before it leaves, and only while the lane is still ours, so a worker killed (or stalled) mid-attempt
 * leaves a trace the next holder logs and sends again: nothing is lost, and the event id lets the
 * receiver drop the copy.
 */
export function createDeliveryWorker(deps: WorkerDeps) {
  const { db, clock, options } = deps;
  const owner = `worker-${deps.newId()}`;
  const running = new Map<string, Promise<void>>();
  /** Lanes held, with the monotonic instant their lease is known good until. */
  const held = new Map<string, number>();
  let stopping = false;
  /** Tests drain the queue: a lane then gives its lease back as soon as it has nothing due. */
  let draining = false;
  let waiters: Array<() => void> = [];
  let loop: Promise<void> | undefined;
  let renewal: NodeJS.Timeout | undefined;

  const leaseUntil = () => new Date(clock.now().getTime() + options.leaseMs).toISOString();
  // Renewal writes the lease from the clock read before it; counting from there keeps us safe.
  const goodUntil = (since: number) => since + options.leaseMs;

  const runner = createLaneRunner(
    { db, clock, newId: deps.newId, outbound: deps.outbound, recorder: deps.recorder, owner },
    {
      leaseValidUntil: (webhookId) => held.get(webhookId) ?? 0,
      stopping: () => stopping,
      lingers: () => !draining,
      nudge: (ms) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(done, ms);
          function done() {
            clearTimeout(timer);
            resolve();
          }
          waiters.push(done);
        }),
    },
  );

  async function serve(webhookId: string, lastSentAt: string | null) {
    let last = lastSentAt;
    try {
      last = await runner.run(webhookId, lastSentAt);
    } finally {
      held.delete(webhookId);
      await lanes.release(db, webhookId, owner, clock.now().toISOString(), last);
    }
  }

  async function startLanes() {
    const room = options.maxLanes - running.size;
    if (room <= 0) return;
    const since = performance.now();
    const due = await deliveries.dueLanes(db, clock.now().toISOString(), room);
    const won = await lanes.acquire(db, due, owner, clock.now().toISOString(), leaseUntil());
    for (const [webhookId, lastSentAt] of won) {
      if (running.has(webhookId)) continue;
      held.set(webhookId, goodUntil(since));
      const lane = serve(webhookId, lastSentAt)
        .catch((error: unknown) => deps.log.error({ err: error, webhookId }, 'webhook lane failed'))
        .finally(() => running.delete(webhookId));
      running.set(webhookId, lane);
    }
  }

  async function renewLeases() {
    const ours = [...held.keys()];
    if (ours.length === 0) return;
    const since = performance.now();
    const kept = new Set(await lanes.renew(db, owner, ours, leaseUntil()));
    for (const webhookId of ours) {
      if (!held.has(webhookId)) continue;
      if (kept.has(webhookId)) held.set(webhookId, goodUntil(since));
      else {
        held.delete(webhookId);
        deps.log.warn({ webhookId }, 'webhook lane lease lost');
      }
    }
  }

  function wakeAll() {
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  }

  async function pollLoop() {
    while (!stopping) {
      await startLanes().catch((error: unknown) => deps.log.error({ err: error }, 'webhook poll failed'));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, options.pollMs);
        function done() {
          clearTimeout(timer);
          resolve();
        }
        waiters.push(done);
      });
    }
  }

  return {
    owner,

    /** Sends one delivery now, outside the lanes (the test endpoints); answers its record. */
    sendNow: (subscription: WebhookSubscriptionRow, delivery: WebhookDeliveryRow) =>
      runner.sendNow(subscription, delivery),

    start() {
      stopping = false;
      renewal = setInterval(() => {
        renewLeases().catch((error: unknown) =>
          deps.log.error({ err: error }, 'webhook lease renewal failed'),
        );
      }, options.leaseMs / 3);
      renewal.unref();
      loop = pollLoop();
    },

    /** New work may be due: look now rather than at the next poll, and tell idle lanes. */
    wake: wakeAll,

    /** Tests: serve everything due at the clock's current time, then return. */
    async drain() {
      draining = true;
      try {
        for (;;) {
          await startLanes();
          if (running.size === 0) return;
          await Promise.all(running.values());
        }
      } finally {
        draining = false;
      }
    },

    /**
     * Lets attempts on the wire finish (up to `graceMs`), then cuts what is still out and waits for
     * the lanes to record it and give their leases back, so nothing writes once the store closes.
     */
    async stop(graceMs = 5000) {
      stopping = true;
      wakeAll();
      clearInterval(renewal);
      const finished = Promise.all([loop, ...running.values()]);
      const grace = new AbortController();
      await Promise.race([
        finished,
        sleep(graceMs, undefined, { signal: grace.signal }).catch(() => undefined),
      ]);
      grace.abort();
      await deps.outbound.close();
      await finished;
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;
