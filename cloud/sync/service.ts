import { Buffer } from 'node:buffer';
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Clock } from '../../shared/clock.ts';
import {
  AppError,
  InvalidRequestError,
  NotFoundError,
  TooManyRequestsError,
} from '../../shared/http/errors.ts';
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
import type { EventLog } from '../events/index.ts';
import type { StaffRecord } from '../tenancy/service.ts';
import { CLOUD_DOC_CLIENT, rowKey, toRowState } from './apply.ts';
import type { FeedPage } from './feed-json.ts';
import { createGroupCommit } from './group-commit.ts';
import { createPushApplier } from './push.ts';
import { createSyncStore, type Scope } from './store.ts';
import type { SyncApplianceRow, SyncLocationRow, SyncRowRow } from './tables.ts';
import { checkBatch } from './validate.ts';

export interface ApplianceIdentity extends Scope {
  applianceId: string;
}

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
const CREDENTIAL_PREFIX = 'sak_';
const CONFLICT_WINDOW_MS = 24 * 3600_000;
const PUSH_ATTEMPTS = 3;
/** How often an open wait looks for a trigger another replica stored (this one's wake it at once). */
const TRIGGER_POLL_MS = 2000;

const digestSecret = (secret: string) => createHash('sha256').update(secret).digest('base64url');

export const applianceUnauthorized = () =>
  new AppError(401, 'APPLIANCE_UNAUTHORIZED', 'A valid appliance credential is required', {
    headers: { 'www-authenticate': 'Appliance' },
  });

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
  const triggers = new EventEmitter().setMaxListeners(0);
  const closing = new AbortController();
  const now = () => clock.now().toISOString();
  const pusher = createPushApplier({ queries, events: deps.events, hlc, newId: deps.newId });
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

  /** Appends the cloud's new row states to the store's feed, in seq order. */
  async function appendFeed(trx: Db, scope: Scope, rows: SyncRowRow[]) {
    if (rows.length === 0) return;
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

  return {
    /** Issues a credential for one store's appliance; the secret is shown once. */
    async provisionAppliance(tenantId: string, input: { location_id: string; name?: string | undefined }) {
      const scope = { tenantId, locationId: input.location_id };
      await ensureLocation(scope);
      const id = deps.newId();
      const secret = randomBytes(32).toString('base64url');
      const row = {
        id,
        tenant_id: tenantId,
        location_id: input.location_id,
        name: input.name ?? 'appliance',
        secret_digest: digestSecret(secret),
        status: 'active' as const,
        created_at: now(),
        revoked_at: null,
      };
      await queries.insertAppliance(db, row);
      return { ...publicAppliance(row), credential: `${CREDENTIAL_PREFIX}${id}.${secret}` };
    },

    async listAppliances(tenantId: string, locationId?: string) {
      return (await queries.appliances(db, tenantId, locationId)).map(publicAppliance);
    },

    async revokeAppliance(tenantId: string, applianceId: string) {
      const row = await queries.appliance(db, applianceId);
      if (!row || row.tenant_id !== tenantId) throw new NotFoundError('Appliance', 'APPLIANCE_NOT_FOUND');
      await queries.revokeAppliances(db, { tenantId, locationId: row.location_id }, now(), applianceId);
    },

    /** The appliance a credential belongs to, or undefined; checked on every request, so revoking is immediate. */
    async authenticate(credential: string): Promise<ApplianceIdentity | undefined> {
      if (!credential.startsWith(CREDENTIAL_PREFIX)) return undefined;
      const [id, secret] = credential.slice(CREDENTIAL_PREFIX.length).split('.');
      if (!id || !secret || id.length > 64) return undefined;
      const row = await queries.appliance(db, id);
      if (row?.status !== 'active') return undefined;
      const expected = Buffer.from(row.secret_digest);
      const actual = Buffer.from(digestSecret(secret));
      if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return undefined;
      return { applianceId: row.id, tenantId: row.tenant_id, locationId: row.location_id };
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
            return await groups.run(key, (trx) => pusher.apply(trx, scope, body, digests, now()));
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
      const scope = { tenantId, locationId };
      await ensureLocation(scope);
      return db.transaction().execute(async (trx) => {
        // The row's lock first, then the location's (in appendFeed): the order a push takes them in.
        const [existing] = await queries.rows(trx, scope, [rowKey(table, rowId)]);
        const row = cloudRow(scope, table, rowId, fields, existing);
        const problem = row.fields === null ? undefined : checkFields(table, rowId, JSON.parse(row.fields));
        if (problem)
          throw new InvalidRequestError('The row is invalid', [{ field: 'fields', message: problem }]);
        await queries.upsertRows(trx, [row]);
        await appendFeed(trx, scope, [row]);
        return toRowState(row);
      });
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

    async status(tenantId: string, locationId: string) {
      const scope = { tenantId, locationId };
      if (!(await deps.locationExists(tenantId, locationId)))
        throw new NotFoundError('Location', 'LOCATION_NOT_FOUND');
      const location = await queries.location(db, scope);
      const at = clock.now();
      const counts = await queries.countsSince(
        db,
        scope,
        new Date(at.getTime() - CONFLICT_WINDOW_MS).toISOString(),
      );
      const seenAt = location?.last_seen_at ? Date.parse(location.last_seen_at) : undefined;
      const oldest = location?.oldest_pending_at ? Date.parse(location.oldest_pending_at) : undefined;
      return {
        location_id: locationId,
        online: seenAt !== undefined && at.getTime() - seenAt <= options.onlineWindowSeconds * 1000,
        last_seen_at: location?.last_seen_at ?? null,
        last_push_at: location?.last_push_at ?? null,
        last_pull_at: location?.last_pull_at ?? null,
        queue_depth: location?.queue_depth ?? 0,
        oldest_pending_at: location?.oldest_pending_at ?? null,
        lag_seconds: oldest === undefined ? 0 : Math.max(0, Math.round((at.getTime() - oldest) / 1000)),
        feed_seq: Number(location?.last_seq ?? 0),
        pulled_cursor: Number(location?.pulled_cursor ?? 0),
        pending_down: Math.max(0, Number(location?.last_seq ?? 0) - Number(location?.pulled_cursor ?? 0)),
        changes_24h: counts.changes,
        conflicts_24h: counts.conflicts,
        conflict_rate: counts.changes === 0 ? 0 : Number((counts.conflicts / counts.changes).toFixed(6)),
        trigger_pending: location?.trigger_requested_at != null,
      };
    },

    async conflicts(tenantId: string, locationId: string, limit: number) {
      if (!(await deps.locationExists(tenantId, locationId)))
        throw new NotFoundError('Location', 'LOCATION_NOT_FOUND');
      return queries.conflicts(db, { tenantId, locationId }, limit);
    },

    /** Asks the store's appliance to sync now; it hears it on its open wait request. */
    async trigger(tenantId: string, locationId: string, priority: string) {
      const scope = { tenantId, locationId };
      await ensureLocation(scope);
      const at = now();
      await queries.updateLocation(db, scope, { trigger_requested_at: at, trigger_priority: priority });
      triggers.emit(`${tenantId}/${locationId}`);
      const location = await queries.location(db, scope);
      const seenAt = location?.last_seen_at ? Date.parse(location.last_seen_at) : 0;
      return {
        location_id: locationId,
        priority,
        requested_at: at,
        delivered: clock.now().getTime() - seenAt <= options.onlineWindowSeconds * 1000,
      };
    },

    /**
     * The appliance's open channel: answers as soon as a trigger is pending (at once if one
     * already is), else after `timeoutMs`. Another replica's trigger is noticed by polling.
     */
    async waitForTrigger(
      appliance: ApplianceIdentity,
      timeoutMs: number,
      signal?: AbortSignal,
      queue: Partial<QueueState> = {},
    ) {
      const key = `${appliance.tenantId}/${appliance.locationId}`;
      await queries.updateLocation(db, appliance, { last_seen_at: now(), ...queueReport(queue) });
      const take = async () => {
        const location = await queries.location(db, appliance);
        if (!location?.trigger_requested_at) return undefined;
        await queries.updateLocation(db, appliance, { trigger_requested_at: null, trigger_priority: null });
        return { triggered: true, priority: location.trigger_priority ?? 'normal' };
      };
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const taken = await take();
        if (taken) return taken;
        const left = deadline - Date.now();
        if (left <= 0 || signal?.aborted || closing.signal.aborted)
          return { triggered: false, priority: null };
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            triggers.off(key, done);
            signal?.removeEventListener('abort', done);
            closing.signal.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, Math.min(left, TRIGGER_POLL_MS));
          triggers.on(key, done);
          signal?.addEventListener('abort', done);
          closing.signal.addEventListener('abort', done);
        });
      }
    },

    /** Answers every open wait at once, so a shutting-down replica does not hold them to the end. */
    close() {
      closing.abort();
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

/** The columns an appliance's queue report sets; a report it left out changes nothing. */
function queueReport(queue: Partial<QueueState>): Partial<SyncLocationRow> {
  if (queue.queue_depth === undefined) return {};
  return { queue_depth: queue.queue_depth, oldest_pending_at: queue.oldest_pending_at ?? null };
}

function publicAppliance(row: SyncApplianceRow) {
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    location_id: row.location_id,
    name: row.name,
    status: row.status,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
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
