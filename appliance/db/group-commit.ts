import type { ApplianceDatabase } from './index.ts';

interface Pending {
  work: () => unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * Commits the commands that arrive in one turn of the event loop together: each runs in a
 * savepoint of its own (a command that fails rolls back alone), and one commit, one fsync, makes
 * them all durable. Every caller is answered only after that commit, so nothing is acknowledged
 * before it would survive a power cut; under load the fsyncs no longer queue behind each other.
 */
export function createGroupCommit(db: ApplianceDatabase, maxBatch = 64) {
  let queue: Pending[] = [];
  type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };
  // Made once: better-sqlite3 builds several wrapper functions per transaction() call, which cost
  // more than the work itself when thousands of small commands arrive a second (MQTT acks).
  const inSavepoint = db.transaction((work: () => unknown) => work());
  const inTransaction = db.transaction((batch: Pending[], outcomes: Outcome[]) => {
    for (const pending of batch) {
      try {
        outcomes.push({ ok: true, value: inSavepoint(pending.work) });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
  });

  function commit(batch: Pending[]) {
    const outcomes: Outcome[] = [];
    try {
      inTransaction(batch, outcomes);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    batch.forEach((pending, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.error);
    });
  }

  function flush() {
    const waiting = queue;
    queue = [];
    for (let start = 0; start < waiting.length; start += maxBatch)
      commit(waiting.slice(start, start + maxBatch));
  }

  return <T>(work: () => T): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
    });
}

export type GroupCommit = ReturnType<typeof createGroupCommit>;
