import { v5 } from 'uuid';
import { toDecimal } from '../../shared/events.ts';
import type { Fields } from '../../shared/sync/registry.ts';
import type { MenuCategoryRow, MenuItemRow, MenuOverrideRow, StationRow, StockItemRow } from './tables.ts';

// Fixed forever: every store row id of every brand menu is derived under it.
const STORE_ROW_NAMESPACE = '1d0f3b9e-5c52-4f0e-9a55-2f4c1c7e8a61';

/**
 * The id a brand's category or item has at one store. Synced row ids are unique within a tenant
 * (a store may push only its own rows), so one brand item is one row per store, each under an id
 * anyone can derive from the brand item and the store; the brand item's id is the catalog id
 * reports group the stores' sales by.
 */
export const storeRowId = (catalogId: string, locationId: string) =>
  v5(`${catalogId}/${locationId}`, STORE_ROW_NAMESPACE);

/** The store's `menu_categories` row for a brand category. */
export const storeCategory = (category: MenuCategoryRow, locationId: string): Fields => ({
  id: storeRowId(category.id, locationId),
  name: category.name,
  position: Number(category.position),
  updated_at: category.updated_at,
});

/** The store's `menu_items` row for a brand item, with the store's own price or availability. */
export function storeItem(
  item: MenuItemRow,
  locationId: string,
  override: MenuOverrideRow | undefined,
): Fields {
  return {
    id: storeRowId(item.id, locationId),
    category_id: storeRowId(item.category_id, locationId),
    name: item.name,
    description: item.description,
    price_minor: Number(override?.price_minor ?? item.price_minor),
    available: Number(override?.available ?? item.available),
    updated_at: item.updated_at,
  };
}

/** The store's `inventory_items` row for a brand stock item; its quantity stays the store's. */
export const storeStockItem = (item: StockItemRow, locationId: string): Fields => ({
  id: storeRowId(item.id, locationId),
  name: item.name,
  unit: item.unit,
  reorder_level_milli: Number(item.reorder_level_milli),
  reorder_quantity_milli: Number(item.reorder_quantity_milli),
  updated_at: item.updated_at,
});

export interface Component {
  stock_item_id: string;
  quantity_milli: number;
}

/**
 * The store's `recipes` row for a brand item: its components as the store writes them (JSON,
 * in the order of its recipe lines' key), naming the store's own inventory items.
 */
export function storeRecipe(itemId: string, components: readonly Component[], locationId: string): Fields {
  const lines = components
    .map((c) => ({
      inventory_item_id: storeRowId(c.stock_item_id, locationId),
      quantity_milli: c.quantity_milli,
    }))
    .sort((a, b) => a.inventory_item_id.localeCompare(b.inventory_item_id));
  return { menu_item_id: storeRowId(itemId, locationId), components: JSON.stringify(lines) };
}

/** The store's `stations` row for a brand station. */
export const storeStation = (station: StationRow, locationId: string): Fields => ({
  id: storeRowId(station.id, locationId),
  name: station.name,
  position: Number(station.position),
  updated_at: station.updated_at,
});

/** The store's `station_items` row: where the store's item is prepared. */
export const storeRoute = (itemId: string, stationId: string, locationId: string): Fields => ({
  menu_item_id: storeRowId(itemId, locationId),
  station_id: storeRowId(stationId, locationId),
});

/** Whether two rows say the same, their edit times aside. */
export function sameRow(a: Fields | undefined, b: Fields) {
  if (!a) return false;
  return Object.keys(b).every((key) => key === 'updated_at' || a[key] === b[key]);
}

const ITEM_FIELDS = ['category_id', 'name', 'description'] as const;

/** The store's item event payload, as the store's own menu writes it. */
const itemData = (row: Fields, version: number) => ({
  id: row.id,
  category_id: row.category_id,
  name: row.name,
  description: row.description,
  price: toDecimal(Number(row.price_minor)),
  available: row.available === 1,
  version,
  updated_at: row.updated_at,
});

/**
 * The catalog events a store's item row makes, as the store's menu would emit them for the same
 * change: a new item is an update with `created`, then a price and an availability each their own.
 */
export function itemEvents(before: Fields | undefined, after: Fields | null, version: number) {
  if (after === null) return [];
  if (!before)
    return [
      {
        type: 'menu.item_updated',
        data: { ...itemData(after, version), created: true, changed: [...ITEM_FIELDS, 'price', 'available'] },
      },
    ];
  const events = [];
  const changed = ITEM_FIELDS.filter((field) => before[field] !== after[field]);
  if (changed.length > 0)
    events.push({
      type: 'menu.item_updated',
      data: { ...itemData(after, version), created: false, changed },
    });
  if (before.price_minor !== after.price_minor)
    events.push({
      type: 'menu.price_changed',
      data: {
        ...itemData(after, version),
        old_price: toDecimal(Number(before.price_minor)),
        new_price: toDecimal(Number(after.price_minor)),
      },
    });
  if (before.available !== after.available)
    events.push({ type: 'menu.item_availability', data: itemData(after, version) });
  return events;
}
