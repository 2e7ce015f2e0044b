import { toDecimal } from '../../shared/events.ts';
import type { Fields } from '../../shared/sync/registry.ts';
import type { ChangeLog } from '../db/index.ts';
import type { InventoryService } from '../inventory/index.ts';
import type { KitchenService } from '../kitchen/index.ts';
import { type OrderService, orderEventData } from '../orders/index.ts';
import { type PaymentService, paymentEventData } from '../payments/index.ts';
import type { LandedHooks } from '../sync/index.ts';

export interface CloudEditsDeps {
  changes: Pick<ChangeLog, 'emit'>;
  orders: Pick<OrderService, 'get'>;
  payments: Pick<PaymentService, 'get'>;
  kitchen: Pick<KitchenService, 'closeTickets'>;
  inventory: Pick<InventoryService, 'returnSale'>;
}

/**
 * What the store does when head office voids an order or refunds a payment: the cloud's row has
 * already replaced the store's, so the store only follows, in the transaction that lands it.
 * Each reacts to the change between the row it held and the cloud's, so a row landing again, or
 * one the store never had (a snapshot), changes nothing.
 */
export function cloudEdits(deps: CloudEditsDeps): LandedHooks {
  return {
    orders: (before, after) => {
      if (!before || before.status === 'cancelled' || after.status !== 'cancelled') return;
      orderVoided(deps, String(after.id), before);
    },
    payments: (before, after) => {
      if (!before) return;
      const refunded = Number(after.refunded_minor) - Number(before.refunded_minor);
      if (refunded <= 0) return;
      const payment = deps.payments.get(String(after.id));
      deps.changes.emit('payment.refunded', {
        ...paymentEventData(payment),
        refund_amount: toDecimal(refunded),
      });
    },
  };
}

function orderVoided(deps: CloudEditsDeps, orderId: string, before: Fields) {
  deps.changes.emit('order.cancelled', orderEventData(deps.orders.get(orderId)));
  deps.kitchen.closeTickets(orderId);
  // Completed here while head office voided it: its word stands, so the sale never happened.
  if (before.status === 'completed') deps.inventory.returnSale(orderId);
}
