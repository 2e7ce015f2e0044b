import { sql } from 'kysely';
import type { Db, Store } from '../db/index.ts';
import type {
  SyncApplianceRow,
  SyncChangeRow,
  SyncConflictRow,
  SyncFeedRow,
  SyncLocationRow,
  SyncRowRow,
} from './tables.ts';

export interface Scope {
  tenantId: string;
  locationId: string;
}

/**
 * The sync module's queries. Each takes the connection or transaction to run on, so one push is
 * one transaction whatever it touches. Row locks are PostgreSQL's (`for update`): SQLite has a
 * single writer, so its transactions never interleave.
 */
export function createSyncStore(store: Pick<Store, 'dialect' | 'selectByKeys'>) {
  const locking = store.dialect === 'pg';

  return {
    insertAppliance: (db: Db, row: SyncApplianceRow) =>
      db.insertInto('sync_appliances').values(row).execute(),
    /** A new secret (and store) for an appliance enrolling again; its history stays. */
    reissueAppliance: (db: Db, row: SyncApplianceRow) =>
      db
        .updateTable('sync_appliances')
        .set({
          location_id: row.location_id,
          name: row.name,
          secret_digest: row.secret_digest,
          status: 'active',
          revoked_at: null,
        })
        .where('id', '=', row.id)
        .where('tenant_id', '=', row.tenant_id)
        .execute(),
    appliance: (db: Db, id: string) =>
      db.selectFrom('sync_appliances').selectAll().where('id', '=', id).executeTakeFirst(),
    appliances: (db: Db, tenantId: string, locationId?: string) =>
      db
        .selectFrom('sync_appliances')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(locationId !== undefined, (q) => q.where('location_id', '=', locationId!))
        .orderBy('created_at')
        .execute(),
    revokeAppliances: (db: Db, scope: Scope, at: string, id?: string) =>
      db
        .updateTable('sync_appliances')
        .set({ status: 'revoked', revoked_at: at })
        .where('tenant_id', '=', scope.tenantId)
        .where('location_id', '=', scope.locationId)
        .where('status', '=', 'active')
        .$if(id !== undefined, (q) => q.where('id', '=', id!))
        .executeTakeFirst(),

    ensureLocation: (db: Db, scope: Scope) =>
      db
        .insertInto('sync_locations')
        .values({
          tenant_id: scope.tenantId,
          location_id: scope.locationId,
          last_seq: 0,
          feed_floor: 0,
          last_push_at: null,
          last_pull_at: null,
          last_seen_at: null,
          pulled_cursor: 0,
          queue_depth: 0,
          oldest_pending_at: null,
          trigger_requested_at: null,
          trigger_priority: null,
        })
        .onConflict((c) => c.columns(['tenant_id', 'location_id']).doNothing())
        .execute(),
    location: (db: Db, scope: Scope): Promise<SyncLocationRow | undefined> =>
      db
        .selectFrom('sync_locations')
        .selectAll()
        .where('tenant_id', '=', scope.tenantId)
        .where('location_id', '=', scope.locationId)
        .executeTakeFirst(),
    pulledCursors: (db: Db, tenantId: string, locationIds: readonly string[]) =>
      locationIds.length === 0
        ? Promise.resolve([])
        : db
            .selectFrom('sync_locations')
            .select(['location_id', 'pulled_cursor'])
            .where('tenant_id', '=', tenantId)
            .where('location_id', 'in', locationIds)
            .execute(),
    locationsOfTenant: (db: Db, tenantId: string) =>
      db.selectFrom('sync_locations').select('location_id').where('tenant_id', '=', tenantId).execute(),
    updateLocation: (db: Db, scope: Scope, patch: Partial<SyncLocationRow>) =>
      db
        .updateTable('sync_locations')
        .set(patch)
        .where('tenant_id', '=', scope.tenantId)
        .where('location_id', '=', scope.locationId)
        .execute(),
    /** Asks the store's appliance to pull, keeping a trigger already pending (and its priority). */
    requestPull: (db: Db, scope: Scope, at: string) =>
      db
        .updateTable('sync_locations')
        .set({
          trigger_requested_at: sql`coalesce(trigger_requested_at, ${at})`,
          trigger_priority: sql`coalesce(trigger_priority, 'normal')`,
        })
        .where('tenant_id', '=', scope.tenantId)
        .where('location_id', '=', scope.locationId)
        .execute(),
    /** Takes `count` feed seqs; the row stays locked until commit, so seqs commit in order. */
    async takeSeqs(db: Db, scope: Scope, count: number) {
      const row = await db
        .updateTable('sync_locations')
        .set({ last_seq: sql`last_seq + ${count}` })
        .where('tenant_id', '=', scope.tenantId)
        .where('location_id', '=', scope.locationId)
        .returning('last_seq')
        .executeTakeFirstOrThrow();
      return Number(row.last_seq) - count + 1;
    },

    rows: (db: Db, scope: Scope, keys: string[]): Promise<SyncRowRow[]> =>
      keys.length === 0
        ? Promise.resolve([])
        : store.selectByKeys<SyncRowRow>(db, {
            table: 'sync_rows',
            keyColumn: 'row_key',
            keys,
            where: { tenant_id: scope.tenantId, location_id: scope.locationId },
            forUpdate: locking,
          }),
    /**
     * The rows under these keys in any store, locked: a push needs its own store's rows, and must
     * know of a key another store uses (one read, where a second one looked for those alone).
     */
    rowsAnywhere: (db: Db, keys: string[]): Promise<SyncRowRow[]> =>
      store.selectByKeys<SyncRowRow>(db, {
        table: 'sync_rows',
        keyColumn: 'row_key',
        keys,
        where: {},
        forUpdate: locking,
      }),
    upsertRows: (db: Db, rows: SyncRowRow[]) =>
      rows.length === 0
        ? Promise.resolve()
        : db
            .insertInto('sync_rows')
            .values(rows)
            .onConflict((c) =>
              c.columns(['tenant_id', 'location_id', 'row_key']).doUpdateSet((eb) => ({
                version: eb.ref('excluded.version'),
                deleted: eb.ref('excluded.deleted'),
                hlc: eb.ref('excluded.hlc'),
                fields: eb.ref('excluded.fields'),
                doc: eb.ref('excluded.doc'),
                updated_at: eb.ref('excluded.updated_at'),
              })),
            )
            .execute()
            .then(() => undefined),
    tableRows: (db: Db, scope: Scope, after: string, limit: number) =>
      db
        .selectFrom('sync_rows')
        .selectAll()
        .where('tenant_id', '=', scope.tenantId)
        .where('location_id', '=', scope.locationId)
        .where('row_key', '>', after)
        .where('deleted', '=', 0)
        .orderBy('row_key')
        .limit(limit)
        .execute(),

    changes: (db: Db, scope: Scope, changeIds: string[]): Promise<SyncChangeRow[]> =>
      store.selectByKeys<SyncChangeRow>(db, {
        table: 'sync_changes',
        keyColumn: 'change_id',
        keys: changeIds,
        where: { tenant_id: scope.tenantId, location_id: scope.locationId },
      }),
    insertChanges: (db: Db, rows: SyncChangeRow[]) =>
      rows.length === 0
        ? Promise.resolve()
        : db
            .insertInto('sync_changes')
            .values(rows)
            .execute()
            .then(() => undefined),
    insertConflicts: (db: Db, rows: SyncConflictRow[]) =>
      rows.length === 0
        ? Promise.resolve()
        : db
            .insertInto('sync_conflicts')
            .values(rows)
            .execute()
            .then(() => undefined),
    /** The sync rows of these stores of the tenant (a store that never synced has none). */
    locationsIn: (db: Db, tenantId: string, locationIds: readonly string[]): Promise<SyncLocationRow[]> =>
      locationIds.length === 0
        ? Promise.resolve([])
        : db
            .selectFrom('sync_locations')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('location_id', 'in', locationIds)
            .execute(),
    /** The tenant's stores whose appliance was heard from at or after `since`. */
    seenSince: (db: Db, tenantId: string, since: string) =>
      db
        .selectFrom('sync_locations')
        .select('location_id')
        .where('tenant_id', '=', tenantId)
        .where('last_seen_at', '>=', since)
        .execute(),
    /** Changes received and conflicts settled since `since`, per store, for these stores at once. */
    async countsSince(db: Db, tenantId: string, locationIds: readonly string[], since: string) {
      if (locationIds.length === 0)
        return { changes: new Map<string, number>(), conflicts: new Map<string, number>() };
      const [changes, conflicts] = await Promise.all([
        db
          .selectFrom('sync_changes')
          .select((eb) => ['location_id', eb.fn.countAll<number>().as('n')])
          .where('tenant_id', '=', tenantId)
          .where('location_id', 'in', locationIds)
          .where('received_at', '>=', since)
          .groupBy('location_id')
          .execute(),
        db
          .selectFrom('sync_conflicts')
          .select((eb) => ['location_id', eb.fn.countAll<number>().as('n')])
          .where('tenant_id', '=', tenantId)
          .where('location_id', 'in', locationIds)
          .where('occurred_at', '>=', since)
          .groupBy('location_id')
          .execute(),
      ]);
      const byLocation = (rows: Array<{ location_id: string; n: number }>) =>
        new Map(rows.map((row) => [row.location_id, Number(row.n)]));
      return { changes: byLocation(changes), conflicts: byLocation(conflicts) };
    },
    conflicts: (db: Db, scope: Scope, limit: number) =>
      db
        .selectFrom('sync_conflicts')
        .selectAll()
        .where('tenant_id', '=', scope.tenantId)
        .where('location_id', '=', scope.locationId)
        .orderBy('occurred_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute(),

    insertFeed: (db: Db, rows: SyncFeedRow[]) =>
      rows.length === 0
        ? Promise.resolve()
        : db
            .insertInto('sync_feed')
            .values(rows)
            .execute()
            .then(() => undefined),
    feed: (db: Db, scope: Scope, after: number, limit: number): Promise<SyncFeedRow[]> =>
      db
        .selectFrom('sync_feed')
        .selectAll()
        .where('tenant_id', '=', scope.tenantId)
        .where('location_id', '=', scope.locationId)
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(limit)
        .execute(),
    pruneFeed: (db: Db, scope: Scope, before: string) =>
      db
        .deleteFrom('sync_feed')
        .where('tenant_id', '=', scope.tenantId)
        .where('location_id', '=', scope.locationId)
        .where('created_at', '<', before)
        .returning('seq')
        .execute(),
  };
}

export type SyncStore = ReturnType<typeof createSyncStore>;
