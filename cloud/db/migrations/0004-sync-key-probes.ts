import type { Kysely } from 'kysely';

/**
 * A push looks its change ids up one by one (see selectByKeys in db/dialect/pg.ts): an index led
 * by the change id alone is one the planner cannot pass over for another, statistics or not. The
 * index of rows by table was never read (a table's rows are read by row key, `<table>/<id>`) and
 * only cost every push its upkeep.
 */
export async function up(db: Kysely<unknown>) {
  await db.schema.createIndex('sync_changes_change').on('sync_changes').column('change_id').execute();
  await db.schema.dropIndex('sync_rows_table').execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema
    .createIndex('sync_rows_table')
    .on('sync_rows')
    .columns(['tenant_id', 'location_id', 'table_name'])
    .execute();
  await db.schema.dropIndex('sync_changes_change').execute();
}
