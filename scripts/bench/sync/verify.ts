/**
 * Checks that a store and the cloud agree after a measure: nothing lost, nothing twice. Each check
 * returns its problems as sentences (empty when all is well); any problem makes the run invalid.
 */
import type { ApplianceDatabase } from '../../../appliance/db/index.ts';
import { isEventType } from '../../../shared/events.ts';
import { SYNC_TABLES, type SyncTableName } from '../../../shared/sync/registry.ts';
import type { BenchAppliance } from './appliance.ts';
import type { CloudRow, CloudState } from './control.ts';

/** Where each synced table's rows live on the appliance (a recipe is one row per menu item). */
const LOCAL_TABLES: Partial<Record<SyncTableName, string>> = {
  orders: 'orders',
  order_items: 'order_items',
  payments: 'payments',
  menu_categories: 'menu_categories',
  menu_items: 'menu_items',
  location_settings: 'location_settings',
  inventory_items: 'inventory_items',
  inventory_movements: 'inventory_movements',
  recipes: 'recipe_versions',
  stations: 'stations',
  station_items: 'station_items',
  time_punches: 'time_punches',
};

const MAX_LISTED = 3;

function listed(label: string, wrong: string[]) {
  if (wrong.length === 0) return [];
  const more = wrong.length > MAX_LISTED ? ` and ${wrong.length - MAX_LISTED} more` : '';
  return [`${label}: ${wrong.slice(0, MAX_LISTED).join('; ')}${more}`];
}

const countOf = (db: ApplianceDatabase, sql: string) => (db.prepare(sql).get() as { n: number }).n;

/** Catalog events the store wrote (the kitchen's own events never leave it). */
export function localEvents(db: ApplianceDatabase) {
  const byType = db.prepare('select type, count(*) as n from events group by type').all() as Array<{
    type: string;
    n: number;
  }>;
  return byType.filter((row) => isEventType(row.type)).reduce((sum, row) => sum + row.n, 0);
}

/**
 * Every synced table has as many live rows in the cloud as on the appliance, the cloud holds each
 * catalog event once, every outbox row is answered and the pull cursor is at the feed's end.
 */
export function agreementProblems(label: string, app: BenchAppliance, cloud: CloudState) {
  const { db } = app;
  const wrong = Object.entries(LOCAL_TABLES).flatMap(([table, local]) => {
    const here = countOf(db, `select count(*) as n from ${local}`);
    const there = cloud.rows[table] ?? 0;
    return here === there ? [] : [`${table} ${here} on the appliance, ${there} in the cloud`];
  });
  const events = localEvents(db);
  if (events !== cloud.events) wrong.push(`events ${events} on the appliance, ${cloud.events} in the cloud`);
  const waiting = countOf(db, 'select count(*) as n from outbox where pushed_at is null');
  if (waiting > 0) wrong.push(`${waiting} outbox rows unanswered`);
  const { cursor } = db.prepare('select cursor from sync_state where id = 1').get() as { cursor: number };
  if (cursor !== cloud.feed_seq)
    wrong.push(`pull cursor ${cursor}, the cloud's feed ends at ${cloud.feed_seq}`);
  return listed(label, wrong);
}

/** Outbox rows the cloud answered other than `applied`, by outcome. */
export function outcomes(db: ApplianceDatabase) {
  const rows = db.prepare('select outcome, count(*) as n from outbox group by outcome').all() as Array<{
    outcome: string | null;
    n: number;
  }>;
  return Object.fromEntries(rows.map((row) => [row.outcome ?? 'unanswered', row.n]));
}

/** Each stock item's quantity on the appliance is the sum of its movements there. */
export function stockProblems(label: string, db: ApplianceDatabase) {
  const rows = db
    .prepare(
      `select i.id, i.quantity_milli as quantity, coalesce(sum(m.delta_milli), 0) as moved
       from inventory_items i left join inventory_movements m on m.inventory_item_id = i.id
       group by i.id having quantity <> moved`,
    )
    .all() as Array<{ id: string; quantity: number; moved: number }>;
  return listed(
    label,
    rows.map((row) => `stock ${row.id} holds ${row.quantity} but its movements add up to ${row.moved}`),
  );
}

/** Every row of `table` has the same synced fields on the appliance as in the cloud. */
export function fieldProblems(label: string, db: ApplianceDatabase, table: SyncTableName, cloud: CloudRow[]) {
  const spec = SYNC_TABLES[table];
  const columns = Object.keys(spec.columns);
  const read = db.prepare(`select ${columns.join(', ')} from ${table} where ${spec.key} = ?`);
  const wrong = cloud.flatMap((row) => {
    const local = read.get(row.row_id) as Record<string, unknown> | undefined;
    if (!local) return [`${table} ${row.row_id} is missing on the appliance`];
    const differs = columns.filter((column) => local[column] !== row.fields?.[column]);
    return differs.length === 0 ? [] : [`${table} ${row.row_id} differs in ${differs.join(', ')}`];
  });
  return listed(label, wrong);
}

export const sumOf = (rows: CloudRow[], field: string) =>
  rows.reduce((sum, row) => sum + Number(row.fields?.[field] ?? 0), 0);
