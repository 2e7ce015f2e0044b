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
}

export function createGroupCommit(db: Db, options: GroupCommitOptions) {
  const queues = new Map<string, Job[]>();

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

  async function drain(key: string, queue: Job[]) {
    while (queue.length > 0) {
      const group = queue.splice(0, options.maxGroup);
      const outcomes = await db
        .transaction()
        .execute((trx) => runGroup(trx, group))
        .catch((error: unknown) => group.map((): Outcome => ({ ok: false, error })));
      outcomes.forEach((outcome, i) => {
        if (outcome.ok) group[i]!.resolve(outcome.value);
        else group[i]!.reject(outcome.error);
      });
    }
    queues.delete(key);
  }

  return {
    /** Runs `work` in a transaction shared with the store's other pushes waiting at that moment. */
    run<T>(key: string, work: (trx: Db) => Promise<T>): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        const job: Job = { work, resolve: resolve as (value: unknown) => void, reject };
        const queue = queues.get(key);
        if (queue) return void queue.push(job);
        const fresh = [job];
        queues.set(key, fresh);
        void drain(key, fresh);
      });
    },
  };
}
