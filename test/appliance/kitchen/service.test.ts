import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChangeLog } from '../../../appliance/db/change-log.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { sendOrder } from '../../../appliance/flows/send-order.ts';
import { createKitchenService, type KitchenService } from '../../../appliance/kitchen/index.ts';
import { createLocationService } from '../../../appliance/location/service.ts';
import { createMenuService } from '../../../appliance/menu/service.ts';
import { createOrderService, type OrderService } from '../../../appliance/orders/service.ts';
import { createManualClock, type ManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';

const LOCATION = '01900000-0000-7000-8000-000000000001';

describe('kitchen', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let clock: ManualClock;
  let orders: OrderService;
  let kitchen: KitchenService;
  let menu: Record<'burger' | 'fries' | 'soda', string>;
  let grill: string;
  let bar: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kitchen-'));
    db = openApplianceDb(dir);
    clock = createManualClock('2026-06-10T19:00:00.000Z');
    const changes = createChangeLog(db, { clock, newId, locationId: LOCATION });
    const location = createLocationService({ db, changes, clock });
    location.ensure(LOCATION, { name: 'Main St', timezone: 'America/New_York' });
    const menuService = createMenuService({ db, changes, clock, newId });
    const mains = menuService.createCategory({ name: 'Mains' });
    const item = (name: string) =>
      menuService.createItem({ category_id: mains.id, name, price_minor: 100 }).id;
    menu = { burger: item('Burger'), fries: item('Fries'), soda: item('Soda') };
    orders = createOrderService({ db, changes, menu: menuService, location, clock, newId });
    kitchen = createKitchenService({ db, changes, orders, clock, newId });
    grill = kitchen.createStation({ name: 'Grill' }).id;
    bar = kitchen.createStation({ name: 'Bar' }).id;
    kitchen.routeItem(menu.burger, grill);
    kitchen.routeItem(menu.soda, bar);
    db.exec('delete from outbox; delete from events');
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const eventTypes = () =>
    (db.prepare('select type from events order by seq').all() as Array<{ type: string }>).map((e) => e.type);
  const outbox = (table: string) =>
    db.prepare('select operation, row_version from outbox where table_name = ? order by seq').all(table);
  const send = async (...items: Array<keyof typeof menu>) => {
    const order = await orders.create({
      order_type: 'dine_in',
      items: items.map((name) => ({ menu_item_id: menu[name], quantity: 1, notes: `${name} note` })),
    });
    const sent = sendOrder({ db, orders, kitchen }, order.id);
    const itemId = (name: keyof typeof menu) =>
      sent.items.find((i) => i.menu_item_id === menu[name])?.id ?? '';
    return { order: sent, itemId };
  };

  it('puts each sent item on its station’s ticket; unrouted items go to the first station', async () => {
    const { order, itemId } = await send('burger', 'fries', 'soda');

    const [grillTicket] = kitchen.board(grill);
    const [barTicket] = kitchen.board(bar);
    expect(grillTicket).toMatchObject({
      order_id: order.id,
      order_number: order.number,
      priority: 'normal',
      status: 'open',
      created_at: '2026-06-10T19:00:00.000Z',
      elapsed_seconds: 0,
    });
    expect(grillTicket?.items).toEqual([
      expect.objectContaining({ order_item_id: itemId('burger'), name: 'Burger', status: 'pending' }),
      expect.objectContaining({ order_item_id: itemId('fries'), notes: 'fries note', modifiers: [] }),
    ]);
    expect(barTicket?.items.map((i) => i.name)).toEqual(['Soda']);
    // Tickets are the kitchen's working state: they never leave the appliance.
    expect(outbox('tickets')).toEqual([]);
  });

  it('tickets nothing when the store has no stations', async () => {
    db.exec('delete from station_items; delete from stations');
    const { order } = await send('burger');
    expect(order.status).toBe('sent');
    expect(db.prepare('select count(*) n from tickets').get()).toEqual({ n: 0 });
  });

  it('rolls the send back when the tickets cannot be opened', async () => {
    const order = await orders.create({
      order_type: 'dine_in',
      items: [{ menu_item_id: menu.burger, quantity: 1 }],
    });
    const failing = {
      openTickets: () => {
        throw new Error('disk full');
      },
    };
    expect(() => sendOrder({ db, orders, kitchen: failing }, order.id)).toThrow('disk full');
    expect(orders.get(order.id).status).toBe('open');
    expect(eventTypes()).toEqual(['order.created']);
  });

  it('bumps items, completing the order’s items and readying it when all are done', async () => {
    const { order, itemId } = await send('burger', 'fries', 'soda');
    const grillTicket = kitchen.board(grill)[0]?.id ?? '';
    const barTicket = kitchen.board(bar)[0]?.id ?? '';

    clock.advance(60_000);
    const afterBurger = kitchen.bump(grillTicket, itemId('burger'));
    expect(afterBurger.status).toBe('open');
    expect(afterBurger.items[0]).toMatchObject({ status: 'done', bumped_at: '2026-06-10T19:01:00.000Z' });
    expect(orders.get(order.id).items.find((i) => i.id === itemId('burger'))?.status).toBe('complete');

    expect(kitchen.bump(grillTicket, itemId('fries'))).toMatchObject({
      status: 'done',
      done_at: '2026-06-10T19:01:00.000Z',
    });
    expect(kitchen.board(grill)).toEqual([]);
    expect(orders.get(order.id).status).toBe('sent');
    kitchen.bump(barTicket, itemId('soda'));
    expect(orders.get(order.id).status).toBe('ready');
    expect(eventTypes()).toEqual([
      'order.created',
      'order.sent',
      'kds.ticket_opened',
      'kds.ticket_opened',
      'order.updated',
      'kds.ticket_updated',
      'order.updated',
      'kds.ticket_updated',
      'order.ready',
      'kds.ticket_updated',
    ]);
  });

  it('leaves the ticket as it was when the order refuses the item', async () => {
    const { order, itemId } = await send('burger');
    const ticket = kitchen.board(grill)[0]?.id ?? '';
    orders.cancel(order.id);
    expect(() => kitchen.bump(ticket, itemId('burger'))).toThrow(/cannot be prepared/);
    expect(kitchen.board(grill)[0]?.items[0]?.status).toBe('pending');
  });

  it('answers unknown tickets and items as not found', async () => {
    const { itemId } = await send('burger');
    const ticket = kitchen.board(grill)[0]?.id ?? '';
    expect(() => kitchen.bump(newId(), itemId('burger'))).toThrow(expect.objectContaining({ status: 404 }));
    expect(() => kitchen.bump(ticket, newId())).toThrow(
      expect.objectContaining({ code: 'TICKET_ITEM_NOT_FOUND' }),
    );
    expect(() => kitchen.board(newId())).toThrow(expect.objectContaining({ code: 'STATION_NOT_FOUND' }));
  });

  it('recalls a finished ticket without touching the order', async () => {
    const { order, itemId } = await send('burger');
    const ticket = kitchen.board(grill)[0]?.id ?? '';
    expect(() => kitchen.recall(ticket)).toThrow(expect.objectContaining({ code: 'TICKET_NOT_DONE' }));
    kitchen.bump(ticket, itemId('burger'));
    expect(orders.get(order.id).status).toBe('ready');

    const recalled = kitchen.recall(ticket);
    expect(recalled).toMatchObject({ status: 'open', done_at: null });
    expect(recalled.items[0]?.status).toBe('pending');
    expect(kitchen.board(grill).map((t) => t.id)).toEqual([ticket]);

    const eventsBefore = eventTypes().length;
    expect(kitchen.bump(ticket, itemId('burger')).status).toBe('done');
    expect(orders.get(order.id).status).toBe('ready');
    // The screens hear about the ticket; the order, already ready, does not change again.
    expect(eventTypes().slice(eventsBefore)).toEqual(['kds.ticket_updated']);
  });

  it('shows rush tickets first, then the oldest, with their elapsed time', async () => {
    const first = await send('burger');
    clock.advance(90_000);
    const second = await send('burger');
    clock.advance(30_000);
    const third = await send('burger');
    clock.advance(5_500);

    const ticketOf = (orderId: string) => kitchen.board(grill).find((t) => t.order_id === orderId)?.id ?? '';
    const rushed = kitchen.setPriority(ticketOf(third.order.id), 'rush');
    expect(rushed).toMatchObject({ priority: 'rush', version: 2 });

    const board = kitchen.board(grill);
    expect(board.map((t) => [t.order_id, t.priority, t.elapsed_seconds])).toEqual([
      [third.order.id, 'rush', 5],
      [first.order.id, 'normal', 125],
      [second.order.id, 'normal', 35],
    ]);
    kitchen.setPriority(ticketOf(third.order.id), 'normal');
    expect(kitchen.board(grill).map((t) => t.order_id)).toEqual([
      first.order.id,
      second.order.id,
      third.order.id,
    ]);
  });

  it('routes items to existing stations only, with unique station names', () => {
    expect(() => kitchen.routeItem(menu.fries, newId())).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => kitchen.createStation({ name: 'grill' })).toThrow(
      expect.objectContaining({ code: 'STATION_NAME_TAKEN' }),
    );
    expect(kitchen.routeItem(menu.burger, bar)).toEqual({ menu_item_id: menu.burger, station_id: bar });
    expect(outbox('station_items')).toEqual([{ operation: 'update', row_version: 2 }]);
    expect(kitchen.listStations().map((s) => s.name)).toEqual(['Grill', 'Bar']);
  });
});
