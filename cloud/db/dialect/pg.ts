import { type Dialect, PostgresDialect } from 'kysely';
import pg from 'pg';

export const name = 'pg' as const;

/**
 * Several gateway replicas share one PostgreSQL database. `schema` isolates a test run (or a
 * deployment that shares a database) in its own search path.
 */
export function createDialect(connectionString: string, schema?: string): Dialect {
  const pool = new pg.Pool({
    connectionString,
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  return new PostgresDialect({ pool });
}

export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown })?.code === '23505';
}
