/**
 * Head office's commerce: the stores' orders and payments across the tenant, read from a
 * projection of the synced rows, and head office's actions on them, which travel to the store
 * by sync; the stores' punches, with payroll's corrections, and their sales of the day. The
 * routes under /v1/commerce.
 */

export { recordCalendars } from './calendar.ts';
export { createMenuService, type MenuService } from './menu.ts';
export { commerceOpsRoutes } from './ops-routes.ts';
export { recordOrderItems, recordOrders, recordPayments, type Where, type Written } from './projection.ts';
export type { PublicationStep } from './publisher.ts';
export { commerceRoutes } from './routes.ts';
export { createSalesService, type SalesService, type StoreDirectory, type StoreInfo } from './sales.ts';
export { type CommerceService, createCommerceService, type StoreEdit } from './service.ts';
export { recordStockItems, recordStockMovements } from './stock-levels.ts';
export type { CommerceTables } from './tables.ts';
export { createTimeClockService, recordPunches, type TimeClockService } from './timeclock.ts';
export type { TimeclockTables } from './timeclock-tables.ts';
