import type { Kysely } from 'kysely';

// Issue 10 stub: filled in by the module's helper.
export async function up(_db: Kysely<unknown>) {}

export async function down(_db: Kysely<unknown>) {}
