import type { Clock } from '../../shared/clock.ts';
import { AppError, InvalidRequestError, NotFoundError } from '../../shared/http/errors.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { Db } from '../db/index.ts';
import type { Component } from './catalog.ts';
import { type Page, paged } from './paging.ts';
import { locationNotFound, type Publisher } from './publisher.ts';
import type { Viewer } from './service.ts';
import { createStockStore, type LevelKey } from './stock-store.ts';
import type { MenuItemRow, StockItemRow, StockLevelRow } from './tables.ts';

export interface StockDeps {
  db: Db;
  clock: Clock;
  newId: IdGenerator;
  publisher: Publisher;
  requireItem(tenantId: string, id: string): Promise<MenuItemRow>;
}

export interface StockItemInput {
  name: string;
  unit: string;
  reorder_level_milli?: number | undefined;
  reorder_quantity_milli?: number | undefined;
}

const stockItemNotFound = () => new NotFoundError('Stock item', 'STOCK_ITEM_NOT_FOUND');
const nameTaken = () =>
  new AppError(409, 'STOCK_ITEM_NAME_TAKEN', 'The brand has a stock item by that name already');

const toStockItem = (row: StockItemRow) => ({
  id: row.id,
  brand_id: row.brand_id,
  name: row.name,
  unit: row.unit,
  reorder_level_milli: Number(row.reorder_level_milli),
  reorder_quantity_milli: Number(row.reorder_quantity_milli),
  created_at: row.created_at,
  updated_at: row.updated_at,
});

const nullableNumber = (value: number | null) => (value === null ? null : Number(value));
const toLevel = (row: StockLevelRow) => ({
  location_id: row.location_id,
  inventory_item_id: row.inventory_item_id,
  name: row.name,
  unit: row.unit,
  quantity_milli: Number(row.quantity_milli),
  reorder_level_milli: nullableNumber(row.reorder_level_milli),
  reorder_quantity_milli: nullableNumber(row.reorder_quantity_milli),
  low: row.reorder_level_milli !== null && Number(row.quantity_milli) <= Number(row.reorder_level_milli),
});

/** A low-stock page's last row as `<location_id>_<inventory_item_id>`. */
const levelCursor = (row: StockLevelRow) => `${row.location_id}_${row.inventory_item_id}`;
function afterLevel(cursor: string | undefined): LevelKey | undefined {
  if (cursor === undefined) return undefined;
  const [locationId, itemId] = cursor.split('_');
  return { locationId: locationId!, itemId: itemId! };
}

/**
 * A brand's stock items and recipes, published to its stores like the menu, and each store's
 * stock as the cloud counts it from the movements the store pushed.
 */
export function createStockService(deps: StockDeps) {
  const store = createStockStore(deps.db);
  const { publisher } = deps;
  const now = () => deps.clock.now().toISOString();

  async function requireStockItem(tenantId: string, id: string) {
    const row = await store.item(tenantId, id);
    if (!row) throw stockItemNotFound();
    return row;
  }

  /** The stores a viewer may read of those asked for: a session for one store sees that store. */
  async function visibleStores(
    viewer: Viewer,
    query: { brand_id?: string | undefined; location_id?: string | undefined },
  ) {
    if (query.location_id !== undefined) {
      const brand = await publisher.brandOfLocation(viewer.tenantId, query.location_id);
      if (brand === undefined || (viewer.locationId !== undefined && viewer.locationId !== query.location_id))
        throw locationNotFound();
      if (query.brand_id !== undefined && brand !== query.brand_id) return [];
    }
    if (query.brand_id !== undefined) await publisher.requireBrand(viewer.tenantId, query.brand_id);
    const asked =
      query.location_id !== undefined
        ? [query.location_id]
        : query.brand_id !== undefined
          ? await publisher.locationsOfBrand(viewer.tenantId, query.brand_id)
          : undefined;
    if (viewer.locationId === undefined) return asked;
    return (asked ?? [viewer.locationId]).filter((id) => id === viewer.locationId);
  }

  return {
    async createItem(tenantId: string, input: StockItemInput & { brand_id: string }) {
      await publisher.requireBrand(tenantId, input.brand_id);
      const name = input.name.trim();
      if (await store.nameTaken(tenantId, input.brand_id, name)) throw nameTaken();
      const at = now();
      const row: StockItemRow = {
        tenant_id: tenantId,
        id: deps.newId(),
        brand_id: input.brand_id,
        name,
        unit: input.unit,
        reorder_level_milli: input.reorder_level_milli ?? 0,
        reorder_quantity_milli: input.reorder_quantity_milli ?? 0,
        created_at: at,
        updated_at: at,
      };
      await store.insertItem(row);
      const publication = await publisher.publish(tenantId, row.brand_id, 'stock_item', [row.id]);
      return { ...toStockItem(row), publication };
    },

    async updateItem(tenantId: string, id: string, patch: Partial<StockItemInput>) {
      const current = await requireStockItem(tenantId, id);
      const name = patch.name?.trim();
      if (name !== undefined && (await store.nameTaken(tenantId, current.brand_id, name, id)))
        throw nameTaken();
      await store.updateItem(tenantId, id, {
        ...(name !== undefined ? { name } : {}),
        ...(patch.unit !== undefined ? { unit: patch.unit } : {}),
        ...(patch.reorder_level_milli !== undefined
          ? { reorder_level_milli: patch.reorder_level_milli }
          : {}),
        ...(patch.reorder_quantity_milli !== undefined
          ? { reorder_quantity_milli: patch.reorder_quantity_milli }
          : {}),
        updated_at: now(),
      });
      const publication = await publisher.publish(tenantId, current.brand_id, 'stock_item', [id]);
      return { ...toStockItem(await requireStockItem(tenantId, id)), publication };
    },

    getItem: async (tenantId: string, id: string) => toStockItem(await requireStockItem(tenantId, id)),

    async listItems(tenantId: string, brandId: string, page: Page) {
      await publisher.requireBrand(tenantId, brandId);
      const { page: rows, next_cursor } = paged(
        await store.items(tenantId, brandId, page.cursor, page.limit + 1),
        page.limit,
      );
      return { items: rows.map(toStockItem), next_cursor };
    },

    /**
     * Replaces what one portion of a brand item uses, from the brand's own stock items; every
     * store of the brand gets it naming its own inventory items.
     */
    async setRecipe(tenantId: string, itemId: string, components: Component[]) {
      const item = await deps.requireItem(tenantId, itemId);
      const ids = components.map((c) => c.stock_item_id);
      const found = new Map((await store.itemsByIds(tenantId, ids)).map((s) => [s.id, s]));
      components.forEach((c, i) => {
        const stockItem = found.get(c.stock_item_id);
        if (!stockItem) throw stockItemNotFound();
        const field = `body.components.${i}.stock_item_id`;
        if (stockItem.brand_id !== item.brand_id)
          throw new InvalidRequestError('The stock item is another brand’s', [
            { field, message: 'must be a stock item of the item’s brand' },
          ]);
        // The store keeps one line per stock item; a second would stop its sync.
        if (ids.indexOf(c.stock_item_id) !== i)
          throw new InvalidRequestError('A stock item is named twice', [
            { field, message: 'is named before' },
          ]);
      });
      const at = now();
      await store.setRecipe({
        tenant_id: tenantId,
        item_id: itemId,
        components: JSON.stringify(
          components.map((c) => ({ stock_item_id: c.stock_item_id, quantity_milli: c.quantity_milli })),
        ),
        updated_at: at,
      });
      const publication = await publisher.publish(tenantId, item.brand_id, 'recipe', [itemId]);
      return { menu_item_id: itemId, components, updated_at: at, publication };
    },

    async getRecipe(tenantId: string, itemId: string) {
      await deps.requireItem(tenantId, itemId);
      const [row] = await store.recipes(tenantId, [itemId]);
      return {
        menu_item_id: itemId,
        components: row ? (JSON.parse(row.components) as Component[]) : [],
        updated_at: row?.updated_at ?? null,
      };
    },

    /** One store's stock, item by item, as the sum of the movements it pushed. */
    async levels(viewer: Viewer, locationId: string, page: Page) {
      await visibleStores(viewer, { location_id: locationId });
      const rows = await store.levels(viewer.tenantId, locationId, page.cursor, page.limit + 1);
      const last = rows[page.limit - 1];
      return {
        items: rows.slice(0, page.limit).map(toLevel),
        next_cursor: rows.length > page.limit && last ? last.inventory_item_id : null,
      };
    },

    /** Items at or below their reorder level, across the stores asked for (every store when none). */
    async low(
      viewer: Viewer,
      query: {
        brand_id?: string | undefined;
        location_id?: string | undefined;
        limit: number;
        cursor?: string | undefined;
      },
    ) {
      const stores = await visibleStores(viewer, query);
      if (stores?.length === 0) return { items: [], next_cursor: null };
      const rows = await store.low(viewer.tenantId, stores, afterLevel(query.cursor), query.limit + 1);
      const last = rows[query.limit - 1];
      return {
        items: rows.slice(0, query.limit).map(toLevel),
        next_cursor: rows.length > query.limit && last ? levelCursor(last) : null,
      };
    },
  };
}

export type StockService = ReturnType<typeof createStockService>;
