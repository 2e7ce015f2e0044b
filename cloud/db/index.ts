/**
 * The cloud's store: one Kysely API over SQLite or PostgreSQL (chosen by the URL), the migrations
 * run before anything listens, prepared reads for the hot paths, and the dialects' differences
 * (unique violations, transient conflicts) behind one interface.
 */
import { join } from 'node:path';
import { type CompiledQuery, Kysely, Migrator, sql } from 'kysely';
import type { KeyLookup } from './dialect/key-lookup.ts';
import * as pgDialect from './dialect/pg.ts';
import * as sqliteDialect from './dialect/sqlite.ts';
import { refusingNonFiniteNumbers } from './finite-numbers.ts';
import { migrations } from './migrations/index.ts';
import type { Database } from './schema.ts';

export type Db = Kysely<Database>;
export type DialectName = typeof sqliteDialect.name | typeof pgDialect.name;

export interface StoreOptions {
  dataDir: string;
  /** A postgres:// URL selects PostgreSQL; otherwise SQLite at `<dataDir>/cloud.sqlite`. */
  databaseUrl?: string | undefined;
  /** PostgreSQL only: the schema (search path) to use, created when missing. */
  schema?: string | undefined;
  /** SQLite only: an explicit file, e.g. ':memory:'. */
  file?: string | undefined;
}

/** A read compiled once and run with fresh parameters: for queries on every request's path. */
export type PreparedRead<Row> = (parameters: readonly unknown[]) => Promise<Row[]>;
export type PrepareRead = <Row>(query: CompiledQuery<Row>) => PreparedRead<Row>;

/** Runs a compiled read through Kysely itself, e.g. inside a transaction. */
export const kyselyRead =
  (db: Kysely<Database>): PrepareRead =>
  <Row>(query: CompiledQuery<Row>) =>
  async (parameters: readonly unknown[]) =>
    (await db.executeQuery<Row>({ ...query, parameters })).rows;

export interface Store {
  db: Db;
  dialect: DialectName;
  prepareRead: PrepareRead;
  /**
   * A write compiled once and run outside any transaction: on PostgreSQL a named prepared statement
   * (parsed and planned once per connection); on SQLite through Kysely, whose one connection it
   * shares with transactions (and whose statements are cached anyway).
   */
  prepareWrite: PrepareRead;
  isUniqueViolation(error: unknown): boolean;
  /** The transaction lost a race with a concurrent one and is worth running again. */
  isTransientConflict(error: unknown): boolean;
  /** Rows by a list of keys, planned well on either database whatever its statistics say. */
  selectByKeys<Row>(db: Kysely<Database>, lookup: KeyLookup): Promise<Row[]>;
  close(): Promise<void>;
}

export const isPostgresUrl = (url: string | undefined): url is string =>
  url !== undefined && /^postgres(ql)?:\/\//.test(url);

async function ensureSchema(connectionString: string, schema: string) {
  const bootstrap = new Kysely<unknown>({ dialect: pgDialect.createDialect(connectionString) });
  try {
    await sql`create schema if not exists ${sql.id(schema)}`.execute(bootstrap);
  } finally {
    await bootstrap.destroy();
  }
}

/** Opens the cloud store and brings its schema up to date before anyone uses it. */
export async function openStore(options: StoreOptions): Promise<Store> {
  const usePostgres = isPostgresUrl(options.databaseUrl);
  if (usePostgres && options.schema) await ensureSchema(options.databaseUrl!, options.schema);
  const dialectModule = usePostgres ? pgDialect : sqliteDialect;
  const backend = usePostgres
    ? pgDialect.createPostgres(options.databaseUrl!, options.schema)
    : sqliteDialect.createSqlite(options.file ?? join(options.dataDir, 'cloud.sqlite'));
  const db = new Kysely<Database>({ dialect: refusingNonFiniteNumbers(backend.dialect) });
  try {
    await migrateToLatest(db, usePostgres ? options.schema : undefined);
  } catch (error) {
    await db.destroy();
    throw error;
  }
  return {
    db,
    dialect: dialectModule.name,
    prepareRead: backend.prepareRead,
    prepareWrite: usePostgres ? backend.prepareRead : kyselyRead(db),
    isUniqueViolation: dialectModule.isUniqueViolation,
    isTransientConflict: dialectModule.isTransientConflict,
    selectByKeys: (db, lookup) => dialectModule.selectByKeys(db as Kysely<unknown>, lookup),
    close: async () => {
      backend.closeReader();
      await db.destroy();
    },
  };
}

/**
 * `schema` pins Kysely's bookkeeping tables: its migrator looks for them across every schema, so a
 * neighbour schema's tables would otherwise make it skip creating ours.
 */
export async function migrateToLatest(db: Db, schema?: string) {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    throw new Error(`cloud store migration ${failed?.migrationName ?? ''} failed`, { cause: error });
  }
}
export { createBatchLoader, keyedRead } from './batch.ts';
export {
  createGroupCommit,
  createGroupQueue,
  eachInSavepoint,
  type GroupCommitOptions,
  type Settled,
} from './group-commit.ts';
export type { Database } from './schema.ts';
