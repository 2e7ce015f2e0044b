/**
 * Usage ingestion, group-committed (cloud/db/group-commit.ts): the records waiting when a write
 * starts go in one multi-row `insert … on conflict do nothing` (at most `maxBatch`), so ten thousand
 * posts a second cost a few hundred statements, and each post is answered only once the statement
 * holding its record has committed. The unique (tenant_id, idempotency_key) index decides
 * duplicates, even between replicas or concurrent writes: a repeated key is answered with the
 * record counted the first time, never counted again. Every record gets its own outcome: an unknown
 * subscription is not_found for that record alone, and a row the database refuses fails alone
 * (the group's rows are then written again, each in a savepoint) while the others are counted.
 */
import type { Clock } from '../../shared/clock.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import { createGroupQueue, type Db, eachInSavepoint, type Settled, type Store } from '../db/index.ts';
import { validationError } from './errors.ts';
import type { NewUsage } from './schemas-records.ts';
import type { UsageRecordRow } from './tables.ts';
import { existingSubscriptions, insertNew, recordsByKeys, usageWriter } from './usage-store.ts';

export type UsageOutcome =
  | { outcome: 'created' | 'duplicate'; record: UsageRecordRow }
  | { outcome: 'not_found'; record: undefined };

interface Pending {
  tenantId: string;
  input: NewUsage;
}

export interface UsageIngestOptions {
  /** The most records one statement takes. */
  maxBatch: number;
  /** Writes in flight at once: PostgreSQL takes several side by side, SQLite has one writer. */
  lanes: number;
}

const keyOf = (tenantId: string, key: string) => `${tenantId}\u0000${key}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
// One key order for every insert: concurrent inserts that share keys then wait for one another
// instead of deadlocking on the unique index.
const byKey = (a: UsageRecordRow, b: UsageRecordRow) =>
  a.tenant_id === b.tenant_id
    ? compare(a.idempotency_key, b.idempotency_key)
    : compare(a.tenant_id, b.tenant_id);

/** RFC 3339 allows a leap second (23:59:60) that no Date can hold: a 400 for that record alone. */
export function recordedAt(timestamp: string, field = 'body.timestamp') {
  const time = new Date(timestamp);
  if (Number.isNaN(time.getTime())) throw validationError(`${field} is not a valid time`);
  return time.toISOString();
}

export function createUsageIngest(
  deps: { store: Store; clock: Clock; newId: IdGenerator },
  options: UsageIngestOptions,
) {
  const { db } = deps.store;
  const insert = usageWriter(deps.store);
  // Subscriptions are never deleted, so one seen once needs no second look.
  const known = new Set<string>();

  async function checkSubscriptions(group: Pending[]) {
    const unknown = new Map<string, Set<string>>();
    for (const { tenantId, input } of group) {
      if (known.has(keyOf(tenantId, input.subscription_id))) continue;
      const ids = unknown.get(tenantId) ?? new Set<string>();
      ids.add(input.subscription_id);
      unknown.set(tenantId, ids);
    }
    for (const [tenantId, ids] of unknown) {
      for (const id of await existingSubscriptions(db, tenantId, [...ids])) known.add(keyOf(tenantId, id));
    }
  }

  const rowOf = ({ tenantId, input }: Pending, createdAt: string): UsageRecordRow => ({
    id: deps.newId(),
    tenant_id: tenantId,
    subscription_id: input.subscription_id,
    metric_name: input.metric_name,
    quantity: input.quantity,
    recorded_at: recordedAt(input.timestamp),
    idempotency_key: input.idempotency_key,
    created_at: createdAt,
  });

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
      return await insert(rows);
    } catch (error) {
      if (attempts <= 1 || !deps.store.isTransientConflict(error)) throw error;
      return insertWithRetry(rows, attempts - 1);
    }
  }

  /** By row id: whether the row went in (false: its key was there already) or why it could not. */
  async function insertRows(rows: UsageRecordRow[]): Promise<Map<string, Settled<boolean>>> {
    try {
      const inserted = await insertWithRetry(rows);
      return new Map(rows.map((row) => [row.id, { ok: true, value: inserted.has(row.id) }]));
    } catch (error) {
      if (rows.length === 1) return new Map([[rows[0]!.id, { ok: false, error }]]);
      // A statement fails as a whole: one transaction more, a savepoint per row, finds the culprit.
      const alone = await eachInSavepoint(
        db,
        rows.map((row) => async (trx: Db) => (await insertNew(trx, [row])).has(row.id)),
      );
      return new Map(rows.map((row, i) => [row.id, alone[i]!]));
    }
  }

  /** The first row of each key in the group whose subscription exists, or why it has none. */
  function firstRows(group: Pending[]) {
    const createdAt = deps.clock.now().toISOString();
    const firsts = new Map<string, Settled<UsageRecordRow>>();
    for (const pending of group) {
      const key = keyOf(pending.tenantId, pending.input.idempotency_key);
      if (firsts.has(key) || !known.has(keyOf(pending.tenantId, pending.input.subscription_id))) continue;
      try {
        firsts.set(key, { ok: true, value: rowOf(pending, createdAt) });
      } catch (error) {
        firsts.set(key, { ok: false, error });
      }
    }
    return firsts;
  }

  async function write(group: Pending[]): Promise<Settled<UsageOutcome>[]> {
    await checkSubscriptions(group);
    const firsts = firstRows(group);
    const rows = [...firsts.values()].flatMap((first) => (first.ok ? [first.value] : [])).sort(byKey);
    const written = rows.length > 0 ? await insertRows(rows) : new Map<string, Settled<boolean>>();
    const inserted = (row: UsageRecordRow) => {
      const outcome = written.get(row.id);
      return outcome?.ok === true && outcome.value;
    };
    const earlier = await existing(rows.filter((row) => written.get(row.id)?.ok && !inserted(row)));
    const answered = new Set<string>();
    return group.map((pending): Settled<UsageOutcome> => {
      const key = keyOf(pending.tenantId, pending.input.idempotency_key);
      const first = firsts.get(key);
      if (!first) return { ok: true, value: { outcome: 'not_found', record: undefined } };
      const row = first.ok ? first.value : undefined;
      const stored = row ? written.get(row.id) : first;
      if (!row || !stored?.ok) return stored as { ok: false; error: unknown };
      // The first post of a key new to the store is the one created; any other is a duplicate.
      const created = inserted(row) && !answered.has(key);
      answered.add(key);
      const record = inserted(row) ? row : earlier.get(key);
      if (!record) return { ok: false, error: new Error('a repeated usage key has no stored record') };
      return { ok: true, value: { outcome: created ? 'created' : 'duplicate', record } };
    });
  }

  const groups = createGroupQueue<Pending, UsageOutcome>({
    maxGroup: options.maxBatch,
    lanes: options.lanes,
    write,
    gatherTurn: true,
  });

  return {
    submit: (tenantId: string, input: NewUsage) => groups.submit('usage', [{ tenantId, input }])[0]!,
    /** Queued together, so they go out in as few statements as the batch size allows. */
    submitMany: (tenantId: string, inputs: NewUsage[]) =>
      Promise.all(
        groups.submit(
          'usage',
          inputs.map((input) => ({ tenantId, input })),
        ),
      ),
    /** Drops what it knows of subscriptions; for tests that rebuild the store. */
    forget: () => known.clear(),
  };
}

export type UsageIngest = ReturnType<typeof createUsageIngest>;
