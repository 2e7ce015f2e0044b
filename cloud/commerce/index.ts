/**
 * Head office's commerce: the stores' orders and payments across the tenant, read from a
 * projection of the synced rows, and head office's actions on them, which travel to the store
 * by sync. The routes under /v1/commerce.
 */

export { createMenuService, type MenuService } from './menu.ts';
export { recordOrderItems, recordOrders, recordPayments, type Where, type Written } from './projection.ts';
export { commerceRoutes } from './routes.ts';
export { type CommerceService, createCommerceService, type StoreEdit } from './service.ts';
export type { CommerceTables } from './tables.ts';
