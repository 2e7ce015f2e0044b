import { join } from 'node:path';
import { Kysely, sql } from 'kysely';
import { createDialect } from '../../cloud/db/dialect/pg.ts';
import { openStore } from '../../cloud/db/index.ts';

/** A RAM disk where the machine has one: test files there are real files whose fsync is free. */
export const MEMORY_TMP = '/dev/shm';

/** The schema every PostgreSQL test store uses, in a database of its own. */
export const TEMPLATE_SCHEMA = 'cloud';

export interface StoreTemplates {
  /** A migrated cloud.sqlite to copy. */
  sqlite: string;
  /** A migrated database to create test databases from; the run's databases start with `prefix`. */
  pg?: { template: string; prefix: string };
}

/** What a run that ended without its teardown (killed) left is removed by a run this much later. */
export const STALE_AFTER_MS = 6 * 3600_000;

export const withDatabase = (url: string, database: string) => {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
};

export async function withAdmin<T>(url: string, work: (db: Kysely<unknown>) => Promise<T>): Promise<T> {
  const db = new Kysely<unknown>({ dialect: createDialect(url) });
  try {
    return await work(db);
  } finally {
    await db.destroy();
  }
}

export async function migrateSqliteTemplate(dir: string) {
  const templateDir = join(dir, 'cloud-store-template');
  const store = await openStore({ dataDir: templateDir });
  await store.close();
  return join(templateDir, 'cloud.sqlite');
}

export async function createPostgresTemplate(url: string, runId: string) {
  await dropStaleDatabases(url);
  const prefix = `vitest_${runId}_`;
  const template = `${prefix}template`;
  await withAdmin(url, (db) => sql`create database ${sql.id(template)}`.execute(db));
  const store = await openStore({
    dataDir: '',
    databaseUrl: withDatabase(url, template),
    schema: TEMPLATE_SCHEMA,
  });
  await store.close();
  return { template, prefix };
}

async function databasesStartingWith(db: Kysely<unknown>, prefix: string) {
  const { rows } = await sql<{ name: string }>`select datname as name from pg_database
    where starts_with(datname, ${prefix}) order by datname`.execute(db);
  return rows.map((row) => row.name);
}

/** WITH (FORCE): a test that forgot to close its store leaves connections nobody will use again. */
export const dropPostgresDatabases = (url: string, prefix: string) =>
  withAdmin(url, async (db) => {
    for (const name of await databasesStartingWith(db, prefix))
      await sql`drop database if exists ${sql.id(name)} with (force)`.execute(db);
  });

async function dropStaleDatabases(url: string) {
  const names = await withAdmin(url, (db) => databasesStartingWith(db, 'vitest_'));
  const runs = new Set(names.map((name) => name.split('_')[1]!));
  for (const runId of runs) {
    const startedAt = Number.parseInt(runId.slice(0, -6), 36);
    if (Date.now() - startedAt > STALE_AFTER_MS) await dropPostgresDatabases(url, `vitest_${runId}_`);
  }
}
