import type { Db } from '../db/index.ts';

interface Component {
  inventory_item_id: string;
  quantity_milli: number;
}

function componentsOf(text: string): Component[] {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!Array.isArray(parsed)) return [];
    return parsed.filter(
      (c): c is Component =>
        typeof c === 'object' && c !== null && typeof (c as Component).inventory_item_id === 'string',
    );
  } catch {
    return [];
  }
}

/**
 * What one unit of each menu item costs (its recipe's components at the stock items' recorded
 * costs) and whether it is a beverage (its own classification, else its category's, else food).
 * Worked out for one store or the whole tenant; a menu item without a recipe costs nothing.
 */
export async function refreshMenuCosts(db: Db, tenantId: string, locationId?: string) {
  const recipes = await db
    .selectFrom('pnl_recipes')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .$if(locationId !== undefined, (q) => q.where('location_id', '=', locationId!))
    .execute();
  const menu = await db
    .selectFrom('pnl_menu_items')
    .select(['location_id', 'id', 'category_id'])
    .where('tenant_id', '=', tenantId)
    .$if(locationId !== undefined, (q) => q.where('location_id', '=', locationId!))
    .execute();
  const itemCosts = new Map(
    (
      await db
        .selectFrom('pnl_item_costs')
        .select(['inventory_item_id', 'unit_cost_micros'])
        .where('tenant_id', '=', tenantId)
        .execute()
    ).map((row) => [row.inventory_item_id, Number(row.unit_cost_micros)]),
  );
  const classes = new Map(
    (
      await db
        .selectFrom('pnl_classifications')
        .select(['kind', 'ref_id', 'cost_class'])
        .where('tenant_id', '=', tenantId)
        .execute()
    ).map((row) => [`${row.kind}:${row.ref_id}`, row.cost_class]),
  );
  const categoryOf = new Map(menu.map((m) => [`${m.location_id}:${m.id}`, m.category_id]));
  const beverage = (locationIdOf: string, menuItemId: string) => {
    const own = classes.get(`menu_item:${menuItemId}`);
    const category = categoryOf.get(`${locationIdOf}:${menuItemId}`);
    const byCategory = category === undefined ? undefined : classes.get(`category:${category}`);
    return (own ?? byCategory) === 'beverage' ? 1 : 0;
  };
  const rows = recipes.map((recipe) => ({
    tenant_id: tenantId,
    location_id: recipe.location_id,
    menu_item_id: recipe.menu_item_id,
    unit_cost_micros: Math.round(
      componentsOf(recipe.components).reduce(
        (sum, c) => sum + (Number(c.quantity_milli) * (itemCosts.get(c.inventory_item_id) ?? 0)) / 1000,
        0,
      ),
    ),
    is_beverage: beverage(recipe.location_id, recipe.menu_item_id),
  }));
  await db
    .deleteFrom('pnl_menu_costs')
    .where('tenant_id', '=', tenantId)
    .$if(locationId !== undefined, (q) => q.where('location_id', '=', locationId!))
    .execute();
  for (let i = 0; i < rows.length; i += 400)
    await db
      .insertInto('pnl_menu_costs')
      .values(rows.slice(i, i + 400))
      .execute();
}
