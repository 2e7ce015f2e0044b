/**
 * Usage ingestion. Posts that arrive together are written together: the records waiting when a
 * write starts go in one multi-row `insert … on conflict do nothing` (at most `maxBatch`), so ten
 * thousand posts a second cost a few hundred statements, not ten thousand. The unique
 * (tenant_id, idempotency_key) index decides duplicates, even between replicas or concurrent
 * batches: a repeated key is answered with the record counted the first time, never counted again.
 */
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import type { NewUsage } from './schemas-records.ts';
import type { UsageRecordRow } from './tables.ts';
import { existingSubscriptions, insertNew, recordsByKeys } from './usage-store.ts';

export type UsageOutcome =
  | { outcome: 'created' | 'duplicate'; record: UsageRecordRow }
  | { outcome: 'not_found'; record: undefined };

interface Pending {
  tenantId: string;
  input: NewUsage;
  resolve(outcome: UsageOutcome): void;
  reject(error: unknown): void;
}

export interface UsageIngestOptions {
  /** The most records one statement takes. */
  maxBatch: number;
  /** Writes in flight at once: PostgreSQL takes several side by side, SQLite has one writer. */
  lanes: number;
}

const keyOf = (tenantId: string, key: string) => `${tenantId}\u0000${key}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function createUsageIngest(
  deps: { db: Db; clock: Clock; newId: IdGenerator; isTransientConflict(error: unknown): boolean },
  options: UsageIngestOptions,
) {
  const { db } = deps;
  const queue: Pending[] = [];
  let lanes = 0;
  let scheduled = false;
  // Subscriptions are never deleted, so one seen once needs no second look.
  const known = new Set<string>();

  async function checkSubscriptions(batch: Pending[]) {
    const unknown = new Map<string, Set<string>>();
    for (const { tenantId, input } of batch) {
      if (known.has(keyOf(tenantId, input.subscription_id))) continue;
      const ids = unknown.get(tenantId) ?? new Set<string>();
      ids.add(input.subscription_id);
      unknown.set(tenantId, ids);
    }
    for (const [tenantId, ids] of unknown) {
      for (const id of await existingSubscriptions(db, tenantId, [...ids])) known.add(keyOf(tenantId, id));
    }
  }

  function rowOf(pending: Pending, createdAt: string): UsageRecordRow {
    return {
      id: deps.newId(),
      tenant_id: pending.tenantId,
      subscription_id: pending.input.subscription_id,
      metric_name: pending.input.metric_name,
      quantity: pending.input.quantity,
      recorded_at: new Date(pending.input.timestamp).toISOString(),
      idempotency_key: pending.input.idempotency_key,
      created_at: createdAt,
    };
  }

  /** The records already stored under the keys of `rows`, by tenant and key. */
  async function existing(rows: UsageRecordRow[]) {
    const byTenant = new Map<string, string[]>();
    for (const row of rows)
      byTenant.set(row.tenant_id, [...(byTenant.get(row.tenant_id) ?? []), row.idempotency_key]);
    const found = new Map<string, UsageRecordRow>();
    for (const [tenantId, keys] of byTenant) {
      for (const row of await recordsByKeys(db, tenantId, keys))
        found.set(keyOf(tenantId, row.idempotency_key), row);
    }
    return found;
  }

  async function insertWithRetry(rows: UsageRecordRow[], attempts = 3): Promise<Set<string>> {
    try {
      return await insertNew(db, rows);
    } catch (error) {
      if (attempts <= 1 || !deps.isTransientConflict(error)) throw error;
      return insertWithRetry(rows, attempts - 1);
    }
  }

  async function write(batch: Pending[]) {
    await checkSubscriptions(batch);
    const createdAt = deps.clock.now().toISOString();
    const firsts = new Map<string, UsageRecordRow>();
    for (const pending of batch) {
      const key = keyOf(pending.tenantId, pending.input.idempotency_key);
      if (!firsts.has(key) && known.has(keyOf(pending.tenantId, pending.input.subscription_id)))
        firsts.set(key, rowOf(pending, createdAt));
    }
    // One key order for every insert: concurrent inserts that share keys then wait for one
    // another instead of deadlocking on the unique index.
    const rows = [...firsts.values()].sort((a, b) =>
      a.tenant_id === b.tenant_id
        ? compare(a.idempotency_key, b.idempotency_key)
        : compare(a.tenant_id, b.tenant_id),
    );
    const inserted = await insertWithRetry(rows);
    const earlier = await existing(rows.filter((row) => !inserted.has(row.id)));
    const answered = new Set<string>();
    for (const pending of batch) {
      const key = keyOf(pending.tenantId, pending.input.idempotency_key);
      const row = firsts.get(key);
      if (!row) pending.resolve({ outcome: 'not_found', record: undefined });
      else if (inserted.has(row.id) && !answered.has(key))
        pending.resolve({ outcome: 'created', record: row });
      else pending.resolve({ outcome: 'duplicate', record: inserted.has(row.id) ? row : earlier.get(key)! });
      answered.add(key);
    }
  }

  async function lane() {
    while (queue.length > 0) {
      const batch = queue.splice(0, options.maxBatch);
      await write(batch).catch((error: unknown) => {
        for (const pending of batch) pending.reject(error);
      });
    }
    lanes -= 1;
  }

  function start() {
    scheduled = false;
    while (lanes < options.lanes && queue.length > 0) {
      lanes += 1;
      void lane();
    }
  }

  function submit(tenantId: string, input: NewUsage) {
    return new Promise<UsageOutcome>((resolve, reject) => {
      queue.push({ tenantId, input, resolve, reject });
      // Wait for the rest of this turn's posts; a lane already running picks them up anyway.
      if (!scheduled && lanes < options.lanes) {
        scheduled = true;
        setImmediate(start);
      }
    });
  }

  return {
    submit,
    submitMany: (tenantId: string, inputs: NewUsage[]) =>
      Promise.all(inputs.map((input) => submit(tenantId, input))),
    /** Drops what it knows of subscriptions; for tests that rebuild the store. */
    forget: () => known.clear(),
  };
}

export type UsageIngest = ReturnType<typeof createUsageIngest>;
