/**
 * Group commit for pushes: the pushes of one store that arrive while one of its transactions is
 * running are applied together in the next transaction, each inside a savepoint of its own, so
 * several batches share one commit (one fsync) without waiting for one another any longer than
 * they would anyway. A push that fails rolls back to its savepoint alone; the others commit.
 * Stores are grouped apart, so one store's backlog never holds up another's pushes.
 */
import { sql } from 'kysely';
import type { Db } from '../db/index.ts';

interface Job {
  work(trx: Db): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export interface GroupCommitOptions {
  /** The most pushes one transaction takes. */
  maxGroup: number;
  /**
   * Transactions of one store open at once. PostgreSQL works on two side by side (a store's
   * batches in flight never share a row); SQLite has one writer, so one is all it can use.
   */
  lanes: number;
}

interface Store {
  queue: Job[];
  lanes: number;
}

export function createGroupCommit(db: Db, options: GroupCommitOptions) {
  const stores = new Map<string, Store>();

  async function runGroup(trx: Db, group: Job[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const job of group) {
      await sql`savepoint push`.execute(trx);
      try {
        outcomes.push({ ok: true, value: await job.work(trx) });
      } catch (error) {
        await sql`rollback to savepoint push`.execute(trx);
        outcomes.push({ ok: false, error });
      }
      await sql`release savepoint push`.execute(trx);
    }
    return outcomes;
  }

  /** One lane: takes what is waiting, a group per transaction, until nothing is. */
  async function lane(key: string, store: Store) {
    while (store.queue.length > 0) {
      const group = store.queue.splice(0, options.maxGroup);
      const outcomes = await db
        .transaction()
        .execute((trx) => runGroup(trx, group))
        .catch((error: unknown) => group.map((): Outcome => ({ ok: false, error })));
      outcomes.forEach((outcome, i) => {
        if (outcome.ok) group[i]!.resolve(outcome.value);
        else group[i]!.reject(outcome.error);
      });
    }
    store.lanes -= 1;
    if (store.lanes === 0) stores.delete(key);
  }

  return {
    /** Runs `work` in a transaction shared with the store's other pushes waiting at that moment. */
    run<T>(key: string, work: (trx: Db) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const store = stores.get(key) ?? { queue: [], lanes: 0 };
        stores.set(key, store);
        store.queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
        if (store.lanes >= options.lanes) return;
        store.lanes += 1;
        void lane(key, store);
      });
    },
  };
}
