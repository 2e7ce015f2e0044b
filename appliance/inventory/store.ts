import type { ApplianceDatabase } from '../db/index.ts';

export interface InventoryItemRow {
  id: string;
  name: string;
  unit: string;
  quantity_milli: number;
  reorder_level_milli: number;
  reorder_quantity_milli: number;
  version: number;
  updated_at: string;
}

export interface MovementRow {
  id: string;
  inventory_item_id: string;
  kind: 'sale' | 'restock' | 'count';
  delta_milli: number;
  reference: string | null;
  created_at: string;
}

export function createInventoryStore(db: ApplianceDatabase) {
  const insertItem = db.prepare(
    `insert into inventory_items (id, name, unit, quantity_milli, reorder_level_milli, reorder_quantity_milli, version, updated_at)
     values (@id, @name, @unit, @quantity_milli, @reorder_level_milli, @reorder_quantity_milli, @version, @updated_at)`,
  );
  const byId = db.prepare('select * from inventory_items where id = ?');
  const byName = db.prepare('select id from inventory_items where name = ?');
  const all = db.prepare('select * from inventory_items order by name');
  // The quantity is local: the item's version and updated_at describe its definition, which is
  // what syncs, so a sale or a restock is a movement and never an edit of the item.
  const move = db.prepare(
    'update inventory_items set quantity_milli = quantity_milli + ? where id = ? returning *',
  );
  const insertMovement = db.prepare(
    `insert into inventory_movements (id, inventory_item_id, kind, delta_milli, reference, created_at)
     values (@id, @inventory_item_id, @kind, @delta_milli, @reference, @created_at)`,
  );
  const saleRecorded = db.prepare(
    "select 1 from inventory_movements where kind = 'sale' and reference = ? limit 1",
  );
  const saleUsage = db.prepare(
    `select inventory_item_id, sum(delta_milli) as delta_milli from inventory_movements
     where kind = 'sale' and reference = ? group by inventory_item_id order by inventory_item_id`,
  );
  const saleReturned = db.prepare(
    "select 1 from inventory_movements where kind = 'restock' and reference = ? limit 1",
  );
  const deleteRecipe = db.prepare('delete from recipes where menu_item_id = ?');
  const bumpRecipeVersion = db.prepare(
    `insert into recipe_versions (menu_item_id, version) values (?, 1)
     on conflict (menu_item_id) do update set version = version + 1 returning version`,
  );
  const insertRecipe = db.prepare(
    'insert into recipes (menu_item_id, inventory_item_id, quantity_milli) values (?, ?, ?)',
  );
  const recipeOf = db.prepare('select inventory_item_id, quantity_milli from recipes where menu_item_id = ?');
  return {
    insertItem: (row: InventoryItemRow) => insertItem.run(row),
    item: (id: string) => byId.get(id) as InventoryItemRow | undefined,
    nameTaken: (name: string) => byName.get(name) !== undefined,
    items: () => all.all() as InventoryItemRow[],
    move: (id: string, delta: number) => move.get(delta, id) as InventoryItemRow,
    insertMovement: (row: MovementRow) => insertMovement.run(row),
    saleRecorded: (reference: string) => saleRecorded.get(reference) !== undefined,
    /** What an order's sale moved, per stock item (negative: taken out). */
    saleUsage: (reference: string) =>
      saleUsage.all(reference) as Array<{ inventory_item_id: string; delta_milli: number }>,
    saleReturned: (reference: string) => saleReturned.get(reference) !== undefined,
    /** Replaces a menu item's recipe; answers the recipe's new version. */
    replaceRecipe(
      menuItemId: string,
      components: Array<{ inventory_item_id: string; quantity_milli: number }>,
    ): number {
      deleteRecipe.run(menuItemId);
      for (const c of components) insertRecipe.run(menuItemId, c.inventory_item_id, c.quantity_milli);
      return (bumpRecipeVersion.get(menuItemId) as { version: number }).version;
    },
    /** The recipe as it syncs: one row per menu item, its components as JSON. */
    recipeRow: (menuItemId: string) => ({
      menu_item_id: menuItemId,
      components: JSON.stringify(
        (recipeOf.all(menuItemId) as Array<{ inventory_item_id: string; quantity_milli: number }>).map(
          (c) => ({
            inventory_item_id: c.inventory_item_id,
            quantity_milli: c.quantity_milli,
          }),
        ),
      ),
    }),
    recipe: (menuItemId: string) =>
      recipeOf.all(menuItemId) as Array<{ inventory_item_id: string; quantity_milli: number }>,
  };
}
