import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, sql } from 'kysely';
import { createDialect } from '../../cloud/db/dialect/pg.ts';
import { openStore, type Store } from '../../cloud/db/index.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;

if (process.env.CI === 'true' && !databaseUrl) {
  throw new Error('CI must set TEST_DATABASE_URL: the PostgreSQL path is tested on every run');
}

/** Every store suite runs once per backend: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. */
export const backends: Array<'sqlite' | 'pg'> = databaseUrl ? ['sqlite', 'pg'] : ['sqlite'];

export interface TestStore extends Store {
  /** Drops the schema or file this store lives in. */
  destroy(): Promise<void>;
}

/**
 * A fresh, migrated store per call: a SQLite file in a temporary folder, or a PostgreSQL schema of
 * its own, so test files never share state. A PostgreSQL that does not answer fails the test.
 */
export async function openTestStore(backend: 'sqlite' | 'pg'): Promise<TestStore> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'cloud-store-'));
    const store = await openStore({ dataDir: dir });
    return {
      ...store,
      destroy: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `test_${randomBytes(6).toString('hex')}`;
  const store = await openPostgresStore(schema);
  return {
    ...store,
    destroy: async () => {
      await store.close();
      const admin = new Kysely<unknown>({ dialect: createDialect(databaseUrl!) });
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
      await admin.destroy();
    },
  };
}

// Kysely's migrator reads the catalog of every schema; when a neighbouring test file drops its
// schema at that moment, PostgreSQL reports the vanished relation (42P01), schema (3F000) or, from
// pg_get_serial_sequence in a parallel worker, column (42703).
// A deployment has one schema that nobody drops, so only tests need to try again.
const VANISHED_IN_CATALOG = new Set(['42P01', '3F000', '42703']);

async function openPostgresStore(schema: string, attempts = 3): Promise<Store> {
  try {
    return await openStore({ dataDir: '', databaseUrl, schema });
  } catch (error) {
    const code = ((error as Error).cause as { code?: string } | undefined)?.code;
    if (attempts <= 1 || !code || !VANISHED_IN_CATALOG.has(code)) throw error;
    return openPostgresStore(schema, attempts - 1);
  }
}
