import type { Kysely } from 'kysely';

/**
 * device_telemetry rows become stretches of time: a store syncs one summary per device and minute
 * (the row's id is the store's, so a resent minute is one row), where a sample is a stretch of one.
 */
export async function up(db: Kysely<unknown>) {
  await db.schema
    .alterTable('device_telemetry')
    .addColumn('samples', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
}

export async function down(db: Kysely<unknown>) {
  await db.schema.alterTable('device_telemetry').dropColumn('samples').execute();
}
