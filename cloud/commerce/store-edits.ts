import type { Fields, SyncTableName } from '../../shared/sync/registry.ts';
import type { Db } from '../db/index.ts';
import {
  type Component,
  itemEvents,
  sameRow,
  storeCategory,
  storeItem,
  storeRecipe,
  storeRoute,
  storeRowId,
  storeStation,
  storeStockItem,
} from './catalog.ts';
import { BRAND_ROUTE, createKitchenStore } from './kitchen-store.ts';
import { createMenuStore } from './menu-store.ts';
import type { StoreEdit } from './service.ts';
import { createStockStore } from './stock-store.ts';

/**
 * The store tables a change decides: the rows it writes over whatever the store has. Every other
 * row a publication brings (an item's category, a recipe's stock items, a route's station, an
 * item's recipe and route when its name changes) is written only where the store lacks it, so a
 * store's own change of a row stands until head office changes that very row.
 */
const DECIDES: Record<string, readonly SyncTableName[]> = {
  category: ['menu_categories'],
  item: ['menu_items'],
  price: ['menu_items'],
  availability: ['menu_items'],
  stock_item: ['inventory_items'],
  recipe: ['recipes'],
  station: ['stations'],
  routing: ['station_items'],
};

export const decidedBy = (change: string): ReadonlySet<SyncTableName> => new Set(DECIDES[change] ?? []);

/** Builds, for one store, the edits that bring its rows of some catalog ids to what the brand says. */
export function createStoreEdits(db: Db) {
  const menu = createMenuStore(db);
  const stock = createStockStore(db);
  const kitchen = createKitchenStore(db);

  const settle = (wanted: Fields, decided: boolean) => (current: Fields | undefined) =>
    current && (!decided || sameRow(current, wanted)) ? undefined : wanted;

  /** Ids the rows need that the publication does not name: written where the store lacks them. */
  const missing = (needed: Iterable<string>, named: readonly { id: string }[]) => {
    const have = new Set(named.map((row) => row.id));
    return [...new Set(needed)].filter((id) => !have.has(id));
  };

  /** Every catalog id of a brand, for a store that needs the whole of it. */
  async function brandCatalogIds(tenantId: string, brandId: string) {
    const kinds = await Promise.all([
      menu.catalogIds(tenantId, brandId),
      stock.itemIds(tenantId, brandId),
      kitchen.stationIds(tenantId, brandId),
    ]);
    return kinds.flat();
  }

  /** The brand's rows the catalog ids name, and what they need at the store. */
  async function load(tenantId: string, locationId: string, catalogIds: readonly string[]) {
    const [categories, items, stockItems, stations] = await Promise.all([
      menu.categoriesByIds(tenantId, catalogIds),
      menu.itemsByIds(tenantId, catalogIds),
      stock.itemsByIds(tenantId, catalogIds),
      kitchen.stationsByIds(tenantId, catalogIds),
    ]);
    const itemIds = items.map((i) => i.id);
    const [overrides, recipes, routes] = await Promise.all([
      menu.overrides(tenantId, itemIds, locationId),
      stock.recipes(tenantId, itemIds),
      kitchen.routes(tenantId, itemIds, locationId),
    ]);
    const components = new Map(recipes.map((r) => [r.item_id, JSON.parse(r.components) as Component[]]));
    const stationOf = new Map<string, string>();
    // The store's own route, where it has one, over the brand's.
    for (const own of [false, true])
      for (const route of routes)
        if ((route.location_id !== BRAND_ROUTE) === own) stationOf.set(route.item_id, route.station_id);
    const [neededCategories, neededStock, neededStations] = await Promise.all([
      menu.categoriesByIds(
        tenantId,
        missing(
          items.map((i) => i.category_id),
          categories,
        ),
      ),
      stock.itemsByIds(
        tenantId,
        missing(
          [...components.values()].flat().map((c) => c.stock_item_id),
          stockItems,
        ),
      ),
      kitchen.stationsByIds(tenantId, missing(stationOf.values(), stations)),
    ]);
    return {
      categories,
      neededCategories,
      stockItems,
      neededStock,
      stations,
      neededStations,
      items,
      overrideOf: new Map(overrides.map((o) => [o.item_id, o])),
      components,
      stationOf,
    };
  }

  async function storeEdits(
    tenantId: string,
    locationId: string,
    catalogIds: readonly string[],
    decides: ReadonlySet<SyncTableName>,
  ): Promise<StoreEdit[]> {
    const brand = await load(tenantId, locationId, catalogIds);
    const edit = (table: SyncTableName, rowId: string, wanted: Fields, needed = false): StoreEdit => ({
      table,
      rowId,
      fields: settle(wanted, !needed && decides.has(table)),
    });
    const row = (table: SyncTableName, wanted: Fields, needed = false) =>
      edit(table, String(wanted.id), wanted, needed);
    const ofItem = (itemId: string) => storeRowId(itemId, locationId);
    // Parents first, as the store would have made them.
    return [
      ...brand.categories.map((c) => row('menu_categories', storeCategory(c, locationId))),
      ...brand.neededCategories.map((c) => row('menu_categories', storeCategory(c, locationId), true)),
      ...brand.stockItems.map((s) => row('inventory_items', storeStockItem(s, locationId))),
      ...brand.neededStock.map((s) => row('inventory_items', storeStockItem(s, locationId), true)),
      ...brand.stations.map((s) => row('stations', storeStation(s, locationId))),
      ...brand.neededStations.map((s) => row('stations', storeStation(s, locationId), true)),
      ...brand.items.map((i) => ({
        ...row('menu_items', storeItem(i, locationId, brand.overrideOf.get(i.id))),
        events: itemEvents,
      })),
      ...brand.items.flatMap((i) => {
        const recipe = brand.components.get(i.id);
        return recipe ? [edit('recipes', ofItem(i.id), storeRecipe(i.id, recipe, locationId))] : [];
      }),
      ...brand.items.flatMap((i) => {
        const station = brand.stationOf.get(i.id);
        return station ? [edit('station_items', ofItem(i.id), storeRoute(i.id, station, locationId))] : [];
      }),
    ];
  }

  return { storeEdits, brandCatalogIds };
}
