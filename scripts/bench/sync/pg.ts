/** The bench's PostgreSQL chores: fresh schemas dropped after use, and the planner's statistics. */
import { Kysely, sql } from 'kysely';
import { createDialect } from '../../../cloud/db/dialect/pg.ts';

/** Tables a push and a pull query by key: the planner needs their statistics to use those keys. */
const SYNC_TABLES = ['sync_rows', 'sync_changes', 'sync_feed', 'sync_locations', 'domain_events'] as const;

async function withAdmin<T>(databaseUrl: string, work: (admin: Kysely<unknown>) => Promise<T>) {
  const admin = new Kysely<unknown>({ dialect: createDialect(databaseUrl) });
  try {
    return await work(admin);
  } finally {
    await admin.destroy();
  }
}

export const dropSchema = (databaseUrl: string, schema: string) =>
  withAdmin(databaseUrl, (admin) => sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin));

/** Whether the server collects statistics by itself (a test server may not). */
export const autovacuumOf = (databaseUrl: string) =>
  withAdmin(databaseUrl, async (admin) => {
    const { rows } = await sql<{ autovacuum: string }>`show autovacuum`.execute(admin);
    return rows[0]?.autovacuum ?? 'unknown';
  });

const MINUTE_MS = 60_000;

/**
 * Stands in for autovacuum's analyze on a server that has autovacuum off (a test server): once a
 * minute, each sync table changed by more than 50 rows plus 10% since it was last analyzed is
 * analyzed, as autovacuum does at its defaults. Without statistics the planner takes a push's key
 * lookups for a few rows and scans the whole store instead (measured at 40,000 rows: 13 ms instead
 * of 1 ms each, and growing with the store), which no deployment would see for long. Resolves, when
 * stopped, to the number of tables analyzed.
 */
export function emulateAutoanalyze(databaseUrl: string, schema: string) {
  const admin = new Kysely<unknown>({ dialect: createDialect(databaseUrl) });
  let analyzed = 0;
  let running = Promise.resolve();
  const due = () =>
    sql<{ relname: string }>`
      select s.relname from pg_stat_user_tables s join pg_class c on c.oid = s.relid
      where s.schemaname = ${schema} and s.relname in (${sql.join([...SYNC_TABLES])})
        and s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0)`.execute(admin);
  const tick = () => {
    running = running
      .then(async () => {
        for (const { relname } of (await due()).rows) {
          await sql`analyze ${sql.id(schema, relname)}`.execute(admin);
          analyzed += 1;
        }
      })
      .catch(() => undefined);
  };
  const timer = setInterval(tick, MINUTE_MS);
  return async () => {
    clearInterval(timer);
    await running;
    await admin.destroy();
    return analyzed;
  };
}
