import { createHash } from 'node:crypto';
import type { Clock } from '../../shared/clock.ts';
import { type EventType, isEventType } from '../../shared/events.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import { createHlc } from '../../shared/sync/hlc.ts';
import {
  type Fields,
  isSyncTable,
  SYNC_TABLES,
  type SyncTableName,
  travelsUp,
} from '../../shared/sync/registry.ts';
import type { ApplianceDatabase } from './index.ts';

export type Operation = 'insert' | 'update' | 'delete';

/**
 * Events only the store's own screens need: the kitchen's tickets are not in the documented catalog,
 * so they travel the local feed like any event but sync never forwards them to the cloud.
 */
export const LOCAL_EVENT_TYPES = ['kds.ticket_opened', 'kds.ticket_updated'] as const;
export type LocalEventType = (typeof LOCAL_EVENT_TYPES)[number];

export interface Change {
  table: SyncTableName;
  rowId: string;
  operation: Operation;
  /** The row's version after this write. */
  version: number;
  /** The row as written, when the table's columns alone cannot say it (recipes); read otherwise. */
  fields?: Fields;
  /** Merge tables: the row's Yjs state, base64. */
  doc?: string;
}

/**
 * The Yjs client id this appliance edits documents with: stable per store (so a document's state
 * vector does not grow with every reload) and never the cloud's (1).
 */
export const docClientIdOf = (locationId: string) =>
  (createHash('sha256').update(locationId).digest().readUInt32BE(0) % 0xfffffff0) + 2;

/**
 * The outbox and the event log. Call them inside the command's transaction: a write, its outbox
 * row and its events commit together or not at all, which is what lets sync and webhooks resume
 * after a crash without losing or repeating anything. Each outbox row keeps the row as it was
 * written, the version it was based on and a hybrid logical clock stamp.
 */
export function createChangeLog(
  db: ApplianceDatabase,
  deps: { clock: Clock; newId: IdGenerator; locationId: string },
) {
  const insertChange = db.prepare(
    `insert into outbox (change_id, table_name, row_id, operation, row_version, base_version, occurred_at, hlc, fields, doc)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertEvent = db.prepare(
    'insert into events (id, type, location_id, occurred_at, data) values (?, ?, ?, ?, ?)',
  );
  const newestStamp = db.prepare('select max(hlc) as hlc from outbox').get() as { hlc: string | null };
  // A store never stops selling or syncing over clocks: a cloud far ahead, or the store's own
  // stamps after its clock was set back, are taken in and its next stamps order after them.
  const hlc = createHlc(`store.${deps.locationId}`, () => deps.clock.now().getTime(), {
    maxDriftMs: Number.POSITIVE_INFINITY,
    ...(newestStamp.hlc ? { last: newestStamp.hlc } : {}),
  });
  const readers = new Map<SyncTableName, (rowId: string) => Fields | undefined>();
  const readerOf = (table: SyncTableName) => {
    let reader = readers.get(table);
    if (!reader) {
      const spec = SYNC_TABLES[table];
      const statement = db.prepare(
        `select ${Object.keys(spec.columns).join(', ')} from ${table} where ${spec.key} = ?`,
      );
      reader = (rowId: string) => statement.get(rowId) as Fields | undefined;
      readers.set(table, reader);
    }
    return reader;
  };
  const requireTransaction = (what: string) => {
    if (!db.inTransaction) throw new Error(`${what} must be written inside the command's transaction`);
  };

  function record(change: Change) {
    const fields =
      change.operation === 'delete' ? null : (change.fields ?? readerOf(change.table)(change.rowId));
    if (fields === undefined) throw new Error(`${change.table} ${change.rowId} was not found to record`);
    const at = deps.clock.now().toISOString();
    insertChange.run(
      deps.newId(),
      change.table,
      change.rowId,
      change.operation,
      change.version,
      change.operation === 'insert' ? 0 : change.version - 1,
      at,
      hlc.tick(),
      fields === null ? null : JSON.stringify(fields),
      change.doc ?? null,
    );
  }

  return {
    recordChange(change: Change) {
      requireTransaction('an outbox row');
      if (!isSyncTable(change.table) || !travelsUp(change.table))
        throw new Error(`${change.table} is not a table the appliance syncs up`);
      record(change);
    },
    emit(type: EventType | LocalEventType, data: Record<string, unknown>) {
      requireTransaction('an event');
      const id = deps.newId();
      const occurredAt = deps.clock.now().toISOString();
      const json = JSON.stringify(data);
      insertEvent.run(id, type, deps.locationId, occurredAt, json);
      if (isEventType(type)) {
        const fields = { id, type, location_id: deps.locationId, occurred_at: occurredAt, data: json };
        record({ table: 'events', rowId: id, operation: 'insert', version: 1, fields });
      }
      return id;
    },
    /** A stamp for an edit of a merge row's fields. */
    stamp: () => hlc.tick(),
    /** Takes a stamp from the cloud in, so this appliance's next stamps order after it. */
    observe: (stamp: string) => hlc.receive(stamp),
    docClientId: docClientIdOf(deps.locationId),
  };
}

export type ChangeLog = ReturnType<typeof createChangeLog>;
