/**
 * Group commit: what arrives while a write is running goes into the next write, which takes
 * everything then waiting (up to `maxGroup`), so many callers share one commit (one fsync) without
 * waiting any longer than they would behind one another anyway. Callers are queued by key and keys
 * are grouped apart, so one key's backlog never holds up another's. Each caller gets its own
 * outcome: `write` settles every item of its group on its own, and only a write that fails as a
 * whole (its transaction could not commit) fails every item of the group.
 */
import { sql } from 'kysely';
import type { Db } from './index.ts';

export type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface GroupCommitOptions {
  /** The most items one write takes. */
  maxGroup: number;
  /**
   * Writes of one key in flight at once. PostgreSQL works on several side by side; SQLite has one
   * writer, so one is all it can use.
   */
  lanes: number;
}

export interface GroupQueueOptions<Item, Result> extends GroupCommitOptions {
  /** Writes a group; one outcome per item, in order. */
  write(group: Item[]): Promise<Settled<Result>[]>;
  /**
   * Lets the rest of the current turn's callers join before a lane starts, rather than sending the
   * first of a burst alone: for work whose items are tiny (a row each), where the commit is all the
   * cost.
   */
  gatherTurn?: boolean;
}

interface Waiting<Item, Result> {
  item: Item;
  resolve(value: Result): void;
  reject(error: unknown): void;
}

interface Queue<Item, Result> {
  waiting: Waiting<Item, Result>[];
  lanes: number;
  starting: boolean;
}

export function createGroupQueue<Item, Result>(options: GroupQueueOptions<Item, Result>) {
  const queues = new Map<string, Queue<Item, Result>>();

  async function writeGroup(group: Waiting<Item, Result>[]) {
    const outcomes = await options
      .write(group.map((waiting) => waiting.item))
      .catch((error: unknown) => group.map((): Settled<Result> => ({ ok: false, error })));
    group.forEach((waiting, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) waiting.resolve(outcome.value);
      else waiting.reject(outcome.error);
    });
  }

  /** One lane: takes what is waiting, a group per write, until nothing is. */
  async function lane(key: string, queue: Queue<Item, Result>) {
    while (queue.waiting.length > 0) await writeGroup(queue.waiting.splice(0, options.maxGroup));
    queue.lanes -= 1;
    if (queue.lanes === 0 && queues.get(key) === queue) queues.delete(key);
  }

  function startLanes(key: string, queue: Queue<Item, Result>) {
    queue.starting = false;
    while (queue.lanes < options.lanes && queue.waiting.length > 0) {
      queue.lanes += 1;
      void lane(key, queue);
    }
  }

  return {
    /** Queues `items` under `key`, all at once; a promise of its own outcome for each. */
    submit(key: string, items: Item[]): Promise<Result>[] {
      const queue = queues.get(key) ?? { waiting: [], lanes: 0, starting: false };
      queues.set(key, queue);
      const answers = items.map(
        (item) => new Promise<Result>((resolve, reject) => queue.waiting.push({ item, resolve, reject })),
      );
      if (queue.lanes >= options.lanes || queue.starting) return answers;
      if (!options.gatherTurn) startLanes(key, queue);
      else {
        queue.starting = true;
        setImmediate(() => startLanes(key, queue));
      }
      return answers;
    },
  };
}

/**
 * One transaction, each piece of work in a savepoint of its own: one that fails rolls back alone and
 * the others commit. Only a transaction that cannot commit at all fails every piece.
 */
export async function eachInSavepoint<T>(db: Db, work: Array<(trx: Db) => Promise<T>>) {
  return db.transaction().execute(async (trx) => {
    const outcomes: Settled<T>[] = [];
    for (const piece of work) {
      await sql`savepoint grouped`.execute(trx);
      try {
        outcomes.push({ ok: true, value: await piece(trx) });
      } catch (error) {
        await sql`rollback to savepoint grouped`.execute(trx);
        outcomes.push({ ok: false, error });
      }
      await sql`release savepoint grouped`.execute(trx);
    }
    return outcomes;
  });
}

/**
 * Transactions shared by the callers waiting at the same moment, each caller's work inside a
 * savepoint of its own: for work of several statements (a sync push applied row by row).
 */
export function createGroupCommit(db: Db, options: GroupCommitOptions) {
  const groups = createGroupQueue<(trx: Db) => Promise<unknown>, unknown>({
    ...options,
    write: (group) => eachInSavepoint(db, group),
  });
  return {
    /** Runs `work` in a transaction shared with the other work of `key` waiting at that moment. */
    run<T>(key: string, work: (trx: Db) => Promise<T>): Promise<T> {
      return groups.submit(key, [work])[0] as Promise<T>;
    },
  };
}
