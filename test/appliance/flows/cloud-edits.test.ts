import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ApplianceServices,
  buildApplianceApp,
  createApplianceServices,
} from '../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../../appliance/db/index.ts';
import { orderEventData } from '../../../appliance/orders/index.ts';
import { systemClock } from '../../../shared/clock.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';
import type { Fields, SyncTableName } from '../../../shared/sync/registry.ts';
import { createTestCloud, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';

const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

/** Head office voids orders and refunds payments in the cloud; a real appliance pulls them. */
describe.each(backends)('head office’s voids and refunds at the store (%s)', (backend) => {
  let cloud: TestCloud;
  let dir: string;
  let db: ApplianceDatabase;
  let app: FastifyInstance;
  let services: ApplianceServices;
  let tenantId: string;
  let locationId: string;

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    const seeded = await seedTenant(cloud.services, 'acme');
    tenantId = seeded.tenant.id;
    locationId = seeded.location.id;
    const cloudUrl = await cloud.app.listen({ host: '127.0.0.1', port: 0 });
    const { credential } = await cloud.services.sync.provisionAppliance(tenantId, {
      location_id: locationId,
    });
    dir = mkdtempSync(join(tmpdir(), 'appliance-cloud-edits-'));
    db = openApplianceDb(dir);
    const config = {
      ...loadApplianceConfig({
        TENANT_ID: tenantId,
        LOCATION_ID: locationId,
        CLOUD_URL: cloudUrl,
        APPLIANCE_CLOUD_CREDENTIAL: credential,
      }),
      logLevel: 'silent' as const,
    };
    const deps = { db, clock: systemClock, newId, hasher };
    services = createApplianceServices(config, deps);
    app = await buildApplianceApp(config, deps, services);
  });
  afterEach(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
    await cloud.close();
  });

  const syncNow = async () => {
    const round = await app.sync!.syncNow();
    expect(db.prepare('select last_error from sync_state').get()).toEqual({ last_error: null });
    return round!;
  };
  /** Head office changes a row the store sent it. */
  const editInCloud = async (table: SyncTableName, rowId: string, patch: Fields) => {
    const row = await cloud.services.sync.row(tenantId, locationId, table, rowId);
    expect(row).toBeDefined();
    await cloud.services.sync.writeFromCloud(tenantId, locationId, table, rowId, {
      ...row!.fields,
      ...patch,
    });
  };
  const events = (type: string) =>
    (
      db.prepare('select data from events where type = ? order by seq').all(type) as Array<{ data: string }>
    ).map((row) => JSON.parse(row.data) as Record<string, unknown>);
  /** Pulls the whole feed again from its start, then lands the whole snapshot again. */
  const landEverythingAgain = async () => {
    db.prepare('update sync_state set cursor = 0 where id = 1').run();
    expect((await syncNow()).pulled).toBeGreaterThan(0);
    db.prepare('update sync_state set initialized = 0 where id = 1').run();
    expect((await syncNow()).pulled).toBeGreaterThan(0);
  };

  function kitchenWithBurger() {
    const category = services.menu.createCategory({ name: 'Mains' });
    const burger = services.menu.createItem({ category_id: category.id, name: 'Burger', price_minor: 1000 });
    const station = services.kitchen.createStation({ name: 'Grill' });
    services.kitchen.routeItem(burger.id, station.id);
    return { burger, station };
  }

  async function sentOrder(menuItemId: string, quantity = 2) {
    const order = await services.orders.create({
      order_type: 'takeout',
      items: [{ menu_item_id: menuItemId, quantity }],
    });
    return services.sendOrder(order.id);
  }

  it('cancels a sent order, says so once, and takes its ticket off the kitchen’s screen', async () => {
    const { burger, station } = kitchenWithBurger();
    const order = await sentOrder(burger.id);
    expect(services.kitchen.board(station.id)).toHaveLength(1);
    await syncNow();

    await editInCloud('orders', order.id, { status: 'cancelled' });
    await syncNow();

    const stored = services.orders.get(order.id);
    expect(stored.status).toBe('cancelled');
    expect(events('order.cancelled')).toEqual([orderEventData(stored)]);
    expect(services.kitchen.board(station.id)).toEqual([]);
    expect(events('kds.ticket_updated')).toEqual([
      expect.objectContaining({ order_id: order.id, status: 'done' }),
    ]);
    // Nothing was deducted for an order never completed.
    expect(db.prepare('select count(*) as n from inventory_movements').get()).toEqual({ n: 0 });

    await landEverythingAgain();
    expect(events('order.cancelled')).toHaveLength(1);
    expect(events('kds.ticket_updated')).toHaveLength(1);
    // The event went up like any of the store's, once: head office's webhooks hear of the void.
    const cloudEvents = await cloud.services.events.list(cloud.store.db, tenantId, { limit: 100 });
    expect(cloudEvents.filter((e) => e.type === 'order.cancelled')).toHaveLength(1);
  });

  it('gives back the stock of an order the store completed while head office voided it', async () => {
    const { burger } = kitchenWithBurger();
    const buns = services.inventory.create({ name: 'Buns', unit: 'each', quantity: 10 });
    services.inventory.setRecipe(burger.id, [{ inventory_item_id: buns.id, quantity: 1 }]);
    const order = await sentOrder(burger.id, 2);
    await syncNow();

    // Apart: head office voids it while the store serves it. The store's completion conflicts,
    // and the cloud's row comes back as the winner.
    await editInCloud('orders', order.id, { status: 'cancelled' });
    services.orders.completeItem(order.id, order.items[0]!.id);
    services.completeOrder(order.id);
    expect(services.inventory.get(buns.id).current_quantity).toBe(8);
    const round = await syncNow();
    expect(round.conflicts).toBe(1);

    expect(services.orders.get(order.id).status).toBe('cancelled');
    expect(services.inventory.get(buns.id).current_quantity).toBe(10);
    expect(events('order.cancelled')).toHaveLength(1);
    const returned = db
      .prepare("select kind, delta_milli, reference from inventory_movements where kind = 'restock'")
      .all();
    expect(returned).toEqual([{ kind: 'restock', delta_milli: 2000, reference: order.id }]);
    // The return went up with the round: head office counts the same stock.
    const movements = (await cloud.services.sync.rows(tenantId, locationId, 'inventory_movements')).map(
      (row) => row.fields,
    );
    expect(movements.reduce((sum, m) => sum + Number(m?.delta_milli), 0)).toBe(10_000);

    await landEverythingAgain();
    expect(services.inventory.get(buns.id).current_quantity).toBe(10);
    expect(events('order.cancelled')).toHaveLength(1);
  });

  it('says a refund booked at head office once, for the amount given back each time', async () => {
    const { burger } = kitchenWithBurger();
    const order = await services.orders.create({
      order_type: 'takeout',
      items: [{ menu_item_id: burger.id, quantity: 1 }],
    });
    const payment = services.payments.record(order.id, {
      method: 'cash',
      amount_minor: Math.round(order.total * 100),
    });
    await syncNow();

    await editInCloud('payments', payment.id, { refunded_minor: 500 });
    await syncNow();
    await editInCloud('payments', payment.id, { refunded_minor: 800 });
    await syncNow();
    await landEverythingAgain();

    const refunds = events('payment.refunded');
    expect(refunds.map((r) => r.refund_amount)).toEqual([5, 3]);
    expect(refunds[1]).toMatchObject({ id: payment.id, order_id: order.id, method: 'cash' });
    expect(services.payments.get(payment.id).refunded).toBe(8);
  });

  it('says nothing of an order or a payment the store never had', async () => {
    await syncNow();
    const orderId = newId();
    const at = new Date().toISOString();
    await cloud.services.sync.writeFromCloud(tenantId, locationId, 'orders', orderId, {
      id: orderId,
      number: '900',
      business_day: at.slice(0, 10),
      order_type: 'takeout',
      status: 'cancelled',
      table_label: null,
      server_id: null,
      server_name: null,
      subtotal_minor: 1000,
      tax_minor: 0,
      total_minor: 1000,
      created_at: at,
      updated_at: at,
    });
    const paymentId = newId();
    await cloud.services.sync.writeFromCloud(tenantId, locationId, 'payments', paymentId, {
      id: paymentId,
      order_id: orderId,
      method: 'cash',
      status: 'captured',
      amount_minor: 1000,
      tip_minor: 0,
      refunded_minor: 1000,
      card_brand: null,
      card_last4: null,
      transaction_id: null,
      failure_reason: null,
      created_at: at,
      updated_at: at,
    });
    await syncNow();

    expect(services.orders.get(orderId).status).toBe('cancelled');
    expect(services.payments.get(paymentId).refunded).toBe(10);
    expect(events('order.cancelled')).toEqual([]);
    expect(events('payment.refunded')).toEqual([]);
  });
});
