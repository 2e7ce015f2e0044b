import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { inject } from 'vitest';
import { openStore, type Store } from '../../cloud/db/index.ts';
import { TEMPLATE_SCHEMA, withAdmin, withDatabase } from './store-templates.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;

if (process.env.CI === 'true' && !databaseUrl) {
  throw new Error('CI must set TEST_DATABASE_URL: the PostgreSQL path is tested on every run');
}

/** Every store suite runs once per backend: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const backends: Array<'sqlite' | 'pg'> = databaseUrl ? ['sqlite', 'pg'] : ['sqlite'];

export interface TestStore extends Store {
  /** Closes the store and removes the file it lives in (a PostgreSQL database goes at the run's end). */
  destroy(): Promise<void>;
}

/**
 * A fresh, migrated store per call, so test files never share state: a copy of the run's migrated
 * SQLite file in a temporary folder, or a PostgreSQL database created from the run's migrated
 * template (test/support/global-setup.ts). A PostgreSQL that does not answer fails the test.
 */
export async function openTestStore(backend: 'sqlite' | 'pg'): Promise<TestStore> {
  const store = backend === 'sqlite' ? await openSqliteStore() : await openPostgresStore();
  return { ...store, destroy: store.close };
}

async function openSqliteStore(): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), 'cloud-store-'));
  copySqliteStore(dir);
  const store = await openStore({ dataDir: dir });
  return {
    ...store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * CREATE DATABASE ... TEMPLATE copies the migrated catalog in a fifth of a second. Dropping a
 * database forces a checkpoint, seconds on a busy disk, so the run's teardown drops them all at once.
 */
async function openPostgresStore(): Promise<Store> {
  const { url, schema } = await createTestDatabase();
  return openStore({ dataDir: '', databaseUrl: url, schema });
}

/** A migrated PostgreSQL database of its own, for a store or a process (DATABASE_URL, DATABASE_SCHEMA). */
export async function createTestDatabase() {
  const { template, prefix } = inject('storeTemplates').pg!;
  const name = `${prefix}${randomBytes(6).toString('hex')}`;
  await withAdmin(databaseUrl!, (db) =>
    sql`create database ${sql.id(name)} template ${sql.id(template)}`.execute(db),
  );
  return { url: withDatabase(databaseUrl!, name), schema: TEMPLATE_SCHEMA };
}

/** Puts a migrated cloud store where a cloud with DATA_DIR=`dir` opens it. */
export function copySqliteStore(dir: string) {
  copyFileSync(inject('storeTemplates').sqlite, join(dir, 'cloud.sqlite'));
}

/**
 * The environment of a cloud process (or of this process's own store) on a fresh migrated store:
 * a database of its own on PostgreSQL, else a SQLite file in `dataDir`.
 */
export async function cloudStoreEnv(
  backend: 'sqlite' | 'pg',
  dataDir: string,
): Promise<Record<string, string>> {
  if (backend === 'sqlite') {
    copySqliteStore(dataDir);
    return { DATA_DIR: dataDir };
  }
  const { url, schema } = await createTestDatabase();
  return { DATA_DIR: dataDir, DATABASE_URL: url, DATABASE_SCHEMA: schema };
}
