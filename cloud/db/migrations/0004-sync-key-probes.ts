import type { Kysely } from 'kysely';

/**
 * A push looks its change ids up one by one (see selectByKeys in db/dialect/pg.ts): an index led
 * by the change id alone is one the planner cannot pass over for another, statistics or not.
 */
export async function up(db: Kysely<unknown>) {
  await db.schema.createIndex('sync_changes_change').on('sync_changes').column('change_id').execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.dropIndex('sync_changes_change').execute();
}
