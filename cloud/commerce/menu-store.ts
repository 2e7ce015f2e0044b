import type { Db } from '../db/index.ts';
import type {
  MenuCategoryRow,
  MenuItemRow,
  MenuOverrideRow,
  PublicationRow,
  PublicationStoreRow,
} from './tables.ts';

/** The brand menus' queries; each takes the connection or transaction to run on. */
export function createMenuStore(db: Db) {
  return {
    insertCategory: (row: MenuCategoryRow) => db.insertInto('commerce_menu_categories').values(row).execute(),
    updateCategory: (tenantId: string, id: string, patch: Partial<MenuCategoryRow>) =>
      db
        .updateTable('commerce_menu_categories')
        .set(patch)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .execute(),
    category: (tenantId: string, id: string) =>
      db
        .selectFrom('commerce_menu_categories')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    categories: (tenantId: string, brandId: string, after: string | undefined, limit: number) =>
      db
        .selectFrom('commerce_menu_categories')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('brand_id', '=', brandId)
        .$if(after !== undefined, (q) => q.where('id', '>', after!))
        .orderBy('id')
        .limit(limit)
        .execute(),
    categoriesByIds: (tenantId: string, ids: readonly string[]) =>
      ids.length === 0
        ? Promise.resolve([] as MenuCategoryRow[])
        : db
            .selectFrom('commerce_menu_categories')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('id', 'in', ids)
            .execute(),

    insertItem: (row: MenuItemRow) => db.insertInto('commerce_menu_items').values(row).execute(),
    updateItem: (tenantId: string, id: string, patch: Partial<MenuItemRow>) =>
      db
        .updateTable('commerce_menu_items')
        .set(patch)
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .execute(),
    item: (tenantId: string, id: string) =>
      db
        .selectFrom('commerce_menu_items')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    items: (
      tenantId: string,
      brandId: string,
      filter: { categoryId?: string | undefined },
      after: string | undefined,
      limit: number,
    ) =>
      db
        .selectFrom('commerce_menu_items')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('brand_id', '=', brandId)
        .$if(filter.categoryId !== undefined, (q) => q.where('category_id', '=', filter.categoryId!))
        .$if(after !== undefined, (q) => q.where('id', '>', after!))
        .orderBy('id')
        .limit(limit)
        .execute(),
    itemsByIds: (tenantId: string, ids: readonly string[]) =>
      ids.length === 0
        ? Promise.resolve([] as MenuItemRow[])
        : db
            .selectFrom('commerce_menu_items')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('id', 'in', ids)
            .execute(),
    /** Every category and item id of a brand, for a store that needs the whole menu. */
    async catalogIds(tenantId: string, brandId: string) {
      const [categories, items] = await Promise.all([
        db
          .selectFrom('commerce_menu_categories')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('brand_id', '=', brandId)
          .execute(),
        db
          .selectFrom('commerce_menu_items')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('brand_id', '=', brandId)
          .execute(),
      ]);
      return [...categories, ...items].map((row) => row.id);
    },

    async setOverrides(
      tenantId: string,
      itemId: string,
      locationIds: readonly string[],
      patch: Pick<MenuOverrideRow, 'updated_at'> &
        Partial<Pick<MenuOverrideRow, 'price_minor' | 'available'>>,
    ) {
      if (locationIds.length === 0) return;
      await db
        .insertInto('commerce_menu_overrides')
        .values(
          locationIds.map((locationId) => ({
            tenant_id: tenantId,
            item_id: itemId,
            location_id: locationId,
            price_minor: patch.price_minor ?? null,
            available: patch.available ?? null,
            updated_at: patch.updated_at,
          })),
        )
        .onConflict((oc) => oc.columns(['tenant_id', 'item_id', 'location_id']).doUpdateSet(patch))
        .execute();
    },
    /** Drops the stores' own value of a field: the brand's applies to every store again. */
    clearOverrides: (tenantId: string, itemId: string, field: 'price_minor' | 'available', at: string) =>
      db
        .updateTable('commerce_menu_overrides')
        .set({ [field]: null, updated_at: at })
        .where('tenant_id', '=', tenantId)
        .where('item_id', '=', itemId)
        .execute(),
    overrides: (tenantId: string, itemIds: readonly string[], locationId?: string) =>
      itemIds.length === 0
        ? Promise.resolve([] as MenuOverrideRow[])
        : db
            .selectFrom('commerce_menu_overrides')
            .selectAll()
            .where('tenant_id', '=', tenantId)
            .where('item_id', 'in', itemIds)
            .$if(locationId !== undefined, (q) => q.where('location_id', '=', locationId!))
            .execute(),

    insertPublication: (row: PublicationRow) => db.insertInto('commerce_publications').values(row).execute(),
    publication: (tenantId: string, id: string) =>
      db
        .selectFrom('commerce_publications')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .executeTakeFirst(),
    unfinishedPublications: () =>
      db
        .selectFrom('commerce_publications')
        .selectAll()
        .where('state', '=', 'publishing')
        .orderBy('created_at')
        .execute(),
    finishPublication: (tenantId: string, id: string, at: string) =>
      db
        .updateTable('commerce_publications')
        .set({ state: 'published', published_at: at })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id)
        .execute(),
    insertPublicationStore: (row: PublicationStoreRow) =>
      db
        .insertInto('commerce_publication_stores')
        .values(row)
        .onConflict((oc) => oc.columns(['tenant_id', 'publication_id', 'location_id']).doNothing())
        .execute(),
    publicationStores: (tenantId: string, publicationId: string) =>
      db
        .selectFrom('commerce_publication_stores')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('publication_id', '=', publicationId)
        .execute(),
  };
}

export type MenuStore = ReturnType<typeof createMenuStore>;
