/**
 * The menu: categories and items with their prices (integer minor units) and availability. Every
 * write bumps the row's version and appends to the outbox in its transaction; item changes also
 * emit the catalog's menu events there. The orders module prices lines through `itemsForOrder`.
 */

export { menuRoutes } from './routes.ts';
export type { CategoryPatch, ItemPatch, NewCategory, NewItem } from './service.ts';
export { createMenuService, MENU_LIMITS, type MenuDeps, type MenuService } from './service.ts';
export type { MenuCategory, MenuItem, OrderableItem } from './store.ts';
