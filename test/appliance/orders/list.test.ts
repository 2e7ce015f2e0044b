import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../shared/clock.ts';
import { createTestAppliance, type TestAppliance } from '../../support/appliance.ts';

interface ListedOrder {
  id: string;
  number: string;
  status: string;
  business_day: string;
  items: Array<{ name: string }>;
}

describe('GET /v1/commerce/orders', () => {
  let t: TestAppliance;
  let cashier: string;
  let burger: string;
  // 15:00 in New York on 10 June: the business day began at 04:00.
  const clock = createManualClock('2026-06-10T19:00:00.000Z');
  const minute = 60_000;

  beforeEach(async () => {
    clock.set('2026-06-10T19:00:00.000Z');
    t = await createTestAppliance({ clock });
    cashier = t.cashier;
    const mains = t.services.menu.createCategory({ name: 'Mains' });
    burger = t.services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 349 }).id;
  });
  afterEach(() => t.close());

  /** The next day: sessions last 12 hours, so the cashier signs in again. */
  const nextDay = async () => {
    clock.advance(24 * 60 * minute);
    cashier = await t.login('bob');
  };
  const openOrder = async (quantity = 1) => {
    const response = await t.call(cashier, 'POST', '/orders', {
      order_type: 'takeout',
      items: [{ menu_item_id: burger, quantity }],
    });
    expect(response.statusCode).toBe(201);
    return response.json().data as ListedOrder;
  };
  const list = async (query: string) => {
    const response = await t.call(cashier, 'GET', `/orders${query}`);
    expect(response.statusCode).toBe(200);
    return response.json().data as { items: ListedOrder[]; next_cursor: string | null };
  };

  it('pages through every order newest first, ties in time included, each with its items', async () => {
    const opened: ListedOrder[] = [];
    for (let i = 0; i < 4; i++) {
      opened.push(await openOrder(i + 1));
      clock.advance(minute);
    }
    // Three in the same millisecond: the id orders them.
    for (let i = 0; i < 3; i++) opened.push(await openOrder());

    const pages: ListedOrder[][] = [];
    let cursor: string | null = null;
    do {
      const page = await list(`?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      pages.push(page.items);
      cursor = page.next_cursor;
    } while (cursor !== null);

    expect(pages.map((page) => page.length)).toEqual([3, 3, 1]);
    const seen = pages.flat().map((order) => order.id);
    const sameInstant = opened
      .slice(4)
      .map((order) => order.id)
      .sort()
      .reverse();
    expect(seen).toEqual([
      ...sameInstant,
      ...opened
        .slice(0, 4)
        .map((order) => order.id)
        .reverse(),
    ]);
    // The order as GET /orders/:id shows it.
    const first = opened[0]!;
    const single = (await t.call(t.cashier, 'GET', `/orders/${first.id}`)).json().data;
    expect(pages.flat().find((order) => order.id === first.id)).toEqual(single);
  });

  it('says there is no next page when the last one is exactly full', async () => {
    await openOrder();
    clock.advance(minute);
    await openOrder();
    const page = await list('?limit=2');
    expect(page.items).toHaveLength(2);
    expect(page.next_cursor).toBeNull();
    expect(await list('?limit=1')).toMatchObject({
      items: [{ number: '2' }],
      next_cursor: expect.any(String),
    });
  });

  it('filters by status (the parameter repeated) and by business day', async () => {
    const sent = await openOrder();
    expect((await t.call(cashier, 'POST', `/orders/${sent.id}/send`)).statusCode).toBe(200);
    const cancelled = await openOrder();
    expect((await t.call(t.manager, 'POST', `/orders/${cancelled.id}/cancel`)).statusCode).toBe(200);
    const open = await openOrder();
    await nextDay();
    const tomorrow = await openOrder();

    const ids = (page: { items: ListedOrder[] }) => page.items.map((order) => order.id);
    expect(ids(await list('?status=open'))).toEqual([tomorrow.id, open.id]);
    expect(ids(await list('?status=sent&status=cancelled'))).toEqual([cancelled.id, sent.id]);
    expect(ids(await list('?business_day=2026-06-11'))).toEqual([tomorrow.id]);
    expect(ids(await list('?business_day=2026-06-10&status=open'))).toEqual([open.id]);
    expect(await list('?business_day=2026-06-09')).toEqual({ items: [], next_cursor: null });
  });

  it('keeps a day’s filter across its pages', async () => {
    for (let i = 0; i < 3; i++) {
      await openOrder();
      clock.advance(minute);
    }
    await nextDay();
    await openOrder();
    const first = await list('?business_day=2026-06-10&limit=2');
    expect(first.items.map((order) => order.number)).toEqual(['3', '2']);
    const second = await list(`?business_day=2026-06-10&limit=2&cursor=${first.next_cursor}`);
    expect(second).toMatchObject({ items: [{ number: '1', business_day: '2026-06-10' }], next_cursor: null });
  });

  it.each([
    ['?limit=0', 'querystring.limit'],
    ['?limit=201', 'querystring.limit'],
    ['?limit=ten', 'querystring.limit'],
    ['?status=open,sent', 'querystring.status.0'],
    ['?status=paid', 'querystring.status.0'],
    ['?business_day=2026-02-30', 'querystring.business_day'],
    ['?business_day=10/06/2026', 'querystring.business_day'],
    ['?cursor=abc', 'querystring.cursor'],
    ['?sort=oldest', 'querystring.sort'],
  ])('refuses %s naming %s', async (query, field) => {
    const response = await t.call(t.cashier, 'GET', `/orders${query}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({
      error: { code: 'INVALID_REQUEST', details: [{ field }] },
      meta: { request_id: expect.any(String) },
    });
  });

  it('needs a live session', async () => {
    expect((await t.call(undefined, 'GET', '/orders')).statusCode).toBe(401);
    expect(
      (
        await t.app.inject({
          method: 'DELETE',
          url: '/v1/auth/session',
          headers: { authorization: `Bearer ${t.cashier}` },
        })
      ).statusCode,
    ).toBe(200);
    const ended = await t.call(t.cashier, 'GET', '/orders');
    expect(ended.statusCode).toBe(401);
    expect(ended.json().error.code).toBeDefined();
  });
});
