import type { Db } from '../db/index.ts';

export interface DomainEventRow {
  id: string;
  tenant_id: string;
  location_id: string | null;
  type: string;
  occurred_at: string;
  /** JSON object in the spec's event data shape. */
  data: string;
  received_at: string;
}

export interface EventTables {
  domain_events: DomainEventRow;
}

/**
 * The cloud's log of domain events. Writers append inside their own transaction (pass it as `db`),
 * so an event exists exactly when the change that caused it does; an event id seen before is
 * ignored, so a store re-sending its events never doubles one.
 */
export function createEventLog() {
  return {
    async append(db: Db, rows: DomainEventRow[]) {
      if (rows.length === 0) return;
      await db
        .insertInto('domain_events')
        .values(rows)
        .onConflict((c) => c.column('id').doNothing())
        .execute();
    },
    list: (db: Db, tenantId: string, options: { limit: number; type?: string | undefined }) =>
      db
        .selectFrom('domain_events')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(options.type !== undefined, (q) => q.where('type', '=', options.type!))
        .orderBy('received_at')
        .orderBy('id')
        .limit(options.limit)
        .execute(),
  };
}

export type EventLog = ReturnType<typeof createEventLog>;
