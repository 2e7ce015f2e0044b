import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import { createBatcher } from './batcher.ts';
import type { Outbound, OutboundResult } from './outbound.ts';
import type { Recorder } from './recorder.ts';
import { deliveryHeaders } from './request.ts';
import { settleAttempt, settleInterrupted } from './settle.ts';
import { deliveries, lanes, subscriptions } from './store.ts';
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

const BATCH = 20;

export interface AttemptOutcome {
  result: OutboundResult;
  status: 'success' | 'failed';
}

/**
 * The delivery engine. A subscription's due deliveries form a lane, served by one worker at a time
 * (a lease in `webhook_lanes`), in event order, at the endpoint's rate and concurrency; any number of
 * workers in any number of processes share the lanes. Each attempt is marked on the delivery before
 * it leaves, so a worker killed mid-attempt leaves a trace the next holder of the lane logs and
 * sends again: nothing is lost, and the event id lets the receiver drop the copy.
 */
export function createDeliveryWorker(deps: WorkerDeps) {
  const { db, clock, options } = deps;
  const owner = `worker-${deps.newId()}`;
  const running = new Map<string, Promise<void>>();
  const held = new Set<string>();
  let stopping = false;
  let wakeUp: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  let renewal: NodeJS.Timeout | undefined;

  const marker = createBatcher<{ id: string; at: string }>((marks) =>
    db.transaction().execute((trx) => deliveries.markInFlight(trx, marks)),
  );
  const leaseUntil = () => new Date(clock.now().getTime() + options.leaseMs).toISOString();

  /**
   * One request: marked, signed, sent, settled. With `batch_events` it carries several deliveries'
   * envelopes (`{"batch_id", "events": [...]}`, signed as one body); each delivery still keeps its
   * own attempt count, log line and retry schedule.
   */
  async function attemptMany(subscription: WebhookSubscriptionRow, group: WebhookDeliveryRow[]) {
    const startedAt = clock.now();
    await Promise.all(group.map((delivery) => marker.add({ id: delivery.id, at: startedAt.toISOString() })));
    const request =
      group.length === 1
        ? group[0]!
        : {
            id: group[0]!.id,
            event_type: 'batch',
            body: `{"batch_id":"${group[0]!.id}","events":[${group.map((delivery) => delivery.body).join(',')}]}`,
          };
    const headers = deliveryHeaders(subscription, request, startedAt);
    const result = await deps.outbound.send({
      url: subscription.url,
      headers,
      body: request.body,
      timeoutMs: subscription.timeout_seconds * 1000,
    });
    const finishedAt = clock.now();
    const records = group.map((delivery) =>
      settleAttempt(
        {
          subscription,
          delivery,
          attempt: delivery.attempt + 1,
          startedAt,
          finishedAt,
          requestHeaders: headers,
          result,
        },
        deps.newId,
      ),
    );
    return {
      records,
      committed: Promise.all(records.map((record) => deps.recorder.record(record))).then(() => undefined),
    };
  }

  async function attempt(subscription: WebhookSubscriptionRow, delivery: WebhookDeliveryRow) {
    const { records, committed } = await attemptMany(subscription, [delivery]);
    return { record: records[0]!, committed };
  }

  async function recoverInterrupted(webhookId: string) {
    const stale = await deliveries.interrupted(db, webhookId);
    await Promise.all(
      stale.map((row) => deps.recorder.record(settleInterrupted(row, clock.now(), deps.newId))),
    );
  }

  /** Sends a batch in order, at most `max_in_flight` at once, spaced for `max_per_second`. */
  async function sendBatch(subscription: WebhookSubscriptionRow, batch: WebhookDeliveryRow[], pace: Pace) {
    const committed: Promise<void>[] = [];
    const inFlight = new Set<Promise<unknown>>();
    const perRequest = subscription.batch_events === 1 ? batch.length : 1;
    for (let i = 0; i < batch.length; i += perRequest) {
      if (stopping || !held.has(subscription.id)) break;
      while (inFlight.size >= subscription.max_in_flight) await Promise.race(inFlight);
      await pace.wait(subscription.max_per_second);
      const group = batch.slice(i, i + perRequest);
      const sending = attemptMany(subscription, group).then((done) => committed.push(done.committed));
      inFlight.add(sending);
      void sending.finally(() => inFlight.delete(sending)).catch(() => undefined);
    }
    await Promise.all(inFlight);
    await Promise.all(committed);
  }

  async function runLane(webhookId: string, lastSentAt: string | null) {
    const pace = createPace(clock, lastSentAt);
    try {
      await recoverInterrupted(webhookId);
      while (!stopping && held.has(webhookId)) {
        const subscription = await subscriptions.byId(db, webhookId);
        if (!subscription || subscription.deleted_at !== null || subscription.status !== 'active') {
          // Disabled or deleted while attempts were on the wire: their retries are called off too.
          if (subscription)
            await deliveries.cancelPending(
              db,
              subscription.tenant_id,
              webhookId,
              'the endpoint is not active',
            );
          break;
        }
        const batch = await deliveries.laneBatch(db, webhookId, clock.now().toISOString(), BATCH);
        if (batch.length === 0) break;
        await sendBatch(subscription, batch, pace);
      }
    } finally {
      held.delete(webhookId);
      await lanes.release(db, webhookId, owner, clock.now().toISOString(), pace.lastSentAt());
    }
  }

  async function startLanes() {
    if (running.size >= options.maxLanes) return;
    const now = clock.now().toISOString();
    const due = await deliveries.dueLanes(db, now, options.maxLanes + running.size);
    for (const webhookId of due) {
      if (stopping || running.size >= options.maxLanes) return;
      if (running.has(webhookId)) continue;
      const lease = await lanes.acquire(db, webhookId, owner, clock.now().toISOString(), leaseUntil());
      if (!lease) continue;
      held.add(webhookId);
      const lane = runLane(webhookId, lease.lastSentAt)
        .catch((error: unknown) => deps.log.error({ err: error, webhookId }, 'webhook lane failed'))
        .finally(() => running.delete(webhookId));
      running.set(webhookId, lane);
    }
  }

  async function renewLeases() {
    const ours = [...held];
    const kept = new Set(await lanes.renew(db, owner, ours, leaseUntil()));
    for (const webhookId of ours) {
      if (kept.has(webhookId)) continue;
      held.delete(webhookId);
      deps.log.warn({ webhookId }, 'webhook lane lease lost');
    }
  }

  async function pollLoop() {
    while (!stopping) {
      await startLanes().catch((error: unknown) => deps.log.error({ err: error }, 'webhook poll failed'));
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.pollMs);
        wakeUp = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wakeUp = undefined;
    }
  }

  return {
    owner,
    attempt,

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

    /** New work was queued by this process: look now rather than at the next poll. */
    wake() {
      wakeUp?.();
    },

    /** Tests: serve everything due at the clock's current time, then return. */
    async drain() {
      for (;;) {
        await startLanes();
        if (running.size === 0) return;
        await Promise.all(running.values());
      }
    },

    /** Lets attempts on the wire finish (up to `graceMs`), then gives the lanes back. */
    async stop(graceMs = 5000) {
      stopping = true;
      wakeUp?.();
      clearInterval(renewal);
      await Promise.race([Promise.all([loop, ...running.values()]), sleep(graceMs)]);
    },
  };
}

export type DeliveryWorker = ReturnType<typeof createDeliveryWorker>;

interface Pace {
  wait(maxPerSecond: number | null): Promise<void>;
  lastSentAt(): string | null;
}

/**
 * Starts requests on a grid 1/rate apart (real time; the injected clock only stamps records), so
 * the long-run rate is the limit itself and a late timer never lets the next start come early
 * twice. A lane that fell far behind starts a new grid instead of bursting to catch up. The grid
 * begins from the lane's last send, so a lane changing workers keeps its pace.
 */
function createPace(clock: Clock, lastSentAt: string | null): Pace {
  let last = lastSentAt ? Date.parse(lastSentAt) : undefined;
  let slot: number | undefined;
  return {
    async wait(maxPerSecond) {
      if (maxPerSecond !== null && maxPerSecond > 0) {
        const interval = 1000 / maxPerSecond;
        const now = performance.now();
        if (slot === undefined) {
          const sinceLast = last === undefined ? interval : clock.now().getTime() - last;
          slot = now + Math.max(0, Math.min(interval, interval - sinceLast));
        } else {
          slot += interval;
          if (slot < now - interval) slot = now;
        }
        if (slot > now) await sleep(slot - now);
      }
      last = clock.now().getTime();
    },
    lastSentAt: () => (last === undefined ? null : new Date(last).toISOString()),
  };
}
