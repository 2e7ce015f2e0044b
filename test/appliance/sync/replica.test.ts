import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApplianceServices, createApplianceServices } from '../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createReplica, type Replica } from '../../../appliance/sync/replica.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import type { RowState } from '../../../shared/sync/protocol.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const LOCATION = '01900000-0000-7000-8000-0000000000c3';

describe('replica: rows from the cloud', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let services: ApplianceServices;
  let replica: Replica;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'replica-'));
    db = openApplianceDb(dir);
    const config = loadApplianceConfig({ TENANT_ID: TENANT, LOCATION_ID: LOCATION });
    services = createApplianceServices(config, {
      db,
      clock: createManualClock('2026-06-10T19:00:00.000Z'),
      newId,
    });
    replica = createReplica(db, services.changes.docClientId);
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Marks every outbox row answered, as a push the cloud applied would. */
  const answerAll = () => db.prepare("update outbox set pushed_at = 'now', outcome = 'applied'").run();
  const land = (row: RowState, force = false) => db.transaction(() => replica.apply(row, { force }))();

  function burger() {
    const category = services.menu.createCategory({ name: 'Mains' });
    const item = services.menu.createItem({ category_id: category.id, name: 'Burger', price_minor: 1000 });
    const state = (version: number, price: number): RowState => ({
      table: 'menu_items',
      row_id: item.id,
      version,
      deleted: false,
      hlc: '1781118000000-0000-cloud',
      fields: {
        id: item.id,
        category_id: category.id,
        name: 'Burger',
        description: '',
        price_minor: price,
        available: 1,
        updated_at: '2026-06-10T19:00:00.000Z',
      },
    });
    return { item, state };
  }

  it('takes a newer version of a row and leaves one with changes still unanswered alone', () => {
    const { item, state } = burger();
    answerAll();
    land(state(2, 1200));
    expect(services.menu.getItem(item.id)).toMatchObject({ price_minor: 1200, version: 2 });

    services.menu.changePrice(item.id, 1300);
    land(state(3, 1400));
    expect(services.menu.getItem(item.id).price_minor).toBe(1300);
    // A conflict's winner replaces it whatever its version.
    land(state(3, 1400), true);
    expect(services.menu.getItem(item.id)).toMatchObject({ price_minor: 1400, version: 3 });
  });

  it('never takes a row back to a version the store already holds or passed', () => {
    const { item, state } = burger();
    services.menu.changePrice(item.id, 1300);
    services.menu.changePrice(item.id, 1350);
    answerAll();
    // The cloud's own version 2, delivered by the feed after the store's version 3 was taken on
    // top of it (the store learnt it from a conflict before pulling).
    land(state(2, 1250));
    expect(services.menu.getItem(item.id)).toMatchObject({ price_minor: 1350, version: 3 });
  });

  it('does not bring back a row the store deleted when an older version of it arrives', async () => {
    const { item } = burger();
    const order = await services.orders.create({
      order_type: 'takeout',
      items: [
        { menu_item_id: item.id, quantity: 1 },
        { menu_item_id: item.id, quantity: 2 },
      ],
    });
    const removed = order.items[1]!;
    services.orders.removeItem(order.id, removed.id);
    answerAll();
    const stale = db
      .prepare('select * from outbox where row_id = ? order by seq limit 1')
      .get(removed.id) as {
      fields: string;
    };
    land({
      table: 'order_items',
      row_id: removed.id,
      version: 1,
      deleted: false,
      hlc: '1781118000000-0000-cloud',
      fields: JSON.parse(stale.fields) as Record<string, unknown>,
    });
    expect(services.orders.get(order.id).items.map((i) => i.id)).toEqual([order.items[0]!.id]);
  });

  it('lands a category, a stock item and a station from the cloud named like the store’s own', () => {
    const local = services.menu.createCategory({ name: 'Mains' });
    services.inventory.create({ name: 'Buns', unit: 'each' });
    services.kitchen.createStation({ name: 'Grill' });
    answerAll();
    const at = '2026-06-10T19:00:00.000Z';
    const hlc = '1781118000000-0000-cloud';
    land({
      table: 'menu_categories',
      row_id: 'hq-mains',
      version: 1,
      deleted: false,
      hlc,
      fields: { id: 'hq-mains', name: 'MAINS', position: 1, updated_at: at },
    });
    const stock = { unit: 'each', reorder_level_milli: 0, reorder_quantity_milli: 0, updated_at: at };
    land({
      table: 'inventory_items',
      row_id: 'hq-buns',
      version: 1,
      deleted: false,
      hlc,
      fields: { id: 'hq-buns', name: 'Buns', ...stock },
    });
    expect(services.menu.listCategories().map((c) => c.id)).toEqual(
      expect.arrayContaining([local.id, 'hq-mains']),
    );
    expect(services.inventory.list().filter((i) => i.name === 'Buns')).toHaveLength(2);
    land({
      table: 'stations',
      row_id: 'hq-grill',
      version: 1,
      deleted: false,
      hlc,
      fields: { id: 'hq-grill', name: 'GRILL', position: 0, updated_at: at },
    });
    expect(
      services.kitchen
        .listStations()
        .map((station) => station.name)
        .sort(),
    ).toEqual(['GRILL', 'Grill']);
    expect(() => services.kitchen.createStation({ name: 'grill' })).toThrow(
      expect.objectContaining({ status: 409 }),
    );
    // Made here, a duplicate name is still refused.
    expect(() => services.menu.createCategory({ name: 'mains' })).toThrow(
      expect.objectContaining({ status: 409 }),
    );
  });
});
