/**
 * Writes rows that come from the cloud (pulled changes, snapshot rows, conflict winners) into
 * the appliance's replica. These writes are the cloud's, so they make no outbox rows; each table's
 * rule from the registry decides how a row lands. What the store does in turn (a landed hook: an
 * event, stock given back) is the store's own and syncs up like any write of it.
 */
import { Buffer } from 'node:buffer';
import type Database from 'better-sqlite3';
import { type FieldValue, mergeRowStates } from '../../shared/sync/merge-doc.ts';
import type { RowState } from '../../shared/sync/protocol.ts';
import { type Fields, isSyncTable, SYNC_TABLES, type SyncTableName } from '../../shared/sync/registry.ts';
import type { ApplianceDatabase } from '../db/index.ts';
import type { SyncLogger } from './worker.ts';

/** Tables whose rows the cloud replaces whole; recipes excepted, which land as recipe lines. */
export type HookedTable = {
  [T in SyncTableName]: (typeof SYNC_TABLES)[T]['strategy'] extends 'server_wins' ? T : never;
}[Exclude<SyncTableName, 'recipes'>];

/**
 * A reaction to a row the cloud changed, run in the transaction that lands it. `before` is the
 * row as the store held it (undefined for a row it never had); `after`, the cloud's fields.
 */
export type LandedHook = (before: Fields | undefined, after: Fields) => void;
export type LandedHooks = Partial<Record<HookedTable, LandedHook>>;

/**
 * Columns a local table has beyond the synced ones, as SQL a new row from the cloud gets there. An
 * item's quantity is the sum of its movements, whichever of them landed before the item did.
 */
const LOCAL_COLUMNS: Partial<Record<SyncTableName, Record<string, string>>> = {
  inventory_items: {
    quantity_milli:
      '(select coalesce(sum(delta_milli), 0) from inventory_movements where inventory_item_id = @id)',
  },
};

export function createReplica(
  db: ApplianceDatabase,
  docClientId: number,
  hooks: LandedHooks = {},
  log?: SyncLogger | undefined,
) {
  const statements = new Map<string, Database.Statement<unknown[]>>();
  const prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (!statement) {
      statement = db.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  const pendingFor = db.prepare(
    'select 1 from outbox where table_name = ? and row_id = ? and pushed_at is null limit 1',
  );
  const deletedVersion = db.prepare(
    "select max(row_version) as version from outbox where table_name = ? and row_id = ? and operation = 'delete'",
  );

  /** The version this replica holds of a row, or last deleted it at; 0 when it never had it. */
  function knownVersion(table: SyncTableName, rowId: string): number {
    const spec = SYNC_TABLES[table];
    const local = (
      table === 'recipes'
        ? prepare('select version from recipe_versions where menu_item_id = ?')
        : prepare(`select version from ${table} where ${spec.key} = ?`)
    ).get(rowId) as { version: number } | undefined;
    if (local) return local.version;
    return (deletedVersion.get(table, rowId) as { version: number | null }).version ?? 0;
  }

  function read(table: SyncTableName, rowId: string) {
    const spec = SYNC_TABLES[table];
    return prepare(`select ${Object.keys(spec.columns).join(', ')} from ${table} where ${spec.key} = ?`).get(
      rowId,
    ) as Fields | undefined;
  }

  /**
   * A reaction that fails rolls back alone (a savepoint) and is logged: the cloud's row still
   * lands, since refusing it would fail the page, and with it every later change, on each round.
   */
  function react(table: SyncTableName, hook: LandedHook, before: Fields | undefined, after: Fields) {
    try {
      db.transaction(() => hook(before, after))();
    } catch (error) {
      log?.warn(
        { err: error, table, row_id: after[SYNC_TABLES[table].key] },
        'sync: a landed row’s reaction failed',
      );
    }
  }

  /** Upserts a server_wins row with the cloud's version. */
  function upsert(table: SyncTableName, fields: Record<string, unknown>, version: number) {
    const spec = SYNC_TABLES[table];
    const local = LOCAL_COLUMNS[table] ?? {};
    const synced = [...Object.keys(spec.columns), 'version'];
    const updates = synced.filter((c) => c !== spec.key);
    prepare(
      `insert into ${table} (${[...synced, ...Object.keys(local)].join(', ')})
       values (${[...synced.map((c) => `@${c}`), ...Object.values(local)].join(', ')})
       on conflict (${spec.key}) do update set ${updates.map((c) => `${c} = excluded.${c}`).join(', ')}`,
    ).run({ ...fields, version });
  }

  function remove(table: SyncTableName, rowId: string) {
    prepare(`delete from ${table} where ${SYNC_TABLES[table].key} = ?`).run(rowId);
  }

  function applyRecipe(fields: Record<string, unknown>, version: number) {
    const menuItemId = String(fields.menu_item_id);
    const components = JSON.parse(String(fields.components)) as Array<{
      inventory_item_id: string;
      quantity_milli: number;
    }>;
    prepare('delete from recipes where menu_item_id = ?').run(menuItemId);
    const insert = prepare(
      'insert into recipes (menu_item_id, inventory_item_id, quantity_milli) values (?, ?, ?)',
    );
    for (const c of components) insert.run(menuItemId, c.inventory_item_id, c.quantity_milli);
    prepare(
      `insert into recipe_versions (menu_item_id, version) values (?, ?)
       on conflict (menu_item_id) do update set version = excluded.version`,
    ).run(menuItemId, version);
  }

  /** A movement counts once, and moves its item's quantity as it lands. */
  function applyMovement(fields: Record<string, unknown>) {
    const inserted = prepare(
      `insert into inventory_movements (id, inventory_item_id, kind, delta_milli, reference, created_at)
       values (@id, @inventory_item_id, @kind, @delta_milli, @reference, @created_at) on conflict do nothing`,
    ).run(fields);
    if (inserted.changes === 1)
      prepare('update inventory_items set quantity_milli = quantity_milli + ? where id = ?').run(
        fields.delta_milli,
        fields.inventory_item_id,
      );
  }

  /** A punch's document takes the cloud's state in; its columns are read back from the merge. */
  function applyPunch(row: RowState) {
    if (!row.doc) return;
    const existing = prepare('select doc from time_punches where id = ?').get(row.row_id) as
      | { doc: string | null }
      | undefined;
    const incoming = Buffer.from(row.doc, 'base64');
    const stored = existing?.doc ? Buffer.from(existing.doc, 'base64') : undefined;
    // The cloud read the fields from this very state; when it is kept as it came, so are they.
    const { fields, state } = mergeRowStates(
      stored,
      incoming,
      docClientId,
      (row.fields ?? undefined) as Record<string, FieldValue> | undefined,
    );
    prepare(
      `insert into time_punches (id, staff_id, kind, at, note, corrected_by, reason, created_at, version, updated_at, doc)
       values (@id, @staff_id, @kind, @at, @note, @corrected_by, @reason, @created_at, @version, @updated_at, @doc)
       on conflict (id) do update set staff_id = excluded.staff_id, kind = excluded.kind, at = excluded.at,
         note = excluded.note, corrected_by = excluded.corrected_by, reason = excluded.reason,
         version = max(time_punches.version, excluded.version), updated_at = excluded.updated_at, doc = excluded.doc`,
    ).run({
      ...fields,
      version: row.version,
      updated_at: new Date().toISOString(),
      doc: state === incoming ? row.doc : Buffer.from(state).toString('base64'),
    });
  }

  function applyStaff(fields: Record<string, unknown>, version: number) {
    upsert('staff', fields, version);
    // A person disabled in the cloud stops working here at once, sessions included.
    if (fields.status !== 'active')
      prepare(
        "update appliance_sessions set status = 'ended', ended_at = ? where staff_id = ? and status = 'active'",
      ).run(new Date().toISOString(), fields.id);
  }

  return {
    /**
     * Runs `work` in one transaction with foreign keys unchecked: rows come in the cloud's order
     * (a snapshot pages by row key, so an order's items come before the order, maybe a page
     * earlier); the cloud holds every parent, and the parent lands in a later page or round.
     * Without an fsync of its own, too: what sync lands is the cloud's to give again (a lost
     * answer is answered again as a duplicate, a lost page is pulled again and lands once), and
     * the next sale's commit makes it durable anyway. The store's own writes keep `FULL`.
     */
    land<T>(work: () => T): T {
      db.pragma('foreign_keys = OFF');
      db.pragma('synchronous = NORMAL');
      try {
        return db.transaction(work)();
      } finally {
        db.pragma('synchronous = FULL');
        db.pragma('foreign_keys = ON');
      }
    },

    /** Whether the appliance has changes of this row the cloud has not answered yet. */
    hasPending: (table: string, rowId: string) => pendingFor.get(table, rowId) !== undefined,

    /**
     * Lands one row from the cloud. `force` is for a conflict's winner: it replaces the row even
     * with local changes pending (those will conflict in turn, and the cloud's row stands). Once a
     * row is written, its table's hook runs with the row as the store held it.
     */
    apply(row: RowState, options: { force?: boolean } = {}) {
      if (!isSyncTable(row.table)) return;
      const table = row.table;
      const strategy = SYNC_TABLES[table].strategy;
      if (strategy === 'merge') return applyPunch(row);
      if (strategy === 'append_only') {
        if (table === 'inventory_movements' && row.fields) applyMovement(row.fields);
        return;
      }
      // A row with changes still on their way is left alone: the push settles it, and a
      // conflict brings the cloud's row back with force. A feed entry can also arrive after the
      // store already moved past it (its own later change was taken on top of the cloud's row,
      // learnt from a conflict), so a version the store holds or passed is never applied again.
      if (!options.force) {
        if (pendingFor.get(table, row.row_id) !== undefined) return;
        if (row.version <= knownVersion(table, row.row_id)) return;
      }
      if (row.deleted || row.fields === null) return remove(table, row.row_id);
      if (table === 'recipes') return applyRecipe(row.fields, row.version);
      // Only server_wins tables other than recipes come this far.
      const hook = hooks[table as HookedTable];
      const before = hook ? read(table, row.row_id) : undefined;
      if (table === 'staff') applyStaff(row.fields, row.version);
      else upsert(table, row.fields, row.version);
      if (hook) react(table, hook, before, row.fields);
    },
  };
}

export type Replica = ReturnType<typeof createReplica>;
