import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { type CompiledQuery, type Dialect, type Kysely, SqliteDialect, sql } from 'kysely';
import type { KeyLookup } from './key-lookup.ts';

export const name = 'sqlite' as const;

const STATEMENT_CACHE_LIMIT = 500;

/** better-sqlite3 prepares on every call and Kysely keeps no cache: statements are reused here. */
function withStatementCache(database: Database.Database): Database.Database {
  const prepare = database.prepare.bind(database);
  const cache = new Map<string, Database.Statement>();
  database.prepare = ((source: string) => {
    let statement = cache.get(source);
    if (!statement) {
      if (cache.size >= STATEMENT_CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
      statement = prepare(source);
      cache.set(source, statement);
    }
    return statement;
  }) as Database.Database['prepare'];
  return database;
}

function open(file: string, readonly: boolean) {
  const database = withStatementCache(new Database(file, { readonly }));
  if (!readonly) {
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = FULL');
    database.pragma('foreign_keys = ON');
  }
  database.pragma('busy_timeout = 5000');
  // Pages are read through a memory map instead of a read() call each.
  database.pragma('mmap_size = 268435456');
  return database;
}

/**
 * A single file, zero set-up; FULL sync so an acknowledged write survives power loss.
 * Hot reads (`prepareRead`) use a second, read-only connection: under WAL it sees every committed
 * write at once and never another request's transaction still in flight on the main connection.
 */
export function createSqlite(file: string) {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const database = open(file, false);
  let reader: Database.Database | undefined;
  const readerConnection = () => {
    reader ??= file === ':memory:' ? database : open(file, true);
    return reader;
  };
  const dialect: Dialect = new SqliteDialect({ database });
  return {
    dialect,
    prepareRead<Row>(query: CompiledQuery<Row>) {
      return async (parameters: readonly unknown[]) =>
        readerConnection()
          .prepare(query.sql)
          .all(...parameters) as Row[];
    },
    closeReader() {
      if (reader && reader !== database) reader.close();
    },
  };
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** SQLite runs one write transaction at a time, so two never race; a unique key is a real error. */
export const isTransientConflict = (_error: unknown): boolean => false;

/** Rows by a list of keys: SQLite walks the index once per listed key. It has one writer, so no lock. */
export function selectByKeys<Row>(db: Kysely<unknown>, lookup: KeyLookup): Promise<Row[]> {
  const scope = Object.entries(lookup.where).map(([column, value]) => sql`and ${sql.ref(column)} = ${value}`);
  return sql<Row>`select * from ${sql.table(lookup.table)}
    where ${sql.ref(lookup.keyColumn)} in (${sql.join(lookup.keys)}) ${sql.join(scope, sql` `)}`
    .execute(db)
    .then((result) => result.rows);
}
