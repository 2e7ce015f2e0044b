import { InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';
import { storeRowId } from './catalog.ts';
import { createKitchenService } from './kitchen.ts';
import { createMenuStore } from './menu-store.ts';
import { type Page, paged } from './paging.ts';
import { createPublisher, type PublisherDeps } from './publisher.ts';
import { createStockService } from './stock.ts';
import type { MenuCategoryRow, MenuItemRow, MenuOverrideRow } from './tables.ts';

export type MenuDeps = PublisherDeps;

const categoryNotFound = () => new NotFoundError('Category', 'CATEGORY_NOT_FOUND');
export const itemNotFound = () => new NotFoundError('Menu item', 'ITEM_NOT_FOUND');

const toCategory = (row: MenuCategoryRow) => ({
  id: row.id,
  brand_id: row.brand_id,
  name: row.name,
  position: Number(row.position),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

const toItem = (row: MenuItemRow, overrides: MenuOverrideRow[] = []) => ({
  id: row.id,
  brand_id: row.brand_id,
  category_id: row.category_id,
  name: row.name,
  description: row.description,
  price_minor: Number(row.price_minor),
  available: Number(row.available) === 1,
  overrides: overrides
    .filter((o) => o.price_minor !== null || o.available !== null)
    .map((o) => ({
      location_id: o.location_id,
      price_minor: o.price_minor === null ? null : Number(o.price_minor),
      available: o.available === null ? null : Number(o.available) === 1,
    }))
    .sort((a, b) => a.location_id.localeCompare(b.location_id)),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

/**
 * Head office's catalog, one per brand: the menu here, and the stock and kitchen parts
 * (`stock`, `kitchen`), every change of them published to the brand's stores by one publisher,
 * so one brand's changes reach its stores in the order they were made, whatever their kind.
 */
export function createMenuService(deps: MenuDeps) {
  const store = createMenuStore(deps.db);
  const publisher = createPublisher(deps);
  const { requireBrand, targets, publish } = publisher;
  const now = () => deps.clock.now().toISOString();

  async function requireCategory(tenantId: string, id: string) {
    const row = await store.category(tenantId, id);
    if (!row) throw categoryNotFound();
    return row;
  }
  async function requireItem(tenantId: string, id: string) {
    const row = await store.item(tenantId, id);
    if (!row) throw itemNotFound();
    return row;
  }

  async function changeItem(tenantId: string, id: string, patch: Partial<MenuItemRow>, change: string) {
    const item = await requireItem(tenantId, id);
    await store.updateItem(tenantId, id, { ...patch, updated_at: now() });
    const publication = await publish(tenantId, item.brand_id, change, [id]);
    return { ...(await itemView(tenantId, id)), publication };
  }

  async function itemView(tenantId: string, id: string) {
    const row = await requireItem(tenantId, id);
    return toItem(row, await store.overrides(tenantId, [id]));
  }

  return {
    async createCategory(
      tenantId: string,
      input: { brand_id: string; name: string; position?: number | undefined },
    ) {
      await requireBrand(tenantId, input.brand_id);
      const at = now();
      const row: MenuCategoryRow = {
        tenant_id: tenantId,
        id: deps.newId(),
        brand_id: input.brand_id,
        name: input.name.trim(),
        position: input.position ?? 0,
        created_at: at,
        updated_at: at,
      };
      await store.insertCategory(row);
      const publication = await publish(tenantId, row.brand_id, 'category', [row.id]);
      return { ...toCategory(row), publication };
    },

    async updateCategory(
      tenantId: string,
      id: string,
      patch: { name?: string | undefined; position?: number | undefined },
    ) {
      const current = await requireCategory(tenantId, id);
      await store.updateCategory(tenantId, id, {
        ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
        ...(patch.position !== undefined ? { position: patch.position } : {}),
        updated_at: now(),
      });
      const publication = await publish(tenantId, current.brand_id, 'category', [id]);
      return { ...toCategory(await requireCategory(tenantId, id)), publication };
    },

    getCategory: async (tenantId: string, id: string) => toCategory(await requireCategory(tenantId, id)),

    async listCategories(tenantId: string, brandId: string, page: Page) {
      await requireBrand(tenantId, brandId);
      const { page: rows, next_cursor } = paged(
        await store.categories(tenantId, brandId, page.cursor, page.limit + 1),
        page.limit,
      );
      return { items: rows.map(toCategory), next_cursor };
    },

    async createItem(
      tenantId: string,
      input: {
        brand_id: string;
        category_id: string;
        name: string;
        description?: string | undefined;
        price_minor: number;
        available?: boolean | undefined;
      },
    ) {
      await requireBrand(tenantId, input.brand_id);
      const category = await requireCategory(tenantId, input.category_id);
      if (category.brand_id !== input.brand_id)
        throw new InvalidRequestError('The category is another brand’s', [
          { field: 'body.category_id', message: 'must be a category of brand_id' },
        ]);
      const at = now();
      const row: MenuItemRow = {
        tenant_id: tenantId,
        id: deps.newId(),
        brand_id: input.brand_id,
        category_id: input.category_id,
        name: input.name.trim(),
        description: input.description ?? '',
        price_minor: input.price_minor,
        available: input.available === false ? 0 : 1,
        created_at: at,
        updated_at: at,
      };
      await store.insertItem(row);
      const publication = await publish(tenantId, row.brand_id, 'item', [row.id]);
      return { ...toItem(row), publication };
    },

    async updateItem(
      tenantId: string,
      id: string,
      patch: {
        name?: string | undefined;
        description?: string | undefined;
        category_id?: string | undefined;
      },
    ) {
      const item = await requireItem(tenantId, id);
      if (patch.category_id !== undefined) {
        const category = await requireCategory(tenantId, patch.category_id);
        if (category.brand_id !== item.brand_id)
          throw new InvalidRequestError('The category is another brand’s', [
            { field: 'body.category_id', message: 'must be a category of the item’s brand' },
          ]);
      }
      return changeItem(
        tenantId,
        id,
        {
          ...(patch.name !== undefined ? { name: patch.name.trim() } : {}),
          ...(patch.description !== undefined ? { description: patch.description } : {}),
          ...(patch.category_id !== undefined ? { category_id: patch.category_id } : {}),
        },
        'item',
      );
    },

    getItem: itemView,

    async listItems(
      tenantId: string,
      brandId: string,
      filter: { category_id?: string | undefined },
      page: Page,
    ) {
      await requireBrand(tenantId, brandId);
      const { page: rows, next_cursor } = paged(
        await store.items(tenantId, brandId, { categoryId: filter.category_id }, page.cursor, page.limit + 1),
        page.limit,
      );
      const overrides = await store.overrides(
        tenantId,
        rows.map((r) => r.id),
      );
      return {
        items: rows.map((r) =>
          toItem(
            r,
            overrides.filter((o) => o.item_id === r.id),
          ),
        ),
        next_cursor,
      };
    },

    /**
     * A price for the brand's every store (their own prices dropped), or for the stores named
     * (each keeps it until head office sets another or the brand's price for all).
     */
    async setPrice(tenantId: string, id: string, priceMinor: number, locationIds?: readonly string[]) {
      const item = await requireItem(tenantId, id);
      if (locationIds === undefined) {
        await store.clearOverrides(tenantId, id, 'price_minor', now());
        return changeItem(tenantId, id, { price_minor: priceMinor }, 'price');
      }
      const stores = await targets(tenantId, item.brand_id, locationIds);
      await store.setOverrides(tenantId, id, stores, { price_minor: priceMinor, updated_at: now() });
      const publication = await publish(tenantId, item.brand_id, 'price', [id], stores);
      return { ...(await itemView(tenantId, id)), publication };
    },

    /**
     * Many prices of one brand in one change (a new price list): the brand's prices for every
     * store, or the named stores' own; written together, published as one publication.
     */
    async setPrices(
      tenantId: string,
      brandId: string,
      prices: ReadonlyArray<{ item_id: string; price_minor: number }>,
      locationIds?: readonly string[],
    ) {
      await requireBrand(tenantId, brandId);
      const ids = prices.map((p) => p.item_id);
      const duplicate = ids.find((id, i) => ids.indexOf(id) !== i);
      if (duplicate)
        throw new InvalidRequestError('An item is priced twice', [
          { field: 'body.prices', message: `${duplicate} appears more than once` },
        ]);
      const found = new Map((await store.itemsByIds(tenantId, ids)).map((item) => [item.id, item]));
      for (const [index, id] of ids.entries()) {
        const item = found.get(id);
        if (!item) throw itemNotFound();
        if (item.brand_id !== brandId)
          throw new InvalidRequestError('An item is another brand’s', [
            { field: `body.prices.${index}.item_id`, message: 'must be an item of brand_id' },
          ]);
      }
      const stores = locationIds === undefined ? undefined : await targets(tenantId, brandId, locationIds);
      const at = now();
      await deps.db.transaction().execute(async (trx) => {
        const writer = createMenuStore(trx);
        for (const { item_id, price_minor } of prices) {
          if (stores === undefined) {
            await writer.clearOverrides(tenantId, item_id, 'price_minor', at);
            await writer.updateItem(tenantId, item_id, { price_minor, updated_at: at });
          } else await writer.setOverrides(tenantId, item_id, stores, { price_minor, updated_at: at });
        }
      });
      const publication = await publish(tenantId, brandId, 'price', ids, stores);
      return { brand_id: brandId, items: ids.length, publication };
    },

    async setAvailability(tenantId: string, id: string, available: boolean, locationIds?: readonly string[]) {
      const item = await requireItem(tenantId, id);
      if (locationIds === undefined) {
        await store.clearOverrides(tenantId, id, 'available', now());
        return changeItem(tenantId, id, { available: available ? 1 : 0 }, 'availability');
      }
      const stores = await targets(tenantId, item.brand_id, locationIds);
      await store.setOverrides(tenantId, id, stores, { available: available ? 1 : 0, updated_at: now() });
      const publication = await publish(tenantId, item.brand_id, 'availability', [id], stores);
      return { ...(await itemView(tenantId, id)), publication };
    },

    publication: publisher.progress,
    settle: publisher.settle,
    resume: publisher.resume,
    fillStore: publisher.fillStore,

    /**
     * The brand items a store's menu rows stand for, by the store's row id: what reports and the
     * order views group every store's sales of one item by. Rows the store made itself have none.
     */
    async catalogOf(tenantId: string, locationId: string) {
      const brandId = await deps.brandOfLocation(tenantId, locationId);
      if (!brandId) return new Map<string, string>();
      const items = await deps.db
        .selectFrom('commerce_menu_items')
        .select('id')
        .where('tenant_id', '=', tenantId)
        .where('brand_id', '=', brandId)
        .execute();
      return new Map(items.map(({ id }) => [storeRowId(id, locationId), id]));
    },

    stock: createStockService({ ...deps, publisher, requireItem }),
    kitchen: createKitchenService({ ...deps, publisher, requireItem }),
  };
}

export type MenuService = ReturnType<typeof createMenuService>;
