import type { Clock } from '../../shared/clock.ts';
import { salesOf } from '../../shared/commerce/sales.ts';
import { toDecimal } from '../../shared/events.ts';
import type { IdGenerator } from '../../shared/ids.ts';
import type { ApplianceDatabase, ChangeLog } from '../db/index.ts';
import { shiftBusinessDay } from '../location/index.ts';
import * as errors from './errors.ts';
import { type Sale, type SalesCalendar, summarizeSales } from './sales.ts';
import { createPaymentStore, type PaymentRow } from './store.ts';

/** What payments need from orders: whether an order can be paid, what it costs, a day's orders. */
export interface OrderBilling {
  billing(orderId: string): { status: string; total_minor: number };
  dayOrders(businessDay: string): Array<{ id: string; status: string; created_at: string }>;
}

export interface PaymentInput {
  method: 'card' | 'cash';
  amount_minor: number;
  tip_minor?: number | undefined;
  /** What the card reader answered; cash is always approved. */
  outcome?: 'approved' | 'declined' | undefined;
  failure_reason?: string | undefined;
  /** A card payment may be authorized now and captured later (e.g. before a tip is added). */
  capture?: boolean | undefined;
  card?: { brand: string; last4: string } | undefined;
  transaction_id?: string | undefined;
}

/** The documented payment data shape, plus the state screens need. */
export const toPayment = (row: PaymentRow) => ({
  id: row.id,
  order_id: row.order_id,
  method: row.method,
  status: row.status,
  amount: toDecimal(row.amount_minor),
  tip: toDecimal(row.tip_minor),
  total: toDecimal(row.amount_minor + row.tip_minor),
  refunded: toDecimal(row.refunded_minor),
  card: row.card_brand ? { brand: row.card_brand, last4: row.card_last4 ?? '' } : null,
  transaction_id: row.transaction_id,
  failure_reason: row.failure_reason,
  created_at: row.created_at,
  version: row.version,
});

export type Payment = ReturnType<typeof toPayment>;

/** Exactly the documented "Payment data" for payment events. */
export const eventData = (payment: Payment) => ({
  id: payment.id,
  order_id: payment.order_id,
  method: payment.method,
  amount: payment.amount,
  tip: payment.tip,
  total: payment.total,
  card: payment.card ?? undefined,
  transaction_id: payment.transaction_id ?? undefined,
});

/**
 * Payments as the terminals report them: card or cash, split across several, never beyond what
 * the order still owes; voids before capture and refunds after. Each command is one transaction
 * with its outbox row and event.
 */
export function createPaymentService(deps: {
  db: ApplianceDatabase;
  changes: ChangeLog;
  orders: OrderBilling;
  clock: Clock;
  newId: IdGenerator;
}) {
  const { db, changes, clock } = deps;
  const store = createPaymentStore(db);

  function requirePayment(id: string) {
    const payment = store.payment(id);
    if (!payment) throw errors.paymentNotFound();
    return payment;
  }

  function newRow(orderId: string, input: PaymentInput, status: PaymentRow['status']): PaymentRow {
    const at = clock.now().toISOString();
    return {
      id: deps.newId(),
      order_id: orderId,
      method: input.method,
      status,
      amount_minor: input.amount_minor,
      tip_minor: input.tip_minor ?? 0,
      refunded_minor: 0,
      card_brand: input.card?.brand ?? null,
      card_last4: input.card?.last4 ?? null,
      transaction_id: input.transaction_id ?? null,
      failure_reason: status === 'failed' ? (input.failure_reason ?? 'declined') : null,
      created_at: at,
      updated_at: at,
      version: 1,
    };
  }

  function checkCard(input: PaymentInput) {
    if (input.method !== 'card') return;
    if (!input.card || !input.transaction_id) throw errors.cardDetailsMissing();
    if (store.transactionExists(input.transaction_id)) throw errors.duplicateTransaction();
  }

  function save(row: PaymentRow, event: 'payment.processed' | 'payment.failed') {
    store.insert(row);
    changes.recordChange({ table: 'payments', rowId: row.id, operation: 'insert', version: row.version });
    const payment = toPayment(row);
    changes.emit(
      event,
      event === 'payment.failed' ? { ...eventData(payment), reason: row.failure_reason } : eventData(payment),
    );
    return payment;
  }

  function change(row: PaymentRow, patch: Pick<PaymentRow, 'status' | 'refunded_minor'>) {
    const version = store.update({ id: row.id, ...patch, updated_at: clock.now().toISOString() });
    changes.recordChange({ table: 'payments', rowId: row.id, operation: 'update', version });
    return toPayment(requirePayment(row.id));
  }

  /** A day's orders that count, by the rule head office reads the store's sales with too. */
  function salesOfDay(businessDay: string, calendar: SalesCalendar): Sale[] {
    const orders = deps.orders.dayOrders(businessDay).filter((order) => order.status !== 'cancelled');
    return salesOf(orders, store.netCaptured(orders.map((order) => order.id)), (at) =>
      calendar.businessTime(at),
    );
  }

  return {
    /** Today's sales by the store's calendar against the same weekday last week (see sales.ts). */
    salesToday(calendar: SalesCalendar) {
      return db.transaction(() => {
        const now = calendar.businessTime(clock.now());
        const lastWeekDay = shiftBusinessDay(now.businessDay, -7);
        return summarizeSales({
          now,
          currency: calendar.get().currency,
          today: salesOfDay(now.businessDay, calendar),
          lastWeek: { businessDay: lastWeekDay, sales: salesOfDay(lastWeekDay, calendar) },
        });
      })();
    },

    listForOrder: (orderId: string) => {
      deps.orders.billing(orderId);
      return store.ofOrder(orderId).map(toPayment);
    },
    get: (id: string) => toPayment(requirePayment(id)),

    /** Records what the terminal reported. A decline is kept (payment.failed) and owes nothing. */
    record(orderId: string, input: PaymentInput) {
      return db.transaction(() => {
        const order = deps.orders.billing(orderId);
        if (order.status === 'cancelled') throw errors.orderNotPayable(order.status);
        checkCard(input);
        if (input.outcome === 'declined') return save(newRow(orderId, input, 'failed'), 'payment.failed');
        const due = order.total_minor - store.heldFor(orderId);
        if (input.amount_minor > due) throw errors.overpayment(Math.max(0, due));
        const status = input.method === 'card' && input.capture === false ? 'authorized' : 'captured';
        return save(newRow(orderId, input, status), 'payment.processed');
      })();
    },

    capture(paymentId: string) {
      return db.transaction(() => {
        const row = requirePayment(paymentId);
        if (row.status !== 'authorized') throw errors.notCapturable(row.status);
        return change(row, { status: 'captured', refunded_minor: row.refunded_minor });
      })();
    },

    /** Releases an authorization that was never captured. */
    void(paymentId: string) {
      return db.transaction(() => {
        const row = requirePayment(paymentId);
        if (row.status !== 'authorized') throw errors.notVoidable(row.status);
        const payment = change(row, { status: 'voided', refunded_minor: row.refunded_minor });
        changes.emit('payment.voided', eventData(payment));
        return payment;
      })();
    },

    /** Gives back part or all of a captured payment (the route admits managers only). */
    refund(paymentId: string, amountMinor: number) {
      return db.transaction(() => {
        const row = requirePayment(paymentId);
        const refundable = row.status === 'captured' ? row.amount_minor - row.refunded_minor : 0;
        if (amountMinor > refundable) throw errors.notRefundable(refundable);
        const payment = change(row, { status: row.status, refunded_minor: row.refunded_minor + amountMinor });
        changes.emit('payment.refunded', { ...eventData(payment), refund_amount: toDecimal(amountMinor) });
        return payment;
      })();
    },
  };
}

export type PaymentService = ReturnType<typeof createPaymentService>;
