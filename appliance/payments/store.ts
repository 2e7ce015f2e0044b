import type { ApplianceDatabase } from '../db/index.ts';

export interface PaymentRow {
  id: string;
  order_id: string;
  method: 'card' | 'cash';
  status: 'authorized' | 'captured' | 'voided' | 'failed';
  amount_minor: number;
  tip_minor: number;
  refunded_minor: number;
  card_brand: string | null;
  card_last4: string | null;
  transaction_id: string | null;
  failure_reason: string | null;
  created_at: string;
  updated_at: string;
  version: number;
}

export function createPaymentStore(db: ApplianceDatabase) {
  const insert = db.prepare(
    `insert into payments (id, order_id, method, status, amount_minor, tip_minor, refunded_minor, card_brand,
       card_last4, transaction_id, failure_reason, created_at, updated_at, version)
     values (@id, @order_id, @method, @status, @amount_minor, @tip_minor, @refunded_minor, @card_brand,
       @card_last4, @transaction_id, @failure_reason, @created_at, @updated_at, @version)`,
  );
  const byId = db.prepare('select * from payments where id = ?');
  const ofOrder = db.prepare('select * from payments where order_id = ? order by created_at, id');
  const byTransaction = db.prepare('select id from payments where transaction_id = ?');
  // Money the order holds: what was taken (authorized or captured) less what was given back.
  const held = db.prepare(
    `select coalesce(sum(amount_minor - refunded_minor), 0) as held from payments
     where order_id = ? and status in ('authorized', 'captured')`,
  );
  // What an order's sales come to: its captured payments less their refunds, tips left out.
  const netCaptured = db.prepare(
    `select order_id, sum(amount_minor - refunded_minor) as net_minor from payments
     where status = 'captured' and order_id in (select value from json_each(?))
     group by order_id`,
  );
  const update = db.prepare(
    `update payments set status = @status, refunded_minor = @refunded_minor, updated_at = @updated_at,
       version = version + 1 where id = @id returning version`,
  );
  return {
    insert: (row: PaymentRow) => insert.run(row),
    payment: (id: string) => byId.get(id) as PaymentRow | undefined,
    ofOrder: (orderId: string) => ofOrder.all(orderId) as PaymentRow[],
    transactionExists: (transactionId: string) => byTransaction.get(transactionId) !== undefined,
    heldFor: (orderId: string) => (held.get(orderId) as { held: number }).held,
    netCaptured: (orderIds: string[]) =>
      new Map(
        (netCaptured.all(JSON.stringify(orderIds)) as Array<{ order_id: string; net_minor: number }>).map(
          (row) => [row.order_id, row.net_minor],
        ),
      ),
    update: (row: Pick<PaymentRow, 'id' | 'status' | 'refunded_minor' | 'updated_at'>) =>
      (update.get(row) as { version: number }).version,
  };
}
