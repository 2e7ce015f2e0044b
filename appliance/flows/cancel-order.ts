import type { ApplianceDatabase } from '../db/index.ts';
import type { KitchenService } from '../kitchen/index.ts';
import type { OrderService } from '../orders/index.ts';

export interface CancelOrderDeps {
  db: ApplianceDatabase;
  orders: Pick<OrderService, 'cancel'>;
  kitchen: Pick<KitchenService, 'closeTickets'>;
}

/** Voids an order and takes its tickets off the kitchen's screens: both commit or neither does. */
export function cancelOrder({ db, orders, kitchen }: CancelOrderDeps, orderId: string) {
  return db.transaction(() => {
    const order = orders.cancel(orderId);
    kitchen.closeTickets(order.id);
    return order;
  })();
}
