import type { Clock } from '../../shared/clock.ts';
import type { EventType } from '../../shared/events.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { ApplianceDatabase } from './index.ts';

export type Operation = 'insert' | 'update' | 'delete';

/**
 * Events only the store's own screens need: the kitchen's tickets are not in the spec's catalog,
 * so they travel the local feed like any event but sync never forwards them to the cloud.
 */
export const LOCAL_EVENT_TYPES = ['kds.ticket_opened', 'kds.ticket_updated'] as const;
export type LocalEventType = (typeof LOCAL_EVENT_TYPES)[number];

export interface Change {
  table: string;
  rowId: string;
  operation: Operation;
  /** The row's version after this write. */
  version: number;
}

/**
 * The outbox and the event log. Call them inside the command's transaction: a write, its outbox
 * row and its events commit together or not at all, which is what lets sync and webhooks resume
 * after a crash without losing or repeating anything.
 */
export function createChangeLog(
  db: ApplianceDatabase,
  deps: { clock: Clock; newId: IdGenerator; locationId: string },
) {
  const insertChange = db.prepare(
    'insert into outbox (change_id, table_name, row_id, operation, row_version, occurred_at) values (?, ?, ?, ?, ?, ?)',
  );
  const insertEvent = db.prepare(
    'insert into events (id, type, location_id, occurred_at, data) values (?, ?, ?, ?, ?)',
  );
  const requireTransaction = (what: string) => {
    if (!db.inTransaction) throw new Error(`${what} must be written inside the command's transaction`);
  };

  return {
    recordChange(change: Change) {
      requireTransaction('an outbox row');
      insertChange.run(
        deps.newId(),
        change.table,
        change.rowId,
        change.operation,
        change.version,
        deps.clock.now().toISOString(),
      );
    },
    emit(type: EventType | LocalEventType, data: Record<string, unknown>) {
      requireTransaction('an event');
      const id = deps.newId();
      insertEvent.run(id, type, deps.locationId, deps.clock.now().toISOString(), JSON.stringify(data));
      return id;
    },
  };
}

export type ChangeLog = ReturnType<typeof createChangeLog>;
