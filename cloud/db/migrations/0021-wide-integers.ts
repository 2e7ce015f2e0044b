import { type Kysely, PostgresAdapter } from 'kysely';

/**
 * Integers that arrive from requests and sync in the range every request number shares (money up
 * to a billion of a currency in cents, counts up to 2^53) are bigint everywhere: these three were
 * `integer` and refused values past 2^31 on PostgreSQL with a 500, the sync push's poisoning a
 * store's every later push. SQLite's integers are 64-bit already.
 */
const WIDENED: Array<[table: string, column: string]> = [
  ['billing_addons', 'price_cents'],
  ['pnl_lines', 'quantity'],
  ['sync_locations', 'queue_depth'],
];

const onPostgres = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof PostgresAdapter;

async function setType(db: Kysely<unknown>, type: 'bigint' | 'integer') {
  if (!onPostgres(db)) return;
  for (const [table, column] of WIDENED)
    await db.schema
      .alterTable(table)
      .alterColumn(column, (c) => c.setDataType(type))
      .execute();
}

export const up = (db: Kysely<unknown>) => setType(db, 'bigint');
export const down = (db: Kysely<unknown>) => setType(db, 'integer');
