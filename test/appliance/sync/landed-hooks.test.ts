import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ApplianceServices, createApplianceServices } from '../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { createReplica, type LandedHooks } from '../../../appliance/sync/replica.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import type { RowState } from '../../../shared/sync/protocol.ts';
import type { Fields } from '../../../shared/sync/registry.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const LOCATION = '01900000-0000-7000-8000-0000000000c3';

describe('replica: the store’s hooks on rows the cloud changed', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let services: ApplianceServices;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'landed-hooks-'));
    db = openApplianceDb(dir);
    const config = loadApplianceConfig({ TENANT_ID: TENANT, LOCATION_ID: LOCATION });
    services = createApplianceServices(config, {
      db,
      clock: createManualClock('2026-06-10T19:00:00.000Z'),
      newId,
    });
  });
  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const answerAll = () => db.prepare("update outbox set pushed_at = 'now', outcome = 'applied'").run();
  const events = (type: string) =>
    (db.prepare('select data from events where type = ?').all(type) as Array<{ data: string }>).map(
      (row) => JSON.parse(row.data) as Record<string, unknown>,
    );

  /** A replica whose menu_items hook records what it was given. */
  function recording(extra: LandedHooks = {}) {
    const calls: Array<{ before: Fields | undefined; after: Fields }> = [];
    const warnings: string[] = [];
    const replica = createReplica(
      db,
      services.changes.docClientId,
      { menu_items: (before, after) => void calls.push({ before, after }), ...extra },
      { info: () => undefined, warn: (_, message) => void warnings.push(message) },
    );
    const land = (row: RowState, force = false) => replica.land(() => replica.apply(row, { force }));
    return { calls, warnings, land };
  }

  function burger() {
    const category = services.menu.createCategory({ name: 'Mains' });
    const item = services.menu.createItem({ category_id: category.id, name: 'Burger', price_minor: 1000 });
    const state = (version: number, price: number, deleted = false): RowState => ({
      table: 'menu_items',
      row_id: item.id,
      version,
      deleted,
      hlc: '1781118000000-0000-cloud',
      fields: deleted
        ? null
        : {
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

  it('gives the hook the row as the store held it and as the cloud wrote it', () => {
    const { calls, land } = recording();
    const { state } = burger();
    answerAll();
    land(state(2, 1200));
    expect(calls).toEqual([
      { before: expect.objectContaining({ price_minor: 1000 }), after: state(2, 1200).fields },
    ]);
    expect(calls[0]?.before).not.toHaveProperty('version');
  });

  it('runs only for a row written: not for one skipped, nor for a deletion', () => {
    const { calls, land } = recording();
    const { item, state } = burger();
    answerAll();
    land(state(2, 1200));
    land(state(2, 1200));
    land(state(1, 900));
    services.menu.changePrice(item.id, 1300);
    land(state(3, 1400));
    expect(calls).toHaveLength(1);

    // A conflict's winner replaces the store's unanswered change, and the hook hears of it.
    land(state(3, 1400), true);
    expect(calls).toHaveLength(2);
    expect(calls[1]).toMatchObject({ before: { price_minor: 1300 }, after: { price_minor: 1400 } });

    answerAll();
    land(state(4, 0, true));
    expect(calls).toHaveLength(2);
  });

  it('gives no row before for one the store never had', () => {
    const { calls, land } = recording();
    const { state } = burger();
    db.prepare('delete from menu_items').run();
    answerAll();
    land(state(2, 1200));
    expect(calls).toEqual([{ before: undefined, after: state(2, 1200).fields }]);
  });

  it('lands the row when its hook fails, with the hook’s own writes rolled back', () => {
    const { warnings, land } = recording({
      menu_categories: () => {
        services.changes.emit('order.cancelled', { id: 'half-done' });
        throw new Error('broken reaction');
      },
    });
    const category = services.menu.createCategory({ name: 'Mains' });
    answerAll();
    land({
      table: 'menu_categories',
      row_id: category.id,
      version: 2,
      deleted: false,
      hlc: '1781118000000-0000-cloud',
      fields: { id: category.id, name: 'Starters', position: 0, updated_at: '2026-06-10T19:00:00.000Z' },
    });
    expect(db.prepare('select name, version from menu_categories').get()).toEqual({
      name: 'Starters',
      version: 2,
    });
    expect(events('order.cancelled')).toEqual([]);
    expect(warnings).toEqual(['sync: a landed row’s reaction failed']);
  });

  describe('with the store’s reactions to head office’s voids', () => {
    async function completedOrder() {
      const category = services.menu.createCategory({ name: 'Mains' });
      const item = services.menu.createItem({ category_id: category.id, name: 'Burger', price_minor: 1000 });
      const buns = services.inventory.create({ name: 'Buns', unit: 'each', quantity: 10 });
      services.inventory.setRecipe(item.id, [{ inventory_item_id: buns.id, quantity: 1 }]);
      const created = await services.orders.create({
        order_type: 'takeout',
        items: [{ menu_item_id: item.id, quantity: 3 }],
      });
      const sent = services.sendOrder(created.id);
      services.orders.completeItem(sent.id, sent.items[0]!.id);
      const order = services.completeOrder(sent.id);
      // Recipes change later; what goes back is what the sale took.
      services.inventory.setRecipe(item.id, [{ inventory_item_id: buns.id, quantity: 5 }]);
      answerAll();
      return { order, buns };
    }
    const voided = (order: { id: string; version: number }, fields: Fields): RowState => ({
      table: 'orders',
      row_id: order.id,
      version: order.version + 1,
      deleted: false,
      hlc: '1781118000000-0000-cloud',
      fields: { ...fields, status: 'cancelled' },
    });

    it('gives a completed order’s stock back once, however often its row lands', async () => {
      const replica = createReplica(db, services.changes.docClientId, services.cloudEdits);
      const land = (row: RowState, force = false) => replica.land(() => replica.apply(row, { force }));
      const { order, buns } = await completedOrder();
      expect(services.inventory.get(buns.id).current_quantity).toBe(7);
      const fields = db
        .prepare(
          'select id, number, business_day, order_type, status, table_label, server_id, server_name, subtotal_minor, tax_minor, total_minor, created_at, updated_at from orders where id = ?',
        )
        .get(order.id) as Fields;

      land(voided(order, fields));
      land(voided(order, fields));
      land(voided(order, fields), true);

      expect(services.orders.get(order.id).status).toBe('cancelled');
      expect(services.inventory.get(buns.id).current_quantity).toBe(10);
      expect(events('order.cancelled')).toHaveLength(1);
      expect(events('order.cancelled')[0]).toMatchObject({ id: order.id, status: 'cancelled' });
      // The return syncs up like any movement.
      const queued = db
        .prepare("select fields from outbox where table_name = 'inventory_movements' and pushed_at is null")
        .all() as Array<{ fields: string }>;
      expect(queued.map((row) => JSON.parse(row.fields))).toEqual([
        expect.objectContaining({ kind: 'restock', delta_milli: 3000, reference: order.id }),
      ]);
    });
  });
});
