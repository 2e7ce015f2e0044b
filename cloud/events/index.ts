/**
 * The domain event log: events written inside the transaction that caused them, listed per tenant,
 * and handed to its consumers (webhooks, alerting) in that same transaction.
 */
import type { Db } from '../db/index.ts';

export interface DomainEventRow {
  id: string;
  tenant_id: string;
  location_id: string | null;
  type: string;
  occurred_at: string;
  /** JSON object in the documented event data shape. */
  data: string;
  received_at: string;
}

export interface EventTables {
  domain_events: DomainEventRow;
}

/**
 * A module reacting to events (webhooks, alerting): called inside the transaction that appends
 * them, with only the events that transaction added, so its own work commits exactly with them.
 */
export type EventConsumer = (db: Db, events: DomainEventRow[]) => Promise<void>;

export interface EventListOptions {
  limit: number;
  type?: string | undefined;
  /** Events received at or after this instant. */
  receivedFrom?: string | undefined;
  /** Resume after this event of a previous page (received_at, id order). */
  after?: { received_at: string; id: string } | undefined;
}

/**
 * The cloud's log of domain events. Writers append inside their own transaction (pass it as `db`),
 * so an event exists exactly when the change that caused it does; an event id seen before is
 * ignored, so a store re-sending its events never doubles one, nor its consumers' work.
 */
export function createEventLog() {
  const consumers: EventConsumer[] = [];

  async function insertNew(db: Db, rows: DomainEventRow[]) {
    const insert = db
      .insertInto('domain_events')
      .values(rows)
      .onConflict((c) => c.column('id').doNothing());
    if (consumers.length === 0) {
      await insert.execute();
      return [];
    }
    const added = new Set((await insert.returning('id').execute()).map((row) => row.id));
    return rows.filter((row) => added.has(row.id));
  }

  return {
    async append(db: Db, rows: DomainEventRow[]) {
      if (rows.length === 0) return;
      const added = await insertNew(db, rows);
      if (added.length === 0) return;
      for (const consume of consumers) await consume(db, added);
    },

    consume(consumer: EventConsumer) {
      consumers.push(consumer);
    },

    list: (db: Db, tenantId: string, options: EventListOptions) =>
      db
        .selectFrom('domain_events')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .$if(options.type !== undefined, (q) => q.where('type', '=', options.type!))
        .$if(options.receivedFrom !== undefined, (q) => q.where('received_at', '>=', options.receivedFrom!))
        .$if(options.after !== undefined, (q) =>
          q.where((eb) =>
            eb.or([
              eb('received_at', '>', options.after!.received_at),
              eb.and([eb('received_at', '=', options.after!.received_at), eb('id', '>', options.after!.id)]),
            ]),
          ),
        )
        .orderBy('received_at')
        .orderBy('id')
        .limit(options.limit)
        .execute(),
  };
}

export type EventLog = ReturnType<typeof createEventLog>;
