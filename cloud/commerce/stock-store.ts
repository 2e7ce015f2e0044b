import { sql } from 'kysely';
import type { Db } from '../db/index.ts';
import type { RecipeRow, StockItemRow } from './tables.ts';

/** A store's item at or below its reorder level, keyed for paging across stores. */
export interface LevelKey {
  locationId: string;
  itemId: string;
}

/** The brand stock items', recipes' and stock levels' queries. */
export function createStockStore(db: Db) {
  return {
    insertItem: (row: StockItemRow) => db.insertInto('commerce_stock_items').values(row).execute(),
    updateItem: (tenantId: string, id: string, patch: Partial<StockItemRow>) =>
      db
        .updateTable('commerce_stock_items')
        .set(patch)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .execute(),
    item: (tenantId: string, id: string) =>
      db
        .selectFrom('commerce_stock_items')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    items: (tenantId: string, brandId: string, after: string | undefined, limit: number) =>
      db
        .selectFrom('commerce_stock_items')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('brand_id', '=', brandId)
        .$if(after !== undefined, (q) => q.where('id', '>', after!))
        .orderBy('id')
        .limit(limit)
        .execute(),
    itemsByIds: (tenantId: string, ids: readonly string[]) =>
      ids.length === 0
        ? Promise.resolve([] as StockItemRow[])
        : db
            .selectFrom('commerce_stock_items')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('id', 'in', ids)
            .execute(),
    itemIds: async (tenantId: string, brandId: string) =>
      (
        await db
          .selectFrom('commerce_stock_items')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('brand_id', '=', brandId)
          .execute()
      ).map((row) => row.id),
    /** Another stock item of the brand by this name, whatever its case. */
    nameTaken: async (tenantId: string, brandId: string, name: string, exceptId?: string) =>
      (await db
        .selectFrom('commerce_stock_items')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('brand_id', '=', brandId)
        .where(sql<string>`lower(name)`, '=', name.toLowerCase())
        .$if(exceptId !== undefined, (q) => q.where('id', '!=', exceptId!))
        .executeTakeFirst()) !== undefined,

    recipes: (tenantId: string, itemIds: readonly string[]) =>
      itemIds.length === 0
        ? Promise.resolve([] as RecipeRow[])
        : db
            .selectFrom('commerce_recipes')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('item_id', 'in', itemIds)
            .execute(),
    setRecipe: (row: RecipeRow) =>
      db
        .insertInto('commerce_recipes')
        .values(row)
        .onConflict((oc) =>
          oc
            .columns(['tenant_id', 'item_id'])
            .doUpdateSet({ components: row.components, updated_at: row.updated_at }),
        )
        .execute(),

    levels: (tenantId: string, locationId: string, after: string | undefined, limit: number) =>
      db
        .selectFrom('commerce_stock_levels')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('location_id', '=', locationId)
        .$if(after !== undefined, (q) => q.where('inventory_item_id', '>', after!))
        .orderBy('inventory_item_id')
        .limit(limit)
        .execute(),
    /** Items at or below their reorder level, store by store; only items whose row has arrived. */
    low: (
      tenantId: string,
      locationIds: readonly string[] | undefined,
      after: LevelKey | undefined,
      limit: number,
    ) =>
      db
        .selectFrom('commerce_stock_levels')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('reorder_level_milli', 'is not', null)
        .whereRef('quantity_milli', '<=', 'reorder_level_milli')
        .$if(locationIds !== undefined, (q) => q.where('location_id', 'in', locationIds!))
        .$if(after !== undefined, (q) =>
          q.where((eb) =>
            eb.or([
              eb('location_id', '>', after!.locationId),
              eb.and([
                eb('location_id', '=', after!.locationId),
                eb('inventory_item_id', '>', after!.itemId),
              ]),
            ]),
          ),
        )
        .orderBy('location_id')
        .orderBy('inventory_item_id')
        .limit(limit)
        .execute(),
  };
}
