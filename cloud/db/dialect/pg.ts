import { createHash } from 'node:crypto';
import { type CompiledQuery, type Dialect, type Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import type { KeyLookup } from './key-lookup.ts';

export const name = 'pg' as const;

/**
 * Several gateway replicas share one PostgreSQL database. `schema` isolates a test run (or a
 * deployment that shares a database) in its own search path.
 */
const INT8_OID = 20;
/**
 * bigint columns (sync sequences and versions, counts) come back as numbers, as they do from
 * SQLite: every value we store in one stays within Number.MAX_SAFE_INTEGER.
 */
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export function createPostgres(connectionString: string, schema?: string) {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    types,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  const dialect: Dialect = new PostgresDialect({ pool });
  return {
    dialect,
    /** Hot reads run as named prepared statements: parsed and planned once per connection. */
    prepareRead<Row>(query: CompiledQuery<Row>) {
      const statementName = `q${createHash('sha1').update(query.sql).digest('hex').slice(0, 20)}`;
      return async (parameters: readonly unknown[]) =>
        (await pool.query({ name: statementName, text: query.sql, values: [...parameters] })).rows as Row[];
    },
    closeReader() {},
  };
}

/** A plain dialect for one-off administrative connections (creating or dropping a schema). */
export const createDialect = (connectionString: string): Dialect =>
  new PostgresDialect({ pool: new pg.Pool({ connectionString, max: 1 }) });

export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown })?.code === '23505';
}

/**
 * A transaction that lost a race with another one and may simply run again: a unique key the other
 * inserted first, a deadlock, or a serialization failure.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === '23505' || code === '40P01' || code === '40001';
}

/**
 * Rows by a list of keys, probed one key at a time through an index led by the key column: a
 * lateral subquery per key, kept from being flattened into a join by `offset 0`, that names the
 * key column alone (the scope is checked on what it finds). Anything the planner could weigh
 * against statistics goes wrong without them (autovacuum off, or a table filling faster than it
 * is analyzed): an `IN (...)` list of a hundred keys looks like half the table, and with the scope
 * in the probe it may take the scope's index and read the whole location per key.
 */
export function selectByKeys<Row>(db: Kysely<unknown>, lookup: KeyLookup): Promise<Row[]> {
  const scope = Object.entries(lookup.where).map(
    ([column, value]) => sql`and t.${sql.ref(column)} = ${value}`,
  );
  return sql<Row>`select t.* from unnest(${lookup.keys}::text[]) as k(key)
    cross join lateral (
      select * from ${sql.table(lookup.table)} s where s.${sql.ref(lookup.keyColumn)} = k.key
      offset 0 ${lookup.forUpdate ? sql`for update` : sql``}
    ) t
    where true ${sql.join(scope, sql` `)}`
    .execute(db)
    .then((result) => result.rows);
}
