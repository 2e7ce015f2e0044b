import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import { createBatcher } from './batcher.ts';
import type { Outbound } from './outbound.ts';
import { createPace, type Pace } from './pace.ts';
import type { Recorder } from './recorder.ts';
import { deliveryHeaders } from './request.ts';
import { type AttemptRecord, settleAttempt, settleInterrupted } from './settle.ts';
import { deliveries, subscriptions } from './store.ts';
import type { WebhookDeliveryRow, WebhookSubscriptionRow } from './tables.ts';

const BATCH = 20;
/** Settings changed by someone reach a running lane within this long. */
const SUBSCRIPTION_TTL_MS = 1000;

export interface LaneDeps {
  db: Db;
  clock: Clock;
  newId: IdGenerator;
  outbound: Outbound;
  recorder: Recorder;
  owner: string;
}

/** What a lane asks of its worker: is it still ours (and for how long), and should it go on. */
export interface LaneControl {
  /** The lease is known good until this `performance.now()` instant. */
  leaseValidUntil(webhookId: string): number;
  stopping(): boolean;
  /** Whether an idle lane waits a moment for more work before giving its lease back. */
  lingers(): boolean;
  /** Resolves when new work may have come, or after `ms`. */
  nudge(ms: number): Promise<void>;
}

const IDLE_MS = 250;
/** An attempt is started only if the lease outlives its start by this much. */
const LEASE_MARGIN_MS = 1000;

/** Sending: one request per delivery, or one for several when the subscription batches events. */
export function createLaneRunner(deps: LaneDeps, control: LaneControl) {
  const { db, clock } = deps;

  // A mark holds its attempt back, so it lingers only a moment for others to share its commit,
  // and a second group need not wait for the first (each lane marks only its own rows).
  const marker = createBatcher<{ id: string; attempt: number }, string | null>(
    async (marks) => {
      const at = clock.now().toISOString();
      // One statement is atomic alone: a transaction around it would only add two round trips.
      const marked = await deliveries.markInFlight(db, deps.owner, at, marks);
      return marks.map((mark) => (marked.has(mark.id) ? at : null));
    },
    { lingerMs: 1, concurrency: 2 },
  );

  /** Marks each delivery; answers those it may send, with the mark they go under. */
  async function mark(group: WebhookDeliveryRow[], inLane: boolean) {
    if (!inLane) {
      // A test sent on request: no lane serves it (it is not queued), so no lease to hold.
      const at = clock.now().toISOString();
      const marked = await deliveries.markInFlight(db, null, at, group);
      return group.filter((row) => marked.has(row.id)).map((row) => ({ row, markedAt: at }));
    }
    const marks = await Promise.all(group.map((row) => marker.add({ id: row.id, attempt: row.attempt })));
    return group.flatMap((row, i) => (marks[i] ? [{ row, markedAt: marks[i]! }] : []));
  }

  /**
   * One request: marked, signed, sent, settled. With `batch_events` it carries several deliveries'
   * envelopes (`{"batch_id", "events": [...]}`, signed as one body); each delivery still keeps its
   * own attempt count, log line and retry schedule.
   */
  async function attemptMany(
    subscription: WebhookSubscriptionRow,
    group: WebhookDeliveryRow[],
    inLane = true,
  ) {
    const sendable = await mark(group, inLane);
    if (sendable.length === 0) return { records: [] as AttemptRecord[], committed: Promise.resolve() };
    const startedAt = clock.now();
    const first = sendable[0]!.row;
    const request =
      sendable.length === 1
        ? first
        : {
            id: first.id,
            event_type: 'batch',
            body: `{"batch_id":"${first.id}","events":[${sendable.map(({ row }) => row.body).join(',')}]}`,
          };
    const headers = deliveryHeaders(subscription, request, startedAt);
    const result = await deps.outbound.send({
      url: subscription.url,
      headers,
      body: request.body,
      timeoutMs: subscription.timeout_seconds * 1000,
      pool: subscription.id,
    });
    const finishedAt = clock.now();
    const records = sendable.map(({ row, markedAt }) =>
      settleAttempt(
        {
          subscription,
          delivery: row,
          attempt: row.attempt + 1,
          markedAt,
          startedAt,
          finishedAt,
          requestHeaders: headers,
          result,
        },
        deps.newId,
      ),
    );
    const committed = Promise.all(records.map((record) => deps.recorder.record(record))).then(
      () => undefined,
    );
    // The batch awaits its commits only once every send is out; a failed commit is theirs to
    // report then, not an unhandled rejection now.
    committed.catch(() => undefined);
    return { records, committed };
  }

  /** Sends a batch in order, at most `max_in_flight` at once, spaced for `max_per_second`. */
  async function sendBatch(subscription: WebhookSubscriptionRow, batch: WebhookDeliveryRow[], pace: Pace) {
    const committed: Promise<void>[] = [];
    const inFlight = new Set<Promise<unknown>>();
    let sent = 0;
    const perRequest = subscription.batch_events === 1 ? batch.length : 1;
    for (let i = 0; i < batch.length; i += perRequest) {
      while (inFlight.size >= subscription.max_in_flight) await Promise.race(inFlight);
      await pace.wait(subscription.max_per_second);
      // Judged after the waits: a worker stopping cuts what is on the wire, which frees a slot.
      if (
        control.stopping() ||
        control.leaseValidUntil(subscription.id) < performance.now() + LEASE_MARGIN_MS
      )
        break;
      const sending = attemptMany(subscription, batch.slice(i, i + perRequest)).then((done) => {
        sent += done.records.length;
        committed.push(done.committed);
      });
      inFlight.add(sending);
      void sending.finally(() => inFlight.delete(sending)).catch(() => undefined);
    }
    await Promise.all(inFlight);
    await Promise.all(committed);
    return sent;
  }

  /** The subscription as it stands, re-read at most once a second. */
  function subscriptionReader(webhookId: string) {
    let cached: { row: WebhookSubscriptionRow | undefined; at: number } | undefined;
    return async () => {
      if (!cached || performance.now() - cached.at > SUBSCRIPTION_TTL_MS)
        cached = { row: await subscriptions.byId(db, webhookId), at: performance.now() };
      return cached.row;
    };
  }

  /**
   * Serves a lane while it has due work, then lingers briefly for more (new events for a busy
   * endpoint keep coming) before giving it back. Rows found still in flight belong to a worker that
   * died or lost the lane: they are logged as interrupted and come round again at once.
   */
  async function run(webhookId: string, lastSentAt: string | null) {
    const pace = createPace(clock, lastSentAt);
    const current = subscriptionReader(webhookId);
    let idleSince: number | undefined;
    while (!control.stopping() && control.leaseValidUntil(webhookId) > performance.now() + LEASE_MARGIN_MS) {
      const subscription = await current();
      if (!subscription || subscription.deleted_at !== null || subscription.status !== 'active') {
        // Disabled or deleted while attempts were on the wire: their retries are called off too.
        if (subscription)
          await deliveries.cancelPending(db, subscription.tenant_id, webhookId, 'the endpoint is not active');
        break;
      }
      const batch = await deliveries.laneBatch(db, webhookId, clock.now().toISOString(), BATCH);
      const stale = batch.filter((row) => row.in_flight_since !== null);
      if (stale.length > 0) {
        await Promise.all(
          stale.map((row) => deps.recorder.record(settleInterrupted(row, clock.now(), deps.newId))),
        );
        continue;
      }
      if (batch.length > 0) {
        idleSince = undefined;
        // Nothing could be marked: another worker holds the lane now.
        if ((await sendBatch(subscription, batch, pace)) === 0) break;
        continue;
      }
      idleSince ??= performance.now();
      const idleLeft = IDLE_MS - (performance.now() - idleSince);
      if (idleLeft <= 0 || !control.lingers()) break;
      await control.nudge(idleLeft);
    }
    return pace.lastSentAt();
  }

  /** A delivery sent now, outside any lane (the test endpoints): answers its outcome once recorded. */
  async function sendNow(subscription: WebhookSubscriptionRow, delivery: WebhookDeliveryRow) {
    const { records, committed } = await attemptMany(subscription, [delivery], false);
    await committed;
    return records[0];
  }

  return { run, sendNow };
}

export type LaneRunner = ReturnType<typeof createLaneRunner>;
