import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { InvalidRequestError, NotFoundError, TooManyRequestsError } from '../../shared/http/errors.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import { createHlc } from '../../shared/sync/hlc.ts';
import {
  createRowDoc,
  loadRowDoc,
  readFields,
  settleRowDoc,
  writeFields,
} from '../../shared/sync/merge-doc.ts';
import {
  checkFields,
  type PushBody,
  type PushResult,
  type QueueState,
  type RowState,
} from '../../shared/sync/protocol.ts';
import { type Fields, SYNC_TABLES, type SyncTableName, travelsDown } from '../../shared/sync/registry.ts';
import type { Db, Store } from '../db/index.ts';
import type { DomainEventRow, EventLog } from '../events/index.ts';
import type { StaffRecord } from '../tenancy/index.ts';
import { type ApplianceIdentity, createApplianceCredentials } from './appliances.ts';
import { CLOUD_DOC_CLIENT, rowKey, toRowState } from './apply.ts';
import type { FeedPage } from './feed-json.ts';
import { createGroupCommit } from './group-commit.ts';
import {
  createPushApplier,
  type DeletionObserver,
  notifyObservers,
  type RowObserver,
  type TableObserver,
} from './push.ts';
import { createSyncStatus } from './status.ts';
import { createSyncStore, type Scope } from './store.ts';
import type { SyncRowRow } from './tables.ts';
import { createTriggerChannel, queueReport } from './triggers.ts';
import { checkBatch } from './validate.ts';

export interface SyncDeps {
  store: Store;
  events: EventLog;
  clock: Clock;
  newId: IdGenerator;
  /** The tenant's staff for a snapshot, from the tenancy module. */
  staffOf(tenantId: string): Promise<StaffRecord[]>;
  /** Whether the location exists in the tenant, from the tenancy module. */
  locationExists(tenantId: string, locationId: string): Promise<boolean>;
  options?: Partial<SyncOptions>;
}

/** One row head office writes at a store; see `editFromCloud`. */
export interface CloudEdit {
  table: SyncTableName;
  rowId: string;
  /**
   * The row after the edit, null to delete it, or a function of the row as it stands (undefined
   * when the store has no such row) that may answer undefined to leave the row as it is.
   */
  fields: Fields | null | ((current: Fields | undefined) => Fields | null | undefined);
  /** The domain events the edit makes at the store, written with it (once per store and edit). */
  events?: (
    before: Fields | undefined,
    after: Fields | null,
    version: number,
  ) => Array<{ type: string; data: object }>;
}

export interface CloudEditResult {
  rows: RowState[];
  /**
   * The store's feed seq of the batch's last row (its newest seq when nothing needed writing): the
   * store holds what the batch asked for once its pull has passed it.
   */
  last_seq: number;
}

/** A committed push: its scope, what the appliance sent (its queue report among it) and when. */
export type PushListener = (scope: Scope, body: PushBody, at: string) => void;

export interface SyncOptions {
  /** Feed entries older than this are pruned; a cursor older than what is left gets a reset. */
  feedRetentionDays: number;
  /** Pushes being applied at once on this replica before new ones are asked to come back later. */
  maxConcurrentPushes: number;
  /** An appliance not heard from for this long is shown offline. */
  onlineWindowSeconds: number;
}

const DEFAULT_OPTIONS: SyncOptions = {
  feedRetentionDays: 30,
  maxConcurrentPushes: 8,
  onlineWindowSeconds: 90,
};
const PUSH_ATTEMPTS = 3;

/**
 * The cloud side of sync: appliances push their outbox here and pull what changed in the cloud
 * for their store. Everything for one push or one cloud edit commits in one transaction.
 */
export function createSyncService(deps: SyncDeps) {
  const { store, clock } = deps;
  const options = { ...DEFAULT_OPTIONS, ...deps.options };
  const db = store.db;
  const queries = createSyncStore(store);
  // A node id per process: two cloud replicas must never issue the same stamp.
  const hlc = createHlc(`cloud.${randomBytes(4).toString('hex')}`, () => clock.now().getTime());
  const now = () => clock.now().toISOString();
  const observers = new Map<SyncTableName, TableObserver[]>();
  const pushed: PushListener[] = [];
  const snapshotting: Array<(scope: Scope) => Promise<void>> = [];
  const pusher = createPushApplier({ queries, events: deps.events, hlc, newId: deps.newId, observers });
  const groups = createGroupCommit(db, {
    maxGroup: options.maxConcurrentPushes,
    lanes: store.dialect === 'pg' ? 2 : 1,
  });
  let pushesInFlight = 0;

  async function ensureLocation(scope: Scope) {
    if (!(await deps.locationExists(scope.tenantId, scope.locationId)))
      throw new NotFoundError('Location', 'LOCATION_NOT_FOUND');
    await queries.ensureLocation(db, scope);
  }

  /** Appends the cloud's new row states to the store's feed, in seq order; answers the last seq. */
  async function appendFeed(trx: Db, scope: Scope, rows: SyncRowRow[]) {
    if (rows.length === 0) return undefined;
    const first = await queries.takeSeqs(trx, scope, rows.length);
    await queries.insertFeed(
      trx,
      rows.map((row, i) => ({
        tenant_id: scope.tenantId,
        location_id: scope.locationId,
        seq: first + i,
        table_name: row.table_name,
        row_id: row.row_id,
        version: row.version,
        deleted: row.deleted,
        hlc: row.hlc,
        fields: row.fields,
        doc: row.doc,
        created_at: row.updated_at,
      })),
    );
    return first + rows.length - 1;
  }

  function admit() {
    if (pushesInFlight >= options.maxConcurrentPushes)
      throw new TooManyRequestsError('Sync is busy; push this batch again shortly', 1, 'SYNC_BUSY');
    pushesInFlight += 1;
    return () => {
      pushesInFlight -= 1;
    };
  }

  /**
   * Builds a row for a cloud edit: server_wins replaces the row and bumps its version; merge
   * stamps only the fields given, so an edit never overrides the appliance's edits of other fields.
   */
  function cloudRow(
    scope: Scope,
    table: SyncTableName,
    rowId: string,
    fields: Fields | null,
    existing: SyncRowRow | undefined,
  ): SyncRowRow {
    const at = now();
    const stamp = hlc.tick();
    const base = {
      tenant_id: scope.tenantId,
      location_id: scope.locationId,
      row_key: rowKey(table, rowId),
      table_name: table,
      row_id: rowId,
      version: (existing?.version ?? 0) + 1,
      hlc: stamp,
      updated_at: at,
    };
    if (fields === null) return { ...base, deleted: 1, fields: null, doc: null };
    if (SYNC_TABLES[table].strategy !== 'merge')
      return { ...base, deleted: 0, fields: JSON.stringify(fields), doc: null };
    const loaded = existing?.doc
      ? loadRowDoc(Buffer.from(existing.doc, 'base64'), CLOUD_DOC_CLIENT)
      : createRowDoc(CLOUD_DOC_CLIENT);
    writeFields(loaded, fields as Record<string, string | number | boolean | null>, stamp);
    const { doc, state } = settleRowDoc(loaded, CLOUD_DOC_CLIENT);
    return {
      ...base,
      deleted: 0,
      fields: JSON.stringify(readFields(doc)),
      doc: Buffer.from(state).toString('base64'),
    };
  }

  async function writeEdits(trx: Db, scope: Scope, edits: readonly CloudEdit[]): Promise<CloudEditResult> {
    // Rows in key order, then the location's lock (in appendFeed): the order a push takes them in,
    // so two batches touching the same rows never wait on each other in a circle.
    const keys = [...new Set(edits.map((edit) => rowKey(edit.table, edit.rowId)))].sort();
    const existing = new Map((await queries.rows(trx, scope, keys)).map((row) => [row.row_key, row]));
    const written: SyncRowRow[] = [];
    const events: DomainEventRow[] = [];
    const at = now();
    for (const edit of edits) {
      const key = rowKey(edit.table, edit.rowId);
      const current = existing.get(key);
      const before =
        current && current.deleted === 0 && current.fields
          ? (JSON.parse(current.fields) as Fields)
          : undefined;
      const fields = typeof edit.fields === 'function' ? edit.fields(before) : edit.fields;
      if (fields === undefined) continue;
      const row = cloudRow(scope, edit.table, edit.rowId, fields, current);
      const after = row.fields === null ? null : (JSON.parse(row.fields) as Fields);
      const problem = after === null ? undefined : checkFields(edit.table, edit.rowId, after);
      if (problem)
        throw new InvalidRequestError('The row is invalid', [{ field: 'fields', message: problem }]);
      existing.set(key, row);
      written.push(row);
      for (const event of edit.events?.(before, after, Number(row.version)) ?? [])
        events.push({
          id: deps.newId(),
          tenant_id: scope.tenantId,
          location_id: scope.locationId,
          type: event.type,
          occurred_at: at,
          data: JSON.stringify(event.data),
          received_at: at,
        });
    }
    const latest = [...new Map(written.map((row) => [row.row_key, row])).values()];
    await queries.upsertRows(trx, latest);
    const lastSeq =
      (await appendFeed(trx, scope, written)) ?? Number((await queries.location(trx, scope))?.last_seq ?? 0);
    await deps.events.append(trx, events);
    await notifyObservers(observers, trx, scope, latest);
    // The store hears of head office's change now, not at its next scheduled round.
    if (written.length > 0) await queries.requestPull(trx, scope, at);
    return { rows: written.map(toRowState), last_seq: lastSeq };
  }

  const credentials = createApplianceCredentials({ queries, db, newId: deps.newId, now, ensureLocation });
  const channel = createTriggerChannel({
    queries,
    db,
    clock,
    now,
    ensureLocation,
    onlineWindowSeconds: options.onlineWindowSeconds,
  });

  const health = createSyncStatus({
    queries,
    db,
    clock,
    onlineWindowSeconds: options.onlineWindowSeconds,
    locationExists: deps.locationExists,
  });

  return {
    ...credentials,
    ...channel,
    ...health,

    /**
     * Lets another module act on a table's rows in the transaction that applies a push or a cloud
     * edit of them; `deleted` hears of the rows deleted, for a module that keeps something per row.
     */
    observe(table: SyncTableName, written: RowObserver, deleted?: DeletionObserver) {
      observers.set(table, [...(observers.get(table) ?? []), { written, deleted }]);
    },

    /**
     * Lets another module hear of each push once it committed, with the queue the appliance
     * reported (AIOps samples sync lag and queue depth from it). A listener must not throw.
     */
    onPushed(listener: PushListener) {
      pushed.push(listener);
    },

    /**
     * Lets another module make sure a store holds its rows before the store starts over from a
     * snapshot: a new store gets its brand's menu this way on its first sync.
     */
    beforeSnapshot(hook: (scope: Scope) => Promise<void>) {
      snapshotting.push(hook);
    },

    /** How far each of these stores has pulled its feed (0 for a store that never pulled). */
    async pulledCursors(tenantId: string, locationIds: readonly string[]) {
      const rows = await queries.pulledCursors(db, tenantId, locationIds);
      return new Map(rows.map((row) => [row.location_id, Number(row.pulled_cursor)]));
    },

    /** Applies a batch in one transaction and answers per change; a bad batch is refused whole. */
    async push(appliance: ApplianceIdentity, body: PushBody): Promise<PushResult> {
      const digests = checkBatch(body, appliance.locationId);
      const release = admit();
      try {
        const scope = { tenantId: appliance.tenantId, locationId: appliance.locationId };
        const key = `${scope.tenantId}/${scope.locationId}`;
        // Two pushes of the same changes at once on two replicas (a resend racing its original):
        // the loser runs again, finds the winner's rows and answers them as duplicates.
        for (let attempt = 1; ; attempt += 1) {
          try {
            const result = await groups.run(key, (trx) => pusher.apply(trx, scope, body, digests, now()));
            for (const listener of pushed) listener(scope, body, now());
            return result;
          } catch (error) {
            if (attempt >= PUSH_ATTEMPTS || !store.isTransientConflict(error)) throw error;
          }
        }
      } finally {
        release();
      }
    },

    /**
     * The store's feed after `cursor`; a cursor the feed no longer reaches asks for a snapshot.
     * The store's progress is written when a pull reaches the end of the feed, not on every page:
     * a write per page would cost a commit each, on the row every push of the store also takes.
     */
    async pull(
      appliance: ApplianceIdentity,
      cursor: number,
      limit: number,
      queue: Partial<QueueState> = {},
    ): Promise<FeedPage> {
      const location = await queries.location(db, appliance);
      if (!location) throw new NotFoundError('Location', 'LOCATION_NOT_FOUND');
      const at = now();
      const reported = queueReport(queue);
      if (cursor < Number(location.feed_floor) || cursor > Number(location.last_seq)) {
        await queries.updateLocation(db, appliance, { last_seen_at: at, ...reported });
        return { rows: [], cursor, has_more: false, reset: true, server_hlc: hlc.tick() };
      }
      const rows = await queries.feed(db, appliance, cursor, limit);
      const next = rows.length > 0 ? Number(rows.at(-1)!.seq) : cursor;
      const hasMore = rows.length === limit;
      if (!hasMore)
        await queries.updateLocation(db, appliance, {
          last_pull_at: at,
          last_seen_at: at,
          pulled_cursor: next,
          ...reported,
        });
      return { rows, cursor: next, has_more: hasMore, reset: false, server_hlc: hlc.tick() };
    },

    /**
     * The store's rows as the cloud holds them, by row key, for an appliance starting over. The
     * first page also names the feed cursor to pull from once every page is applied, and the
     * tenant's staff; rows changed while paging come again through the feed.
     */
    async snapshot(appliance: ApplianceIdentity, after: string, limit: number) {
      const location = await queries.location(db, appliance);
      if (!location) throw new NotFoundError('Location', 'LOCATION_NOT_FOUND');
      const first = after === '';
      if (first) for (const hook of snapshotting) await hook(appliance);
      const rows = await queries.tableRows(db, appliance, after, limit);
      const staff = first ? await deps.staffOf(appliance.tenantId) : [];
      const stamp = hlc.tick();
      return {
        rows: [
          ...staff.map((s) => staffState(s, stamp)),
          ...rows.filter((r) => travelsDown(r.table_name as SyncTableName)).map(toRowState),
        ],
        next_after: rows.length === limit ? rows.at(-1)!.row_key : null,
        cursor: Number(location.last_seq),
        server_hlc: stamp,
      };
    },

    /**
     * A change made in the cloud (head office edits a price, payroll corrects a punch): the row
     * is written and queued for the store's appliance in one transaction. `fields` null deletes.
     */
    async writeFromCloud(
      tenantId: string,
      locationId: string,
      table: SyncTableName,
      rowId: string,
      fields: Fields | null,
    ): Promise<RowState> {
      const { rows } = await this.editFromCloud(tenantId, locationId, [{ table, rowId, fields }]);
      return rows[0]!;
    },

    /**
     * Head office's edits of one store's rows, written, observed (P&L, the commerce views) and
     * queued for the store's appliance in one transaction: a menu published to a store is one
     * commit, not one per row. An edit given as a function decides from the row as it stands,
     * read under the row's lock, so a refund checks what is left to refund against the row it
     * replaces. The store must exist; an edit's error rolls back the whole batch.
     */
    async editFromCloud(
      tenantId: string,
      locationId: string,
      edits: readonly CloudEdit[],
    ): Promise<CloudEditResult> {
      const scope = { tenantId, locationId };
      await ensureLocation(scope);
      for (let attempt = 1; ; attempt += 1) {
        try {
          const result = await db.transaction().execute((trx) => writeEdits(trx, scope, edits));
          if (result.rows.length > 0) channel.wake(tenantId, locationId);
          return result;
        } catch (error) {
          if (attempt >= PUSH_ATTEMPTS || !store.isTransientConflict(error)) throw error;
        }
      }
    },

    /** The cloud's current row, for the cloud's own readers (reports, tests). */
    async row(tenantId: string, locationId: string, table: SyncTableName, rowId: string) {
      const [row] = await queries.rows(db, { tenantId, locationId }, [rowKey(table, rowId)]);
      return row && row.deleted === 0 ? toRowState(row) : undefined;
    },

    /** Every live row of a table at a store. */
    async rows(tenantId: string, locationId: string, table: SyncTableName) {
      const result: RowState[] = [];
      for (let after = `${table}/`; ; ) {
        const page = await queries.tableRows(db, { tenantId, locationId }, after, 1000);
        for (const row of page) if (row.table_name === table) result.push(toRowState(row));
        if (page.length < 1000 || page.at(-1)!.table_name !== table) return result;
        after = page.at(-1)!.row_key;
      }
    },

    /**
     * A person changed in the tenancy module: queued for every store of the tenant, in the
     * caller's transaction, so the change and its delivery commit together.
     */
    async publishStaff(trx: Db, staff: StaffRecord) {
      const stamp = hlc.tick();
      for (const { location_id } of await queries.locationsOfTenant(trx, staff.tenant_id)) {
        const scope = { tenantId: staff.tenant_id, locationId: location_id };
        const seq = await queries.takeSeqs(trx, scope, 1);
        const state = staffState(staff, stamp);
        await queries.insertFeed(trx, [
          {
            tenant_id: scope.tenantId,
            location_id,
            seq,
            table_name: 'staff',
            row_id: staff.id,
            version: state.version,
            deleted: 0,
            hlc: stamp,
            fields: JSON.stringify(state.fields),
            doc: null,
            created_at: now(),
          },
        ]);
      }
    },

    async conflicts(tenantId: string, locationId: string, limit: number) {
      if (!(await deps.locationExists(tenantId, locationId)))
        throw new NotFoundError('Location', 'LOCATION_NOT_FOUND');
      return queries.conflicts(db, { tenantId, locationId }, limit);
    },

    /** Drops feed entries past retention; their stores will start over from a snapshot if that far behind. */
    async pruneFeed(tenantId: string, locationId: string) {
      const scope = { tenantId, locationId };
      const before = new Date(clock.now().getTime() - options.feedRetentionDays * 86_400_000).toISOString();
      const pruned = await queries.pruneFeed(db, scope, before);
      if (pruned.length === 0) return 0;
      const floor = Math.max(...pruned.map((p) => Number(p.seq)));
      const location = await queries.location(db, scope);
      if (location && floor > Number(location.feed_floor))
        await queries.updateLocation(db, scope, { feed_floor: floor });
      return pruned.length;
    },
  };
}

function staffState(staff: StaffRecord, stamp: string): RowState {
  return {
    table: 'staff',
    row_id: staff.id,
    version: Date.parse(staff.updated_at),
    deleted: false,
    hlc: stamp,
    fields: { ...staff, roles: JSON.stringify(staff.roles) },
  };
}

export type SyncService = ReturnType<typeof createSyncService>;
