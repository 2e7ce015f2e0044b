/**
 * Orders at the store: taking them, their items and their lifecycle (sent, completed, voided),
 * each change written with its sync log entry, and the listing and routes under /v1/orders.
 */
export { orderRoutes } from './routes.ts';
export { createOrderService, eventData as orderEventData, type OrderService } from './service.ts';
