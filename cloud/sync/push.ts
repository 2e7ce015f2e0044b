/**
 * Applying one pushed batch: every change meets the cloud's row in batch order, inside one
 * transaction, and each gets its answer. Checks that need no database (shape, scope, size) ran
 * before this, in validate.ts.
 */
import { AppError, ConflictError } from '../../shared/http/errors.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import { type Hlc, HlcDriftError } from '../../shared/sync/hlc.ts';
import type { Change, ChangeOutcome, PushBody, PushResult } from '../../shared/sync/protocol.ts';
import type { Fields, SyncTableName } from '../../shared/sync/registry.ts';
import type { Db } from '../db/index.ts';
import type { DomainEventRow, EventLog } from '../events/index.ts';
import { decide, rowKey, toRowState } from './apply.ts';
import type { Scope, SyncStore } from './store.ts';
import type { SyncChangeRow, SyncConflictRow, SyncRowRow } from './tables.ts';

const REPORT_INTERVAL_MS = 1000;

/**
 * A module acting on a synced table's rows as the stores push them (the device registry reads
 * store_devices): called in the push's transaction with the batch's applied rows of that table,
 * newest state of each, so its own writes commit or roll back with them.
 */
export type RowObserver = (
  trx: Db,
  scope: Scope,
  rows: Array<{ row_id: string; version: number; fields: Fields }>,
) => Promise<void>;

/** The same for the rows a batch deleted, by id (only for modules that keep something per row). */
export type DeletionObserver = (trx: Db, scope: Scope, rowIds: string[]) => Promise<void>;

export interface TableObserver {
  written: RowObserver;
  deleted?: DeletionObserver | undefined;
}

export interface PushDeps {
  queries: SyncStore;
  events: EventLog;
  hlc: Hlc;
  newId: IdGenerator;
  observers: ReadonlyMap<SyncTableName, readonly TableObserver[]>;
}

/** What one batch leaves to write once every change has been decided. */
interface BatchWrites {
  rows: Map<string, SyncRowRow>;
  changes: SyncChangeRow[];
  conflicts: SyncConflictRow[];
  events: DomainEventRow[];
  results: ChangeOutcome[];
}

export function createPushApplier(deps: PushDeps) {
  const { queries } = deps;

  /**
   * Applies the batch in the caller's transaction. Versions are counters both sides advance, so
   * "based on version 2" is ambiguous once the cloud refused the store's own version 2: the
   * store's next change builds on a row the cloud never took. Within a batch (and on a resend of
   * an answered one) such a change conflicts too; across batches the appliance drops them itself
   * when it learns of the conflict, before it sends the row again.
   */
  async function apply(trx: Db, scope: Scope, body: PushBody, digests: Map<string, string>, at: string) {
    const context = { ...scope, at };
    const keys = [...new Set(body.changes.map((c) => rowKey(c.table, c.row_id)))];
    const [seenChanges, found] = await Promise.all([
      queries.changes(trx, scope, [...digests.keys()]),
      queries.rowsAnywhere(trx, keys),
    ]);
    const foreign = found.find((r) => r.tenant_id !== scope.tenantId || r.location_id !== scope.locationId);
    if (foreign)
      throw new AppError(403, 'OUT_OF_SCOPE', `Row ${foreign.row_key} belongs to another location`);
    const seen = new Map(seenChanges.map((c) => [c.change_id, c]));
    const rows = new Map(found.map((r) => [r.row_key, r]));
    const refused = new Map<string, Set<number>>();
    const writes: BatchWrites = { rows: new Map(), changes: [], conflicts: [], events: [], results: [] };

    const refuse = (key: string, version: number) => {
      const versions = refused.get(key) ?? new Set<number>();
      versions.add(version);
      refused.set(key, versions);
    };
    const record = (change: Change, key: string, status: SyncChangeRow['status'], reason: string | null) => {
      const row: SyncChangeRow = {
        tenant_id: scope.tenantId,
        location_id: scope.locationId,
        change_id: change.change_id,
        row_key: key,
        digest: digests.get(change.change_id)!,
        status,
        reason,
        received_at: at,
      };
      writes.changes.push(row);
      seen.set(change.change_id, row);
    };

    for (const change of body.changes) {
      const key = rowKey(change.table, change.row_id);
      const before = seen.get(change.change_id);
      if (before) {
        answerRepeat(change, before, rows.get(key), digests, writes);
        if (before.status === 'conflict') refuse(key, change.version);
        continue;
      }
      observe(deps.hlc, change.hlc);
      const current = rows.get(key);
      const decision =
        current && refused.get(key)?.has(change.base_version)
          ? ({ status: 'conflict', winner: current } as const)
          : decide(change, current, context);
      if (decision.status === 'applied') {
        rows.set(key, decision.row);
        if (change.table === 'events') writes.events.push(eventRow(decision.row, scope, at));
        else writes.rows.set(key, decision.row);
        record(change, key, 'applied', null);
        writes.results.push({
          change_id: change.change_id,
          status: 'applied',
          ...(decision.echo ? { row: decision.echo } : {}),
        });
      } else if (decision.status === 'conflict') {
        refuse(key, change.version);
        writes.conflicts.push(conflictRow(deps.newId(), scope, change, decision.winner, at));
        record(change, key, 'conflict', null);
        writes.results.push({
          change_id: change.change_id,
          status: 'conflict',
          row: toRowState(decision.winner),
        });
      } else {
        record(change, key, 'rejected', decision.reason);
        writes.results.push({ change_id: change.change_id, status: 'rejected', reason: decision.reason });
      }
    }

    await queries.upsertRows(trx, [...writes.rows.values()]);
    await queries.insertChanges(trx, writes.changes);
    await queries.insertConflicts(trx, writes.conflicts);
    await deps.events.append(trx, writes.events);
    await notifyObservers(deps.observers, trx, scope, writes.rows.values());
    if (reportDue(scope, at, body))
      await queries.updateLocation(trx, scope, {
        last_push_at: at,
        last_seen_at: at,
        ...(body.queue_depth !== undefined
          ? { queue_depth: body.queue_depth, oldest_pending_at: body.oldest_pending_at ?? null }
          : {}),
      });
    return { results: writes.results, server_hlc: deps.hlc.tick() } satisfies PushResult;
  }

  /**
   * The store's status row is written at most once a second per store and replica while it
   * drains a backlog (each write is a round trip, on the row every push of the store updates),
   * and always for the batch that empties its queue. The pull that ends every round reports the
   * queue again, so the status is right once the store has drained.
   */
  const reported = new Map<string, number>();
  function reportDue(scope: Scope, at: string, body: PushBody) {
    const key = `${scope.tenantId}/${scope.locationId}`;
    const now = Date.parse(at);
    if (body.queue_depth !== 0 && now - (reported.get(key) ?? 0) < REPORT_INTERVAL_MS) return false;
    reported.set(key, now);
    return true;
  }

  return { apply };
}

/**
 * Takes a store's stamp into the cloud's clock, unless that store's clock runs more than a day
 * ahead: its change still applies (its stamp still orders its merged fields), but one bad clock
 * does not drag every stamp the cloud issues along with it.
 */
/** Hands each table's written and deleted rows to the modules observing it, in the writing transaction. */
export async function notifyObservers(
  observers: ReadonlyMap<SyncTableName, readonly TableObserver[]>,
  trx: Db,
  scope: Scope,
  rows: Iterable<SyncRowRow>,
) {
  if (observers.size === 0) return;
  const byTable = new Map<SyncTableName, { written: Parameters<RowObserver>[2]; deleted: string[] }>();
  for (const row of rows) {
    const table = row.table_name as SyncTableName;
    if (!observers.has(table)) continue;
    const batch = byTable.get(table) ?? { written: [], deleted: [] };
    byTable.set(table, batch);
    if (row.fields === null) batch.deleted.push(row.row_id);
    else
      batch.written.push({
        row_id: row.row_id,
        version: Number(row.version),
        fields: JSON.parse(row.fields) as Fields,
      });
  }
  for (const [table, { written, deleted }] of byTable)
    for (const observer of observers.get(table)!) {
      if (written.length > 0) await observer.written(trx, scope, written);
      if (deleted.length > 0 && observer.deleted) await observer.deleted(trx, scope, deleted);
    }
}

function observe(hlc: Hlc, stamp: string) {
  try {
    hlc.receive(stamp);
  } catch (error) {
    if (!(error instanceof HlcDriftError)) throw error;
  }
}

/**
 * A change id seen before: the same content gets the answer it got then; other content is refused.
 * When the row has moved on since (the first answer was lost, and the cloud edited the row in
 * between), the answer carries the row as it stands: the appliance skipped that edit in the feed
 * while this change was unanswered, and would otherwise never see it.
 */
function answerRepeat(
  change: Change,
  before: SyncChangeRow,
  current: SyncRowRow | undefined,
  digests: Map<string, string>,
  writes: BatchWrites,
) {
  if (before.digest !== digests.get(change.change_id))
    throw new ConflictError(
      `Change ${change.change_id} was sent before with other content`,
      'CHANGE_ID_REUSED',
    );
  writes.results.push({
    change_id: change.change_id,
    status: before.status === 'applied' ? 'duplicate' : before.status,
    ...(before.reason ? { reason: before.reason } : {}),
    ...(current && (before.status !== 'applied' || current.version !== change.version)
      ? { row: toRowState(current) }
      : {}),
  });
}

function conflictRow(
  id: string,
  scope: Scope,
  change: Change,
  winner: SyncRowRow,
  at: string,
): SyncConflictRow {
  return {
    id,
    tenant_id: scope.tenantId,
    location_id: scope.locationId,
    table_name: change.table,
    row_id: change.row_id,
    change_id: change.change_id,
    client_base_version: change.base_version,
    client_version: change.version,
    server_version: winner.version,
    client_fields: change.fields === null ? null : JSON.stringify(change.fields),
    server_fields: winner.fields,
    occurred_at: at,
  };
}

function eventRow(row: SyncRowRow, scope: Scope, at: string): DomainEventRow {
  const fields = JSON.parse(row.fields ?? '{}') as {
    id: string;
    type: string;
    occurred_at: string;
    data: string;
  };
  return {
    id: fields.id,
    tenant_id: scope.tenantId,
    location_id: scope.locationId,
    type: fields.type,
    occurred_at: fields.occurred_at,
    data: fields.data,
    received_at: at,
  };
}
