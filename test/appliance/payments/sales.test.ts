import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../shared/clock.ts';
import { createTestAppliance, type TestAppliance } from '../../support/appliance.ts';

/** New York wall-clock time on a June day (UTC-4) as the instant it is. */
const ny = (day: string, time: string) => {
  const [h, m] = time.split(':').map(Number) as [number, number];
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + ((h + 4) * 60 + m) * 60_000).toISOString();
};

describe('GET /v1/commerce/sales/today', () => {
  let t: TestAppliance;
  let burger: string;
  const clock = createManualClock('2026-06-03T16:00:00.000Z');

  beforeEach(async () => {
    clock.set('2026-06-03T16:00:00.000Z');
    t = await createTestAppliance({ clock });
    const mains = t.services.menu.createCategory({ name: 'Mains' });
    burger = t.services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 1000 }).id;
  });
  afterEach(() => t.close());

  /** An order of ten burgers (100.00) opened at `at`, then the payments made for it. */
  const sale = async (at: string, pay: (orderId: string) => void = () => {}) => {
    clock.set(at);
    const order = await t.services.orders.create({
      order_type: 'takeout',
      items: [{ menu_item_id: burger, quantity: 10 }],
    });
    pay(order.id);
    return order.id;
  };
  const cash = (orderId: string, amount_minor: number) =>
    t.services.payments.record(orderId, { method: 'cash', amount_minor });
  const card = (
    orderId: string,
    amount_minor: number,
    extra: { capture?: boolean; tip_minor?: number } = {},
  ) =>
    t.services.payments.record(orderId, {
      method: 'card',
      amount_minor,
      card: { brand: 'visa', last4: '4242' },
      transaction_id: `tx-${orderId}`,
      ...extra,
    });
  const today = async (at: string) => {
    clock.set(at);
    const token = await t.login('bob');
    const response = await t.call(token, 'GET', '/sales/today');
    expect(response.statusCode).toBe(200);
    return response.json().data;
  };
  const hours = (byHour: Array<{ hour: number; today_minor: number; last_week_minor: number }>) =>
    byHour.filter((h) => h.today_minor > 0 || h.last_week_minor > 0);

  it('compares today with the same weekday last week, up to the same time and by hour', async () => {
    // Two weeks ago (Wednesday 3 June): not part of either figure.
    await sale(ny('2026-06-03', '12:00'), (id) => cash(id, 9900));
    // Last week (Wednesday 10 June).
    await sale(ny('2026-06-10', '09:30'), (id) => cash(id, 2000));
    await sale(ny('2026-06-10', '12:10'), (id) => card(id, 3000, { tip_minor: 500 }));
    await sale(ny('2026-06-10', '16:45'), (id) => cash(id, 5000));
    // 01:30 the next morning still belongs to the 10th's business day (it starts at 04:00).
    await sale(ny('2026-06-11', '01:30'), (id) => cash(id, 1000));
    const voided = await sale(ny('2026-06-10', '10:00'), (id) => cash(id, 1500));
    t.services.orders.cancel(voided);
    await sale(ny('2026-06-10', '11:00'), (id) => card(id, 4000, { capture: false }));
    // Today (Wednesday 17 June), and the small hours that are still the 16th's.
    await sale(ny('2026-06-17', '03:30'), (id) => cash(id, 7700));
    await sale(ny('2026-06-17', '08:15'), (id) => {
      const payment = card(id, 4000);
      t.services.payments.refund(payment.id, 1000);
    });
    await sale(ny('2026-06-17', '11:00'), (id) => cash(id, 2200));
    await sale(ny('2026-06-17', '12:00'));
    await sale(ny('2026-06-17', '13:00'), (id) => {
      t.services.payments.refund(cash(id, 500).id, 500);
    });

    const at2pm = await today(ny('2026-06-17', '14:00'));
    expect({ ...at2pm, by_hour: hours(at2pm.by_hour) }).toEqual({
      business_day: '2026-06-17',
      currency: 'USD',
      sales_minor: 5200,
      orders: 2,
      average_ticket_minor: 2600,
      last_week: { business_day: '2026-06-10', sales_minor: 11000, orders: 4, to_same_time_minor: 5000 },
      change_pct: 4,
      by_hour: [
        { hour: 1, today_minor: 0, last_week_minor: 1000 },
        { hour: 8, today_minor: 3000, last_week_minor: 0 },
        { hour: 9, today_minor: 0, last_week_minor: 2000 },
        { hour: 11, today_minor: 2200, last_week_minor: 0 },
        { hour: 12, today_minor: 0, last_week_minor: 3000 },
        { hour: 16, today_minor: 0, last_week_minor: 5000 },
      ],
    });
    expect(at2pm.by_hour.map((h: { hour: number }) => h.hour)).toEqual([...Array(24).keys()]);

    // Later the same day, last week's 16:45 sale is behind us too.
    const at5pm = await today(ny('2026-06-17', '17:00'));
    expect(at5pm.last_week.to_same_time_minor).toBe(10000);
    expect(at5pm.change_pct).toBe(-48);
  });

  it('has no change to show before last week sold anything by this time', async () => {
    await sale(ny('2026-06-10', '18:00'), (id) => cash(id, 2000));
    await sale(ny('2026-06-17', '09:00'), (id) => cash(id, 1234));
    const data = await today(ny('2026-06-17', '10:00'));
    expect(data).toMatchObject({
      sales_minor: 1234,
      orders: 1,
      average_ticket_minor: 1234,
      last_week: { sales_minor: 2000, orders: 1, to_same_time_minor: 0 },
      change_pct: null,
    });
    // Before 04:00 it is still yesterday's business day, which sold nothing.
    expect(await today(ny('2026-06-18', '02:00'))).toMatchObject({
      business_day: '2026-06-17',
      sales_minor: 1234,
    });
    expect(await today(ny('2026-06-18', '04:00'))).toMatchObject({
      business_day: '2026-06-18',
      sales_minor: 0,
      orders: 0,
      average_ticket_minor: 0,
      last_week: { business_day: '2026-06-11', sales_minor: 0 },
      change_pct: null,
    });
  });

  it('needs a signed-in staff member and takes no parameters', async () => {
    expect((await t.call(undefined, 'GET', '/sales/today')).statusCode).toBe(401);
    const response = await t.call(t.cashier, 'GET', '/sales/today?business_day=2026-06-01');
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toMatchObject({
      code: 'INVALID_REQUEST',
      details: [{ field: 'querystring.business_day', message: 'is not an accepted field' }],
    });
  });
});
