/**
 * The appliance's store: one SQLite file per store. WAL and FULL sync, so an order acknowledged
 * to a terminal survives a power cut; migrations run before the API listens.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { refuseNonFiniteNumbers } from './finite-numbers.ts';
import { type ApplianceMigration, migrations as allMigrations } from './migrations/index.ts';

export type ApplianceDatabase = Database.Database;

export function openApplianceDb(
  dataDir: string,
  migrations: ApplianceMigration[] = allMigrations,
): ApplianceDatabase {
  const file = join(dataDir, 'appliance.sqlite');
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  refuseNonFiniteNumbers(db);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  try {
    migrate(db, migrations);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/** Brings the schema to the newest version; each migration and its bookkeeping commit together. */
export function migrate(db: ApplianceDatabase, migrations: ApplianceMigration[]) {
  db.exec(
    'create table if not exists schema_migrations (version integer primary key, name text not null, applied_at text not null)',
  );
  const applied = new Set(
    (db.prepare('select version from schema_migrations').all() as Array<{ version: number }>).map(
      (row) => row.version,
    ),
  );
  const record = db.prepare('insert into schema_migrations (version, name, applied_at) values (?, ?, ?)');
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (applied.has(migration.version)) continue;
    if (migration.rebuildsTables) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        migration.up(db);
        if (migration.rebuildsTables && (db.pragma('foreign_key_check') as unknown[]).length > 0)
          throw new Error(`migration ${migration.version} (${migration.name}) broke a foreign key`);
        record.run(migration.version, migration.name, new Date().toISOString());
      })();
    } finally {
      if (migration.rebuildsTables) db.pragma('foreign_keys = ON');
    }
  }
}
export { type ChangeLog, createChangeLog } from './change-log.ts';
export { createGroupCommit, type GroupCommit } from './group-commit.ts';
/** Every migration this code knows: an update's health check compares a database with them. */
export { type ApplianceMigration, migrations } from './migrations/index.ts';
