import type { ApplianceDatabase } from '../db/index.ts';
import type { InventoryService } from '../inventory/index.ts';
import type { OrderService } from '../orders/index.ts';

export interface CompleteOrderDeps {
  db: ApplianceDatabase;
  orders: OrderService;
  inventory: InventoryService;
}

/**
 * Completes an order and deducts its sale from stock in one transaction, so an order is never
 * completed without its stock moving (better-sqlite3 nests the services' transactions as savepoints).
 */
export function completeOrder({ db, orders, inventory }: CompleteOrderDeps, orderId: string) {
  return db.transaction(() => {
    const order = orders.complete(orderId);
    inventory.deductSale(
      order.id,
      order.items.map((i) => ({ menu_item_id: i.menu_item_id, quantity: i.quantity })),
    );
    return order;
  })();
}
