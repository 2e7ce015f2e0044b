import { sql } from 'kysely';
import type { Db } from '../db/index.ts';
import type { Where, Written } from './projection.ts';

// Seven columns a row: far below either database's limit on parameters in one statement.
const CHUNK = 500;

const optionalNumber = (value: unknown) => (value === null || value === undefined ? null : Number(value));

/** The stores' inventory items as they now stand: a level's name, unit and reorder level. */
export async function recordStockItems(db: Db, at: Where, rows: Written[]) {
  for (let start = 0; start < rows.length; start += CHUNK)
    await db
      .insertInto('commerce_stock_levels')
      .values(
        rows.slice(start, start + CHUNK).map(({ fields }) => ({
          tenant_id: at.tenantId,
          location_id: at.locationId,
          inventory_item_id: String(fields.id),
          name: String(fields.name),
          unit: String(fields.unit),
          reorder_level_milli: optionalNumber(fields.reorder_level_milli),
          reorder_quantity_milli: optionalNumber(fields.reorder_quantity_milli),
          quantity_milli: 0,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'location_id', 'inventory_item_id']).doUpdateSet({
          name: sql.ref('excluded.name'),
          unit: sql.ref('excluded.unit'),
          reorder_level_milli: sql.ref('excluded.reorder_level_milli'),
          reorder_quantity_milli: sql.ref('excluded.reorder_quantity_milli'),
        }),
      )
      .execute();
}

/**
 * The stores' stock movements, each counted into its item's level once. Sync hands a movement
 * pushed again (a lost answer, a replayed queue) to its observers again, as the row it already
 * holds; the movement ids counted before are what keeps it from counting twice.
 */
export async function recordStockMovements(db: Db, at: Where, rows: Written[]) {
  for (let start = 0; start < rows.length; start += CHUNK) {
    const counted = await db
      .insertInto('commerce_stock_movements')
      .values(
        rows.slice(start, start + CHUNK).map(({ fields }) => ({
          tenant_id: at.tenantId,
          id: String(fields.id),
          location_id: at.locationId,
          inventory_item_id: String(fields.inventory_item_id),
          delta_milli: Number(fields.delta_milli),
        })),
      )
      .onConflict((oc) => oc.columns(['tenant_id', 'id']).doNothing())
      .returning(['inventory_item_id', 'delta_milli'])
      .execute();
    await addToLevels(db, at, counted);
  }
}

async function addToLevels(
  db: Db,
  at: Where,
  moved: Array<{ inventory_item_id: string; delta_milli: number }>,
) {
  const deltas = new Map<string, number>();
  for (const m of moved)
    deltas.set(m.inventory_item_id, (deltas.get(m.inventory_item_id) ?? 0) + Number(m.delta_milli));
  if (deltas.size === 0) return;
  await db
    .insertInto('commerce_stock_levels')
    .values(
      // In one order, so two stores' pushes committed together never wait on each other in turn.
      [...deltas]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([itemId, delta]) => ({
          tenant_id: at.tenantId,
          location_id: at.locationId,
          inventory_item_id: itemId,
          name: null,
          unit: null,
          reorder_level_milli: null,
          reorder_quantity_milli: null,
          quantity_milli: delta,
        })),
    )
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'location_id', 'inventory_item_id'])
        .doUpdateSet({ quantity_milli: sql`commerce_stock_levels.quantity_milli + excluded.quantity_milli` }),
    )
    .execute();
}
