/**
 * Work that spans the appliance's areas, each in one transaction: sending an order puts its items
 * on the kitchen's tickets, completing it deducts its sale from stock, voiding it clears its
 * tickets, and head office's voids and refunds arriving by sync are followed at the store.
 */
export { cancelOrder } from './cancel-order.ts';
export { type CloudEditsDeps, cloudEdits } from './cloud-edits.ts';
export { completeOrder } from './complete-order.ts';
export { sendOrder } from './send-order.ts';
