/**
 * Work that spans the appliance's areas, each in one transaction: sending an order puts its items
 * on the kitchen's tickets, completing it deducts its sale from stock.
 */
export { completeOrder } from './complete-order.ts';
export { sendOrder } from './send-order.ts';
