import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createChangeLog } from '../../../appliance/db/change-log.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createInventoryService, type InventoryService } from '../../../appliance/inventory/index.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';

const LOCATION = '01900000-0000-7000-8000-000000000001';
const BURGER = '01900000-0000-7000-8000-0000000000b1';

describe('inventory', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let inventory: InventoryService;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'inventory-'));
    db = openApplianceDb(dir);
    const clock = createManualClock('2026-06-10T19:00:00.000Z');
    inventory = createInventoryService({
      db,
      changes: createChangeLog(db, { clock, newId, locationId: LOCATION }),
      clock,
      newId,
    });
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const events = () =>
    (
      db.prepare('select type, data from events order by seq').all() as Array<{ type: string; data: string }>
    ).map((row) => ({ type: row.type, data: JSON.parse(row.data) }));

  it('deducts sales through recipes exactly, once per order, warning when stock runs low and out', () => {
    const beef = inventory.create({
      name: 'Beef patty',
      unit: 'each',
      quantity: 5,
      reorder_level: 3,
      reorder_quantity: 20,
    });
    const bun = inventory.create({ name: 'Bun', unit: 'each', quantity: 50, reorder_level: 10 });
    const sauce = inventory.create({ name: 'Sauce', unit: 'l', quantity: 1, reorder_level: 0.2 });
    inventory.setRecipe(BURGER, [
      { inventory_item_id: beef.id, quantity: 1 },
      { inventory_item_id: bun.id, quantity: 1 },
      { inventory_item_id: sauce.id, quantity: 0.015 },
    ]);
    inventory.deductSale('order-1', [{ menu_item_id: BURGER, quantity: 3 }]);
    expect(inventory.get(beef.id).current_quantity).toBe(2);
    expect(inventory.get(sauce.id).current_quantity).toBe(0.955);
    expect(inventory.deductSale('order-1', [{ menu_item_id: BURGER, quantity: 3 }])).toEqual([]);
    inventory.deductSale('order-2', [{ menu_item_id: BURGER, quantity: 2 }]);
    expect(inventory.get(beef.id).current_quantity).toBe(0);

    const warnings = events().filter((e) => e.type !== 'inventory.updated');
    expect(warnings.map((e) => e.type)).toEqual(['inventory.low_stock', 'inventory.out_of_stock']);
    expect(warnings[0]!.data).toEqual({
      id: expect.any(String),
      item_id: beef.id,
      name: 'Beef patty',
      current_quantity: 2,
      unit: 'each',
      reorder_level: 3,
      reorder_quantity: 20,
    });
    const movements = db.prepare("select count(*) n from inventory_movements where kind = 'sale'").get() as {
      n: number;
    };
    expect(movements.n).toBe(6);
  });

  it('restocks and counts as deltas, each with inventory.updated and its outbox rows', () => {
    const oil = inventory.create({ name: 'Oil', unit: 'l', quantity: 2 });
    inventory.restock(oil.id, 10.5);
    const counted = inventory.count(oil.id, 11.25);
    expect(counted.current_quantity).toBe(11.25);
    expect(
      db.prepare('select kind, delta_milli from inventory_movements order by created_at, rowid').all(),
    ).toEqual([
      // The opening stock is a count, so a sum of movements anywhere gives the quantity.
      { kind: 'count', delta_milli: 2000 },
      { kind: 'restock', delta_milli: 10500 },
      { kind: 'count', delta_milli: -1250 },
    ]);
    expect(events().map((e) => [e.type, e.data.reason, e.data.change])).toEqual([
      ['inventory.updated', 'count', 2],
      ['inventory.updated', 'restock', 10.5],
      ['inventory.updated', 'count', -1.25],
    ]);
    expect(
      (
        db.prepare("select count(*) n from outbox where table_name = 'inventory_movements'").get() as {
          n: number;
        }
      ).n,
    ).toBe(3);
    // Stock moves; the item's definition, which is what syncs as a row, does not.
    expect(db.prepare("select count(*) n from outbox where table_name = 'inventory_items'").get()).toEqual({
      n: 1,
    });
  });

  it('refuses bad input and writes nothing', () => {
    const oil = inventory.create({ name: 'Oil', unit: 'l' });
    const before = db
      .prepare('select (select count(*) from outbox) o, (select count(*) from events) e')
      .get();
    expect(() => inventory.create({ name: 'oil', unit: 'l' })).toThrow(
      expect.objectContaining({ code: 'INVENTORY_NAME_TAKEN' }),
    );
    expect(() => inventory.create({ name: 'Salt', unit: 'cup' as never })).toThrow(
      expect.objectContaining({ details: [{ field: 'body.unit', message: expect.any(String) }] }),
    );
    expect(() => inventory.restock(oil.id, 0)).toThrow(
      expect.objectContaining({ details: [{ field: 'body.quantity', message: expect.any(String) }] }),
    );
    expect(() => inventory.count(oil.id, -1)).toThrow(expect.objectContaining({ status: 400 }));
    expect(() => inventory.restock(newId(), 1)).toThrow(
      expect.objectContaining({ code: 'INVENTORY_ITEM_NOT_FOUND' }),
    );
    expect(() => inventory.setRecipe(BURGER, [{ inventory_item_id: newId(), quantity: 1 }])).toThrow(
      expect.objectContaining({ status: 400 }),
    );
    expect(
      db.prepare('select (select count(*) from outbox) o, (select count(*) from events) e').get(),
    ).toEqual(before);
  });
});
