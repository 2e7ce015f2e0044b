import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import { createBatcher } from './batcher.ts';
import type { AttemptRecord } from './settle.ts';
import { attempts, deliveries, logs } from './store.ts';
import { settleDeliveries, updateHealth } from './store-outcomes.ts';

interface Health {
  tenantId: string;
  lastDeliveryAt: string;
  lastSuccessAt?: string;
  lastFailureAt?: string;
  /** The first failure after the last success in this group; undefined when it ended well. */
  failingFrom?: string;
}

function healthOf(records: AttemptRecord[]) {
  const byWebhook = new Map<string, Health>();
  for (const record of records) {
    if (record.succeeded === null) continue;
    const health = byWebhook.get(record.webhookId) ?? {
      tenantId: record.tenantId,
      lastDeliveryAt: record.at,
    };
    health.lastDeliveryAt = record.at;
    if (record.succeeded) {
      health.lastSuccessAt = record.at;
      health.failingFrom = undefined;
    } else {
      health.lastFailureAt = record.at;
      health.failingFrom ??= record.at;
    }
    byWebhook.set(record.webhookId, health);
  }
  return byWebhook;
}

export interface RecorderDeps {
  db: Db;
  clock: Clock;
  newId: IdGenerator;
  log: Logger;
  /** A subscription failing without a break for this long is disabled. */
  disableAfterMs: number;
}

/**
 * Writes finished attempts: the attempt log, the delivery's new state and the endpoint's health,
 * many lanes' attempts to one transaction. An endpoint that has failed without a single success
 * for `disableAfterMs` is disabled here, with its reason logged, and its queue stopped.
 */
export function createRecorder(deps: RecorderDeps) {
  async function disableIfFailingTooLong(trx: Db, webhookIds: string[]) {
    const now = deps.clock.now();
    const cutoff = new Date(now.getTime() - deps.disableAfterMs).toISOString();
    const hours = Math.round(deps.disableAfterMs / 3_600_000);
    const reason = `every delivery failed for ${hours} hours`;
    const disabled = await trx
      .updateTable('webhook_subscriptions')
      .set({ status: 'disabled', disabled_reason: reason, disabled_at: now.toISOString() })
      .where('id', 'in', webhookIds)
      .where('status', '=', 'active')
      .where('failing_since', '<=', cutoff)
      .returning(['id', 'tenant_id', 'failing_since'])
      .execute();
    for (const row of disabled) {
      await deliveries.cancelPending(trx, row.tenant_id, row.id, 'the endpoint was disabled');
      await logs.insert(trx, {
        id: deps.newId(),
        tenant_id: row.tenant_id,
        webhook_id: row.id,
        at: now.toISOString(),
        level: 'error',
        message: 'endpoint disabled: it kept failing',
        delivery_id: null,
        event: null,
        details: JSON.stringify({ reason, failing_since: row.failing_since }),
      });
      deps.log.warn({ webhookId: row.id, tenantId: row.tenant_id, reason }, 'webhook endpoint disabled');
    }
  }

  async function write(records: AttemptRecord[]): Promise<undefined[]> {
    await deps.db.transaction().execute(async (trx) => {
      // An outcome lands only on the attempt it belongs to; when another worker has moved the
      // delivery on since (this one lost its lane), the line still goes in the log.
      const settled = await settleDeliveries(
        trx,
        records.map((record) => ({ id: record.deliveryId, expected: record.expected, patch: record.patch })),
      );
      const logged = records.filter((record, i) => record.succeeded !== null || settled[i]);
      await attempts.insert(
        trx,
        logged.map((record) => record.attempt),
      );
      const health = healthOf(records);
      await updateHealth(
        trx,
        [...health].map(([webhookId, entry]) => ({ webhookId, ...entry })),
      );
      const failing = [...health].filter(([, entry]) => entry.failingFrom !== undefined).map(([id]) => id);
      if (failing.length > 0) await disableIfFailingTooLong(trx, failing);
    });
    return records.map(() => undefined);
  }

  // Nothing waits on an outcome but the lane's next batch: it can gather a few milliseconds' worth.
  const batcher = createBatcher<AttemptRecord, undefined>(write, { lingerMs: 4 });
  return { record: (record: AttemptRecord) => batcher.add(record) };
}

export type Recorder = ReturnType<typeof createRecorder>;
