import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import type { EventLog } from '../events/index.ts';
import { createActions } from './actions.ts';
import { createOutbound, type OutboundOptions } from './outbound.ts';
import { createRecorder } from './recorder.ts';
import { createReports } from './reports.ts';
import { createSubscriptions } from './subscriptions.ts';
import { createDeliveryWorker, type WorkerOptions } from './worker.ts';

export interface WebhookOptions extends WorkerOptions {
  allowPrivateUrls: boolean;
  disableAfterHours: number;
  rotationGraceSeconds: number;
  operationsPerMinute: number;
}

export const DEFAULT_WEBHOOK_OPTIONS: WebhookOptions = {
  allowPrivateUrls: false,
  disableAfterHours: 72,
  rotationGraceSeconds: 86_400,
  operationsPerMinute: 120,
  maxLanes: 256,
  pollMs: 50,
  leaseMs: 6000,
};

export interface WebhookDeps {
  store: Store;
  events: EventLog;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: WebhookOptions;
  /** Tests replace DNS to stage rebinding. */
  resolve?: OutboundOptions['resolve'];
}

/**
 * Outbound webhooks: subscriptions of both interfaces, the deliveries domain events make, and the
 * worker that sends them. Events reach it through the event log's consumers, in the transaction
 * that records them; the worker runs where `start()` is called (any number of processes).
 */
export function createWebhooks(deps: WebhookDeps) {
  const { store, clock, newId, options } = deps;
  const log = deps.log.child({ module: 'webhooks' });
  const outbound = createOutbound({
    allowPrivate: options.allowPrivateUrls,
    ...(deps.resolve ? { resolve: deps.resolve } : {}),
  });
  const recorder = createRecorder({
    db: store.db,
    clock,
    newId,
    log,
    disableAfterMs: options.disableAfterHours * 3_600_000,
  });
  const worker = createDeliveryWorker({ db: store.db, clock, newId, outbound, recorder, log, options });
  const subscriptions = createSubscriptions({
    store,
    clock,
    newId,
    allowPrivateUrls: options.allowPrivateUrls,
    rotationGraceSeconds: options.rotationGraceSeconds,
  });
  const actions = createActions({ db: store.db, clock, newId, events: deps.events, subscriptions, worker });
  const reports = createReports({ db: store.db, clock, subscriptions });
  deps.events.consume(actions.enqueue);

  return {
    subscriptions,
    actions,
    reports,
    worker,
    close: () => worker.stop(),
  };
}

export type Webhooks = ReturnType<typeof createWebhooks>;
