import type { ApplianceDatabase } from '../db/index.ts';
import type { KitchenService } from '../kitchen/index.ts';
import type { OrderService } from '../orders/index.ts';

export interface SendOrderDeps {
  db: ApplianceDatabase;
  orders: Pick<OrderService, 'send'>;
  kitchen: Pick<KitchenService, 'openTickets'>;
}

/** Sends an order and puts its items on the kitchen's tickets: both commit or neither does. */
export function sendOrder({ db, orders, kitchen }: SendOrderDeps, orderId: string) {
  return db.transaction(() => {
    const order = orders.send(orderId);
    kitchen.openTickets(order);
    return order;
  })();
}
