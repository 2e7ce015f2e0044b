import type { CompiledQuery } from 'kysely';
import type { PreparedRead, PrepareRead } from './index.ts';

/**
 * Collects the lookups that arrive within one turn of the event loop and answers them with one
 * read. Under load many requests need the same kind of row at the same moment (every request's
 * session, say); one `IN (...)` read costs about what a single one does, on SQLite (one read
 * transaction and its locks) and on PostgreSQL (one round trip). Each caller still gets the
 * committed state of the moment its batch runs: nothing is cached.
 */
export interface BatchLoaderOptions<Row> {
  /** Reads the rows for up to `maxBatch` distinct keys; rows for unknown keys are simply absent. */
  load(keys: string[]): Promise<Row[]>;
  keyOf(row: Row): string;
  maxBatch?: number;
}

interface Waiting<Row> {
  key: string;
  resolve(row: Row | undefined): void;
  reject(error: unknown): void;
}

export function createBatchLoader<Row>(options: BatchLoaderOptions<Row>) {
  const maxBatch = options.maxBatch ?? 64;
  let queue: Waiting<Row>[] = [];

  async function run(batch: Waiting<Row>[]) {
    try {
      const rows = await options.load([...new Set(batch.map((w) => w.key))]);
      const byKey = new Map(rows.map((row) => [options.keyOf(row), row]));
      for (const waiting of batch) waiting.resolve(byKey.get(waiting.key));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }

  function flush() {
    const waiting = queue;
    queue = [];
    for (let start = 0; start < waiting.length; start += maxBatch) {
      void run(waiting.slice(start, start + maxBatch));
    }
  }

  return (key: string) =>
    new Promise<Row | undefined>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ key, resolve, reject });
    });
}

/**
 * A read of many keys through prepared statements: one statement per batch size, rounded up to a
 * power of two (the last key repeats), so a handful of statements serve every batch.
 */
export function keyedRead<Row>(prepareRead: PrepareRead, compileFor: (size: number) => CompiledQuery<Row>) {
  const bySize = new Map<number, PreparedRead<Row>>();
  return (keys: unknown[][]): Promise<Row[]> => {
    const size = 2 ** Math.ceil(Math.log2(Math.max(1, keys.length)));
    let read = bySize.get(size);
    if (!read) {
      read = prepareRead(compileFor(size));
      bySize.set(size, read);
    }
    const padded = [...keys, ...Array<unknown[]>(size - keys.length).fill(keys.at(-1) ?? [])];
    return read(padded.flat());
  };
}
