/**
 * The delivery worker. It claims due notifications with a lease (next_attempt_at moved to the
 * lease's end, the owner named), writes an `in_flight` attempt before anything leaves, sends, and
 * settles the outcome only while its claim stands. A worker killed mid-send leaves the row pending
 * and the attempt in flight: when the lease lapses another worker (or the restarted one) marks that
 * attempt `interrupted` and sends again. Delivery is therefore at least once; the repeat carries the
 * same Message-ID / Idempotency-Key (the notification id), so providers that dedupe drop it.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Store } from '../db/index.ts';
import type { SendResult } from './channels/channel.ts';
import type { ChannelRegistry } from './channels/registry.ts';
import type { NotifyConfig } from './config.ts';
import { claimDue, insertAttempts, markInterrupted, settle, updateAttempt } from './store.ts';
import type { NotificationRow } from './tables.ts';
import type { NotificationChannel, Severity } from './types.ts';
import { parsePerson, type TenantSettings } from './views.ts';

export interface WorkerDeps {
  store: Store;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  options: NotifyConfig;
  channels: ChannelRegistry;
  settings: (tenantId: string) => Promise<TenantSettings>;
}

/** Exponential back-off after failed attempt `attempt` (1-based): base, 2×base, 4×base... */
export const backoffMs = (options: NotifyConfig, attempt: number) =>
  Math.min(options.retryMaxMs, options.retryBaseMs * 2 ** (attempt - 1));

export function createNotifyWorker(deps: WorkerDeps) {
  const { store, clock, options, log } = deps;
  const owner = `notify-${deps.newId()}`;
  const running = new Set<Promise<void>>();
  let stopping = true;
  let loop: Promise<void> | undefined;
  let wakeUp: (() => void) | undefined;

  async function send(row: NotificationRow, signal: AbortSignal): Promise<SendResult> {
    const channel = row.channel as NotificationChannel;
    const settings = await deps.settings(row.tenant_id);
    if (!settings.enabled_channels.includes(channel)) {
      return { outcome: 'skipped', error: `the ${channel} channel is disabled in the tenant's settings` };
    }
    const notification = {
      id: row.id,
      tenantId: row.tenant_id,
      channel,
      recipient: parsePerson(row.recipient),
      subject: row.subject,
      text: row.text,
      severity: row.severity as Severity,
      alertId: row.alert_id,
      attempt: row.attempts,
    };
    const context = {
      teamChatWebhookUrl: settings.team_chat_webhook_url,
      emailFrom: settings.email_from,
      signal,
    };
    return deps.channels[channel].send(notification, context);
  }

  /** Sends with the time-out, whatever the adapter does with its signal. */
  async function sendBounded(row: NotificationRow): Promise<SendResult> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<SendResult>((resolve) => {
      timer = setTimeout(() => {
        controller.abort();
        resolve({ outcome: 'retry', error: `no answer within ${options.sendTimeoutMs} ms` });
      }, options.sendTimeoutMs);
    });
    try {
      return await Promise.race([send(row, controller.signal), timeout]);
    } catch (error) {
      return { outcome: 'retry', error: (error as Error).message };
    } finally {
      clearTimeout(timer);
    }
  }

  function patchFor(row: NotificationRow, result: SendResult, at: Date) {
    const now = at.toISOString();
    if (result.outcome === 'delivered') {
      return {
        status: 'delivered' as const,
        next_attempt_at: null,
        lease_owner: null,
        last_error: null,
        provider_ref: result.providerRef ?? null,
        delivered_at: now,
        updated_at: now,
      };
    }
    const again = result.outcome === 'retry' && row.attempts < row.max_attempts;
    const next = again ? new Date(at.getTime() + backoffMs(options, row.attempts)).toISOString() : null;
    return {
      status: again ? ('pending' as const) : ('failed' as const),
      next_attempt_at: next,
      lease_owner: null,
      last_error: result.error,
      updated_at: now,
    };
  }

  async function attempt(row: NotificationRow) {
    const held = { id: row.id, owner, attempt: row.attempts };
    const startedAt = clock.now();
    if (row.attempts > row.max_attempts) {
      // The last allowed attempt was cut off: no sixth try, the row is settled as failed.
      await settle(store.db, held, {
        status: 'failed',
        next_attempt_at: null,
        lease_owner: null,
        last_error: 'the last attempt was interrupted',
        updated_at: startedAt.toISOString(),
      });
      return;
    }
    const attemptId = deps.newId();
    await insertAttempts(store.db, [
      {
        id: attemptId,
        tenant_id: row.tenant_id,
        notification_id: row.id,
        attempt: row.attempts,
        channel: row.channel,
        outcome: 'in_flight',
        provider_status: null,
        provider_answer: null,
        error: null,
        started_at: startedAt.toISOString(),
        finished_at: null,
        duration_ms: null,
      },
    ]);
    const since = performance.now();
    const result = await sendBounded(row);
    const durationMs = Math.round(performance.now() - since);
    const finishedAt = clock.now();
    const outcome =
      result.outcome === 'retry' && row.attempts >= row.max_attempts ? 'failed' : result.outcome;
    await store.db.transaction().execute(async (trx) => {
      const ours = await settle(trx, held, patchFor(row, result, finishedAt));
      await updateAttempt(trx, attemptId, {
        outcome: ours ? outcome : 'interrupted',
        provider_status: result.providerStatus ?? null,
        provider_answer: result.providerAnswer ?? null,
        error: result.outcome === 'delivered' ? null : result.error,
        finished_at: finishedAt.toISOString(),
        duration_ms: durationMs,
      });
    });
    log.info(
      { notificationId: row.id, channel: row.channel, attempt: row.attempts, outcome, durationMs },
      'notification attempt',
    );
  }

  /** Claims what is due and starts sending it; answers how many were claimed. */
  async function claimBatch(limit: number) {
    if (limit <= 0) return 0;
    const now = clock.now();
    const rows = await claimDue(store.db, store.dialect, {
      owner,
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + options.leaseMs).toISOString(),
      limit,
    });
    await markInterrupted(
      store.db,
      rows.filter((row) => row.attempts > 1).map((row) => row.id),
      now.toISOString(),
    );
    for (const row of rows) {
      const work = attempt(row)
        .catch((error: unknown) =>
          log.error({ err: error, notificationId: row.id }, 'notification attempt failed'),
        )
        .finally(() => {
          running.delete(work);
          wakeUp?.();
        });
      running.add(work);
    }
    return rows.length;
  }

  function sleep(ms: number) {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = undefined;
        resolve();
      }
      wakeUp = done;
    });
  }

  async function pollLoop() {
    while (!stopping) {
      const room = options.concurrency - running.size;
      const claimed = await claimBatch(room).catch((error: unknown) => {
        log.error({ err: error }, 'notification poll failed');
        return 0;
      });
      // A full batch means more may be waiting: look again as soon as a slot frees.
      if (claimed === room && room > 0) continue;
      await sleep(options.pollMs);
    }
  }

  return {
    owner,
    start() {
      if (!stopping) return;
      stopping = false;
      loop = pollLoop();
      log.info({ owner }, 'notify worker running');
    },
    /** New work may be due: look now rather than at the next poll. */
    wake() {
      wakeUp?.();
    },
    /** Tests: sends everything due at the clock's current time, then returns. */
    async drain() {
      for (;;) {
        const claimed = await claimBatch(options.concurrency - running.size);
        if (claimed === 0 && running.size === 0) return;
        await Promise.race(running);
      }
    },
    /** Stops claiming and lets attempts on the wire finish (they are bounded by the send time-out). */
    async stop() {
      stopping = true;
      wakeUp?.();
      await loop;
      await Promise.all(running);
    },
  };
}

export type NotifyWorker = ReturnType<typeof createNotifyWorker>;
