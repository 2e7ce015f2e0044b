import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestAppliance, type TestAppliance } from '../../support/appliance.ts';

describe('payment routes', () => {
  let t: TestAppliance;
  let db: TestAppliance['db'];
  let services: TestAppliance['services'];
  let manager: string;
  let cashier: string;
  let burger: string;
  const call = (...args: Parameters<TestAppliance['call']>) => t.call(...args);
  const events = () => t.events();

  beforeEach(async () => {
    t = await createTestAppliance();
    ({ db, services, manager, cashier } = t);
    const mains = services.menu.createCategory({ name: 'Mains' });
    burger = services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 1000 }).id;
    // Seeding the menu wrote events of its own; each test reads only what it causes.
    t.db.exec('delete from events');
  });
  afterEach(() => t.close());

  const count = () => (db.prepare('select count(*) n from payments').get() as { n: number }).n;
  /** An order of two burgers: 20.00 due. */
  const openOrder = async () => {
    const response = await call(cashier, 'POST', '/orders', {
      order_type: 'dine_in',
      items: [{ menu_item_id: burger, quantity: 2 }],
    });
    expect(response.statusCode).toBe(201);
    return response.json().data.id as string;
  };
  const cardPayment = (amount: number, transaction_id: string, extra: object = {}) => ({
    method: 'card',
    amount,
    card: { brand: 'visa', last4: '4242' },
    transaction_id,
    ...extra,
  });

  it('splits an order across card and cash and lists both', async () => {
    const orderId = await openOrder();
    const card = await call(
      cashier,
      'POST',
      `/orders/${orderId}/payments`,
      cardPayment(12.5, 'tx-1', { tip: 2 }),
    );
    expect(card.statusCode).toBe(201);
    expect(card.json().data).toMatchObject({
      order_id: orderId,
      method: 'card',
      status: 'captured',
      amount: 12.5,
      tip: 2,
      total: 14.5,
      card: { brand: 'visa', last4: '4242' },
    });
    const cash = await call(cashier, 'POST', `/orders/${orderId}/payments`, { method: 'cash', amount: 7.5 });
    expect(cash.statusCode).toBe(201);
    const listed = await call(cashier, 'GET', `/orders/${orderId}/payments`);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().data.map((p: { method: string; amount: number }) => [p.method, p.amount])).toEqual([
      ['card', 12.5],
      ['cash', 7.5],
    ]);
    expect(events().map((e) => e.type)).toEqual(['order.created', 'payment.processed', 'payment.processed']);
  });

  it('refuses an overpayment or a fraction of a cent naming body.amount, writing nothing', async () => {
    const orderId = await openOrder();
    db.exec('delete from events');
    for (const amount of [20.01, 1.005]) {
      const refused = await call(cashier, 'POST', `/orders/${orderId}/payments`, { method: 'cash', amount });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.details.map((d: { field: string }) => d.field)).toEqual(['body.amount']);
    }
    const badCard = await call(cashier, 'POST', `/orders/${orderId}/payments`, {
      ...cardPayment(5, 'tx-2'),
      card: { brand: 'visa', last4: '42' },
    });
    expect(badCard.statusCode).toBe(400);
    expect(count()).toBe(0);
    expect(events()).toEqual([]);
  });

  it('lets only managers refund a captured payment', async () => {
    const orderId = await openOrder();
    const paid = await call(cashier, 'POST', `/orders/${orderId}/payments`, { method: 'cash', amount: 20 });
    const paymentId = paid.json().data.id as string;
    expect((await call(cashier, 'POST', `/payments/${paymentId}/refund`, { amount: 5 })).statusCode).toBe(
      403,
    );
    const refunded = await call(manager, 'POST', `/payments/${paymentId}/refund`, { amount: 5 });
    expect(refunded.statusCode).toBe(200);
    expect(refunded.json().data).toMatchObject({ status: 'captured', refunded: 5 });
    const tooMuch = await call(manager, 'POST', `/payments/${paymentId}/refund`, { amount: 15.01 });
    expect(tooMuch.statusCode).toBe(400);
    expect(events().at(-1)?.type).toBe('payment.refunded');
  });

  it('voids an authorization, but not a captured payment', async () => {
    const orderId = await openOrder();
    const held = await call(
      cashier,
      'POST',
      `/orders/${orderId}/payments`,
      cardPayment(10, 'tx-3', { capture: false }),
    );
    expect(held.json().data.status).toBe('authorized');
    const captured = await call(cashier, 'POST', `/payments/${held.json().data.id}/capture`);
    expect(captured.json().data.status).toBe('captured');
    const late = await call(cashier, 'POST', `/payments/${held.json().data.id}/void`);
    expect(late.statusCode).toBe(409);
    expect(late.json().error.code).toBe('PAYMENT_NOT_VOIDABLE');

    const other = await call(
      cashier,
      'POST',
      `/orders/${orderId}/payments`,
      cardPayment(10, 'tx-4', { capture: false }),
    );
    const voided = await call(cashier, 'POST', `/payments/${other.json().data.id}/void`);
    expect(voided.statusCode).toBe(200);
    expect(voided.json().data.status).toBe('voided');
  });

  it('answers 401 without a token and 404 for an unknown payment', async () => {
    const unknown = '01900000-0000-7000-8000-0000000000ff';
    expect((await call(undefined, 'GET', `/orders/${unknown}/payments`)).statusCode).toBe(401);
    const missing = await call(cashier, 'POST', `/payments/${unknown}/capture`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('PAYMENT_NOT_FOUND');
  });
});
