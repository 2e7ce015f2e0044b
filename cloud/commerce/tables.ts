/**
 * The stores' orders and payments as head office reads them: a projection of the synced rows,
 * written in the transaction that brings them (a push, or head office's own edit), with the
 * columns the cross-store lists filter and sort by. The synced rows stay the truth; these tables
 * can be rebuilt from them.
 */
export interface CommerceOrderRow {
  tenant_id: string;
  location_id: string;
  id: string;
  number: string;
  business_day: string;
  order_type: string;
  status: string;
  table_label: string | null;
  server_id: string | null;
  server_name: string | null;
  subtotal_minor: number;
  tax_minor: number;
  total_minor: number;
  created_at: string;
  updated_at: string;
  /** The synced row's version: the store's own version of it. */
  version: number;
}

/** An order's line or payment: the synced fields as JSON, found by its order. */
export interface CommerceChildRow {
  tenant_id: string;
  location_id: string;
  id: string;
  order_id: string;
  fields: string;
  version: number;
}

/** A brand's menu category: every store of the brand holds it under an id derived from this one. */
export interface MenuCategoryRow {
  tenant_id: string;
  id: string;
  brand_id: string;
  name: string;
  position: number;
  created_at: string;
  updated_at: string;
}

/** A brand's menu item, with the price and availability every store has unless it has its own. */
export interface MenuItemRow {
  tenant_id: string;
  id: string;
  brand_id: string;
  category_id: string;
  name: string;
  description: string;
  price_minor: number;
  available: number;
  created_at: string;
  updated_at: string;
}

/** One store's own price or availability of a brand item; null keeps the brand's. */
export interface MenuOverrideRow {
  tenant_id: string;
  item_id: string;
  location_id: string;
  price_minor: number | null;
  available: number | null;
  updated_at: string;
}

export type PublicationState = 'publishing' | 'published';

/**
 * One change of a brand's menu on its way to the stores: which catalog rows, to which stores.
 * Written before the first store is, so a publication a restart interrupted is finished after it.
 */
export interface PublicationRow {
  tenant_id: string;
  id: string;
  brand_id: string;
  change: string;
  /** JSON array of the brand catalog ids the change concerns: categories, items, stock items, stations. */
  catalog_ids: string;
  /** JSON array of the stores it goes to. */
  location_ids: string;
  state: PublicationState;
  created_at: string;
  published_at: string | null;
}

/** A store the publication was written to, and the feed seq its pull must pass to hold it. */
export interface PublicationStoreRow {
  tenant_id: string;
  publication_id: string;
  location_id: string;
  /** Null when the store already held everything the change asked for. */
  feed_seq: number | null;
  written_at: string;
}

/** A brand's stock item: every store of the brand holds it as an inventory item under a derived id. */
export interface StockItemRow {
  tenant_id: string;
  id: string;
  brand_id: string;
  name: string;
  unit: string;
  reorder_level_milli: number;
  reorder_quantity_milli: number;
  created_at: string;
  updated_at: string;
}

/** What one portion of a brand item uses of the brand's stock items. */
export interface RecipeRow {
  tenant_id: string;
  item_id: string;
  /** JSON array of { stock_item_id, quantity_milli }. */
  components: string;
  updated_at: string;
}

/** A brand's kitchen station. */
export interface StationRow {
  tenant_id: string;
  id: string;
  brand_id: string;
  name: string;
  position: number;
  created_at: string;
  updated_at: string;
}

/**
 * Where a brand item is prepared: for every store of the brand when location_id is '', or for
 * one store, which keeps it until head office routes the item for the whole brand again.
 */
export interface RouteRow {
  tenant_id: string;
  item_id: string;
  location_id: string;
  station_id: string;
  updated_at: string;
}

/**
 * One store's stock of one inventory item: the sum of the movements it pushed, with the item's
 * name and reorder level once its row arrives (a movement may come first).
 */
export interface StockLevelRow {
  tenant_id: string;
  location_id: string;
  inventory_item_id: string;
  name: string | null;
  unit: string | null;
  reorder_level_milli: number | null;
  reorder_quantity_milli: number | null;
  quantity_milli: number;
}

/** A movement counted into a level: a movement pushed again is found here and not counted twice. */
export interface StockMovementRow {
  tenant_id: string;
  id: string;
  location_id: string;
  inventory_item_id: string;
  delta_milli: number;
}

export interface CommerceTables {
  commerce_orders: CommerceOrderRow;
  commerce_order_items: CommerceChildRow;
  commerce_payments: CommerceChildRow;
  commerce_menu_categories: MenuCategoryRow;
  commerce_menu_items: MenuItemRow;
  commerce_menu_overrides: MenuOverrideRow;
  commerce_publications: PublicationRow;
  commerce_publication_stores: PublicationStoreRow;
  commerce_stock_items: StockItemRow;
  commerce_recipes: RecipeRow;
  commerce_stations: StationRow;
  commerce_routes: RouteRow;
  commerce_stock_levels: StockLevelRow;
  commerce_stock_movements: StockMovementRow;
}
