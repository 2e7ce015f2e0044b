import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChangeLog } from '../../../appliance/db/change-log.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createLocationService } from '../../../appliance/location/service.ts';
import { createMenuService } from '../../../appliance/menu/service.ts';
import { createOrderService, type OrderService } from '../../../appliance/orders/service.ts';
import { createPaymentService, type PaymentService } from '../../../appliance/payments/index.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';

const LOCATION = '01900000-0000-7000-8000-000000000001';
const card = (transaction_id: string) => ({ card: { brand: 'visa', last4: '4242' }, transaction_id });

describe('payments', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let orders: OrderService;
  let payments: PaymentService;
  let orderId: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'payments-'));
    db = openApplianceDb(dir);
    const clock = createManualClock('2026-06-10T19:00:00.000Z');
    const changes = createChangeLog(db, { clock, newId, locationId: LOCATION });
    const location = createLocationService({ db, changes, clock });
    location.ensure(LOCATION, { name: 'Main St', timezone: 'America/New_York', tax_rate_bps: 1000 });
    const menu = createMenuService({ db, changes, clock, newId });
    const mains = menu.createCategory({ name: 'Mains' });
    const burger = menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 1000 }).id;
    orders = createOrderService({ db, changes, menu, location, clock, newId });
    payments = createPaymentService({ db, changes, orders, clock, newId });
    // 2 × 10.00 + 10% tax: 22.00 due.
    orderId = (await orders.create({ order_type: 'dine_in', items: [{ menu_item_id: burger, quantity: 2 }] }))
      .id;
    db.exec('delete from outbox; delete from events');
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const events = () =>
    (
      db.prepare('select type, data from events order by seq').all() as Array<{ type: string; data: string }>
    ).map((row) => ({ type: row.type, data: JSON.parse(row.data) }));
  const count = (table: string) => (db.prepare(`select count(*) n from ${table}`).get() as { n: number }).n;

  it('splits an order across card and cash, with payment.processed in the spec’s shape', () => {
    const first = payments.record(orderId, {
      method: 'card',
      amount_minor: 1500,
      tip_minor: 300,
      ...card('tx-1'),
    });
    const second = payments.record(orderId, { method: 'cash', amount_minor: 700 });
    expect(first).toMatchObject({
      status: 'captured',
      amount: 15,
      tip: 3,
      total: 18,
      card: { brand: 'visa', last4: '4242' },
    });
    expect(second).toMatchObject({ status: 'captured', method: 'cash', card: null });
    expect(events()[0]).toEqual({
      type: 'payment.processed',
      data: {
        id: first.id,
        order_id: orderId,
        method: 'card',
        amount: 15,
        tip: 3,
        total: 18,
        card: { brand: 'visa', last4: '4242' },
        transaction_id: 'tx-1',
      },
    });
    expect(payments.listForOrder(orderId)).toHaveLength(2);
  });

  it('never takes more than the order still owes, and writes nothing when it refuses', () => {
    payments.record(orderId, { method: 'cash', amount_minor: 2000 });
    expect(() => payments.record(orderId, { method: 'cash', amount_minor: 201 })).toThrow(
      expect.objectContaining({
        status: 400,
        details: [{ field: 'body.amount', message: 'must be at most 2.00, what is still due' }],
      }),
    );
    // One payment, its outbox row, its event and the event's outbox row: nothing of the refusal.
    expect([count('payments'), count('outbox'), count('events')]).toEqual([1, 2, 1]);
    expect(payments.record(orderId, { method: 'cash', amount_minor: 200 }).amount).toBe(2);
  });

  it('keeps a declined card as payment.failed, owing nothing', () => {
    const declined = payments.record(orderId, {
      method: 'card',
      amount_minor: 2200,
      outcome: 'declined',
      failure_reason: 'insufficient_funds',
      ...card('tx-2'),
    });
    expect(declined).toMatchObject({ status: 'failed', failure_reason: 'insufficient_funds' });
    expect(events().at(-1)).toMatchObject({
      type: 'payment.failed',
      data: { id: declined.id, reason: 'insufficient_funds' },
    });
    expect(payments.record(orderId, { method: 'card', amount_minor: 2200, ...card('tx-3') }).status).toBe(
      'captured',
    );
  });

  it('voids an authorization before capture, and only then', () => {
    const held = payments.record(orderId, {
      method: 'card',
      amount_minor: 2200,
      capture: false,
      ...card('tx-4'),
    });
    expect(held.status).toBe('authorized');
    expect(payments.void(held.id).status).toBe('voided');
    expect(events().at(-1)?.type).toBe('payment.voided');
    const captured = payments.record(orderId, { method: 'card', amount_minor: 2200, ...card('tx-5') });
    expect(() => payments.void(captured.id)).toThrow(
      expect.objectContaining({ code: 'PAYMENT_NOT_VOIDABLE' }),
    );
  });

  it('refunds up to what a captured payment has left, freeing that much to be paid again', () => {
    const paid = payments.record(orderId, { method: 'card', amount_minor: 2200, ...card('tx-6') });
    expect(payments.refund(paid.id, 500)).toMatchObject({ refunded: 5 });
    expect(events().at(-1)).toMatchObject({
      type: 'payment.refunded',
      data: { id: paid.id, refund_amount: 5 },
    });
    expect(() => payments.refund(paid.id, 1701)).toThrow(expect.objectContaining({ status: 400 }));
    expect(payments.record(orderId, { method: 'cash', amount_minor: 500 }).amount).toBe(5);
  });

  it('refuses a card payment recorded twice, a cancelled order and an unknown one', () => {
    payments.record(orderId, { method: 'card', amount_minor: 100, ...card('tx-7') });
    expect(() => payments.record(orderId, { method: 'card', amount_minor: 100, ...card('tx-7') })).toThrow(
      expect.objectContaining({ code: 'DUPLICATE_TRANSACTION' }),
    );
    expect(() => payments.record(orderId, { method: 'card', amount_minor: 100 })).toThrow(
      expect.objectContaining({ status: 400 }),
    );
    orders.cancel(orderId);
    expect(() => payments.record(orderId, { method: 'cash', amount_minor: 100 })).toThrow(
      expect.objectContaining({ code: 'ORDER_NOT_PAYABLE' }),
    );
    expect(() => payments.record(newId(), { method: 'cash', amount_minor: 100 })).toThrow(
      expect.objectContaining({ code: 'ORDER_NOT_FOUND' }),
    );
  });
});
