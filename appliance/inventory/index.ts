/**
 * Inventory: stock items, the recipes that tie menu items to them, and every change as a
 * movement. Owns inventory_items, recipes and inventory_movements.
 */

export { inventoryRoutes } from './routes.ts';
export {
  createInventoryService,
  type InventoryItem,
  type InventoryService,
  UNITS,
  type Unit,
} from './service.ts';
