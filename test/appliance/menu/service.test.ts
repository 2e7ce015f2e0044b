import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChangeLog } from '../../../appliance/db/change-log.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createMenuService, type MenuService, type NewItem } from '../../../appliance/menu/index.ts';
import { createManualClock, type ManualClock } from '../../../shared/clock.ts';
import { AppError } from '../../../shared/http/errors.ts';
import { newId } from '../../../shared/ids.ts';

const LOCATION = '01900000-0000-7000-8000-000000000001';

let dir: string;
let db: ApplianceDatabase;
let clock: ManualClock;
let menu: MenuService;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'appliance-menu-'));
  db = openApplianceDb(dir);
  clock = createManualClock('2026-03-01T12:00:00.000Z');
  const changes = createChangeLog(db, { clock, newId, locationId: LOCATION });
  menu = createMenuService({ db, changes, clock, newId });
});

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const outbox = () =>
  db
    .prepare(
      "select table_name, row_id, operation, row_version from outbox where table_name <> 'events' order by seq",
    )
    .all();
const events = () =>
  (
    db.prepare('select type, data from events order by seq').all() as Array<{ type: string; data: string }>
  ).map((row) => ({ type: row.type, data: JSON.parse(row.data) as Record<string, unknown> }));
const counts = () =>
  db
    .prepare(
      `select (select count(*) from menu_categories) categories, (select count(*) from menu_items) items,
         (select count(*) from outbox) outbox, (select count(*) from events) events`,
    )
    .get();

/** Runs a command that must fail, and checks it left no row, outbox row or event behind. */
function expectRejected(command: () => unknown, status: number, code: string, field?: string) {
  const before = counts();
  let caught: unknown;
  try {
    command();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(AppError);
  const error = caught as AppError;
  expect({ status: error.status, code: error.code }).toEqual({ status, code });
  if (field) expect(error.details.map((detail) => detail.field)).toContain(field);
  expect(counts()).toEqual(before);
  return error;
}

const makeItem = (overrides: Partial<NewItem> = {}) => {
  const category_id = overrides.category_id ?? menu.createCategory({ name: `Category ${newId()}` }).id;
  return menu.createItem({
    name: 'Burger',
    description: 'Beef',
    price_minor: 1099,
    ...overrides,
    category_id,
  });
};

describe('menu categories', () => {
  it('creates categories in order, each with version 1 and an outbox row', () => {
    const mains = menu.createCategory({ name: '  Mains ' });
    const drinks = menu.createCategory({ name: 'Drinks' });
    const first = menu.createCategory({ name: 'Starters', position: 0 });
    expect(mains).toEqual({
      id: mains.id,
      name: 'Mains',
      position: 0,
      version: 1,
      updated_at: '2026-03-01T12:00:00.000Z',
    });
    expect(drinks.position).toBe(1);
    expect(menu.listCategories().map((category) => category.name)).toEqual(['Mains', 'Starters', 'Drinks']);
    expect(menu.getCategory(first.id)).toEqual(first);
    expect(outbox()).toEqual(
      [mains, drinks, first].map((category) => ({
        table_name: 'menu_categories',
        row_id: category.id,
        operation: 'insert',
        row_version: 1,
      })),
    );
    expect(events()).toEqual([]);
  });

  it('renames and moves a category, bumping its version; an unchanged patch writes nothing', () => {
    const mains = menu.createCategory({ name: 'Mains' });
    clock.advance(1000);
    const renamed = menu.updateCategory(mains.id, { name: 'Main courses', position: 5 });
    expect(renamed).toMatchObject({ name: 'Main courses', position: 5, version: 2 });
    expect(renamed.updated_at).toBe('2026-03-01T12:00:01.000Z');
    expect(menu.updateCategory(mains.id, { name: 'Main courses' })).toEqual(renamed);
    expect(outbox()).toHaveLength(2);
    expect(outbox()[1]).toMatchObject({ operation: 'update', row_version: 2 });
  });

  it('rejects an empty name, a bad position, a taken name and an unknown category', () => {
    const mains = menu.createCategory({ name: 'Mains' });
    const drinks = menu.createCategory({ name: 'Drinks' });
    expectRejected(() => menu.createCategory({ name: '   ' }), 400, 'INVALID_REQUEST', 'body.name');
    expectRejected(
      () => menu.createCategory({ name: 'X', position: -1 }),
      400,
      'INVALID_REQUEST',
      'body.position',
    );
    expectRejected(
      () => menu.createCategory({ name: 'mains' }),
      409,
      'MENU_CATEGORY_NAME_TAKEN',
      'body.name',
    );
    expectRejected(() => menu.updateCategory(drinks.id, { name: 'MAINS' }), 409, 'MENU_CATEGORY_NAME_TAKEN');
    expectRejected(() => menu.updateCategory(newId(), { name: 'Sides' }), 404, 'MENU_CATEGORY_NOT_FOUND');
    expect(menu.getCategory(mains.id).version).toBe(1);
  });
});

describe('menu items', () => {
  it('creates an item with an outbox row and a menu.item_updated event carrying decimal prices', () => {
    const mains = menu.createCategory({ name: 'Mains' });
    const burger = menu.createItem({ category_id: mains.id, name: ' Burger ', price_minor: 1099 });
    expect(burger).toEqual({
      id: burger.id,
      category_id: mains.id,
      name: 'Burger',
      description: '',
      price_minor: 1099,
      available: true,
      version: 1,
      updated_at: '2026-03-01T12:00:00.000Z',
    });
    expect(menu.getItem(burger.id)).toEqual(burger);
    expect(outbox().at(-1)).toEqual({
      table_name: 'menu_items',
      row_id: burger.id,
      operation: 'insert',
      row_version: 1,
    });
    expect(events()).toEqual([
      {
        type: 'menu.item_updated',
        data: {
          id: burger.id,
          category_id: mains.id,
          name: 'Burger',
          description: '',
          price: 10.99,
          available: true,
          version: 1,
          updated_at: '2026-03-01T12:00:00.000Z',
          created: true,
          changed: ['category_id', 'name', 'description', 'price', 'available'],
        },
      },
    ]);
  });

  it('rejects bad items with field details and leaves nothing behind', () => {
    const mains = menu.createCategory({ name: 'Mains' });
    const item = { category_id: mains.id, name: 'Fries', price_minor: 399 };
    expectRejected(
      () => menu.createItem({ ...item, price_minor: -1 }),
      400,
      'INVALID_REQUEST',
      'body.price_minor',
    );
    expectRejected(
      () => menu.createItem({ ...item, price_minor: 3.99 }),
      400,
      'INVALID_REQUEST',
      'body.price_minor',
    );
    expectRejected(() => menu.createItem({ ...item, name: '' }), 400, 'INVALID_REQUEST', 'body.name');
    expectRejected(
      () => menu.createItem({ ...item, description: 'x'.repeat(1001) }),
      400,
      'INVALID_REQUEST',
      'body.description',
    );
    const unknown = expectRejected(
      () => menu.createItem({ ...item, category_id: newId() }),
      400,
      'INVALID_REQUEST',
      'body.category_id',
    );
    expect(unknown.details).toEqual([{ field: 'body.category_id', message: 'is not a menu category' }]);
    const both = expectRejected(
      () => menu.createItem({ ...item, name: ' ', price_minor: -5 }),
      400,
      'INVALID_REQUEST',
    );
    expect(both.details.map((detail) => detail.field)).toEqual(['body.name', 'body.price_minor']);
  });

  it('edits name, description and category with one menu.item_updated naming the changed fields', () => {
    const burger = makeItem();
    const sides = menu.createCategory({ name: 'Sides' });
    clock.advance(60_000);
    const edited = menu.updateItem(burger.id, {
      name: 'Cheeseburger',
      description: 'Beef',
      category_id: sides.id,
    });
    expect(edited).toMatchObject({
      name: 'Cheeseburger',
      description: 'Beef',
      category_id: sides.id,
      version: 2,
    });
    expect(edited.updated_at).toBe('2026-03-01T12:01:00.000Z');
    expect(events().at(-1)).toEqual({
      type: 'menu.item_updated',
      data: expect.objectContaining({
        id: burger.id,
        version: 2,
        created: false,
        changed: ['category_id', 'name'],
      }),
    });
    expect(outbox().at(-1)).toMatchObject({ row_id: burger.id, operation: 'update', row_version: 2 });

    const before = counts();
    expect(menu.updateItem(burger.id, { name: ' Cheeseburger ' })).toEqual(edited);
    expect(counts()).toEqual(before);
  });

  it('rejects edits of unknown items, to unknown categories or with empty names', () => {
    const burger = makeItem();
    expectRejected(() => menu.updateItem(newId(), { name: 'X' }), 404, 'MENU_ITEM_NOT_FOUND');
    expectRejected(() => menu.getItem(newId()), 404, 'MENU_ITEM_NOT_FOUND');
    expectRejected(
      () => menu.updateItem(burger.id, { category_id: newId() }),
      400,
      'INVALID_REQUEST',
      'body.category_id',
    );
    expectRejected(() => menu.updateItem(burger.id, { name: '' }), 400, 'INVALID_REQUEST', 'body.name');
    expect(menu.getItem(burger.id)).toEqual(burger);
  });

  it('sets availability with menu.item_availability, and ignores a repeat', () => {
    const burger = makeItem();
    const off = menu.setAvailability(burger.id, false);
    expect(off).toMatchObject({ available: false, version: 2 });
    expect(events().at(-1)).toEqual({
      type: 'menu.item_availability',
      data: expect.objectContaining({ id: burger.id, name: 'Burger', available: false, version: 2 }),
    });
    const before = counts();
    expect(menu.setAvailability(burger.id, false)).toEqual(off);
    expect(counts()).toEqual(before);
    expect(menu.setAvailability(burger.id, true)).toMatchObject({ available: true, version: 3 });
    expectRejected(() => menu.setAvailability(newId(), false), 404, 'MENU_ITEM_NOT_FOUND');
  });

  it('changes the price with menu.price_changed carrying old and new decimal prices', () => {
    const burger = makeItem({ price_minor: 450 });
    const dearer = menu.changePrice(burger.id, 475);
    expect(dearer).toMatchObject({ price_minor: 475, version: 2 });
    expect(events().at(-1)).toEqual({
      type: 'menu.price_changed',
      data: expect.objectContaining({
        id: burger.id,
        price: 4.75,
        old_price: 4.5,
        new_price: 4.75,
        version: 2,
      }),
    });
    expect(menu.changePrice(burger.id, 0)).toMatchObject({ price_minor: 0, version: 3 });
    expectRejected(() => menu.changePrice(burger.id, -1), 400, 'INVALID_REQUEST', 'body.price_minor');
    expectRejected(() => menu.changePrice(burger.id, 1.5), 400, 'INVALID_REQUEST', 'body.price_minor');
    expectRejected(() => menu.changePrice(newId(), 100), 404, 'MENU_ITEM_NOT_FOUND');
    expect(menu.getItem(burger.id).price_minor).toBe(0);
  });

  it('writes one outbox row and one event per write, in order, with versions counting up', () => {
    const burger = makeItem();
    menu.changePrice(burger.id, 1199);
    menu.setAvailability(burger.id, false);
    menu.updateItem(burger.id, { description: 'Beef, cheese' });
    const itemChanges = outbox().filter((row) => (row as { table_name: string }).table_name === 'menu_items');
    expect(itemChanges).toEqual([
      { table_name: 'menu_items', row_id: burger.id, operation: 'insert', row_version: 1 },
      { table_name: 'menu_items', row_id: burger.id, operation: 'update', row_version: 2 },
      { table_name: 'menu_items', row_id: burger.id, operation: 'update', row_version: 3 },
      { table_name: 'menu_items', row_id: burger.id, operation: 'update', row_version: 4 },
    ]);
    expect(events().map((event) => [event.type, event.data.version])).toEqual([
      ['menu.item_updated', 1],
      ['menu.price_changed', 2],
      ['menu.item_availability', 3],
      ['menu.item_updated', 4],
    ]);
    expect(db.prepare('select distinct location_id from events').all()).toEqual([{ location_id: LOCATION }]);
  });

  it('lists items, all or by category', () => {
    const mains = menu.createCategory({ name: 'Mains' });
    const drinks = menu.createCategory({ name: 'Drinks' });
    const burger = makeItem({ category_id: mains.id, name: 'Burger' });
    const cola = makeItem({ category_id: drinks.id, name: 'Cola' });
    const bagel = makeItem({ category_id: mains.id, name: 'Bagel' });
    expect(menu.listItems().map((item) => item.id)).toEqual([bagel.id, burger.id, cola.id]);
    expect(menu.listItems({ category_id: drinks.id })).toEqual([cola]);
    expect(menu.listItems({ category_id: newId() })).toEqual([]);
  });

  it('gives the orders module name, price and availability per known id', () => {
    const burger = makeItem({ price_minor: 1099 });
    const cola = makeItem({ name: 'Cola', price_minor: 250, available: false });
    const missing = newId();
    const found = menu.itemsForOrder([burger.id, missing, cola.id, burger.id]);
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : 1);
    expect([...found].sort(byId)).toEqual(
      [
        { id: burger.id, name: 'Burger', price_minor: 1099, available: true },
        { id: cola.id, name: 'Cola', price_minor: 250, available: false },
      ].sort(byId),
    );
    expect(menu.itemsForOrder([])).toEqual([]);
  });
});

describe('menu schema', () => {
  it('refuses non-integer or negative prices even from outside the service', () => {
    const burger = makeItem();
    const update = db.prepare('update menu_items set price_minor = ? where id = ?');
    expect(() => update.run(10.5, burger.id)).toThrow(/CHECK constraint/);
    expect(() => update.run(-1, burger.id)).toThrow(/CHECK constraint/);
  });
});
