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
import { systemClock } from '../../../shared/clock.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';
import { createTestCloud, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';

const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

/** A real cloud on loopback and a real appliance syncing with it over HTTP. */
describe.each(backends)('appliance and cloud in sync (%s)', (backend) => {
  let cloud: TestCloud;
  let dir: string;
  let db: ApplianceDatabase;
  let app: FastifyInstance;
  let services: ApplianceServices;
  let tenantId: string;
  let locationId: string;
  let cloudUrl: string;

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    const seeded = await seedTenant(cloud.services, 'acme');
    tenantId = seeded.tenant.id;
    locationId = seeded.location.id;
    await cloud.services.tenancy.addUser(tenantId, {
      email: 'bob@acme.test',
      username: 'bob',
      pin: '123456',
      roles: ['staff'],
    });
    cloudUrl = await cloud.app.listen({ host: '127.0.0.1', port: 0 });
    const { credential } = await cloud.services.sync.provisionAppliance(tenantId, {
      location_id: locationId,
    });
    dir = mkdtempSync(join(tmpdir(), 'appliance-sync-'));
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
    expect(round).toBeDefined();
    return round!;
  };

  it('stops at once while its wait request is open at the cloud', async () => {
    app.sync!.start();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = Date.now();
    await app.sync!.stop();
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('brings the cloud’s staff down, so a PIN set in the cloud signs in at the store', async () => {
    await syncNow();
    const login = await app.inject({
      method: 'POST',
      url: '/v1/auth/login/pin',
      payload: { identifier: 'bob', pin: '123456' },
    });
    expect(login.statusCode).toBe(200);
  });

  it('pushes orders, items, payments and events, once, and the cloud keeps them', async () => {
    const category = services.menu.createCategory({ name: 'Mains' });
    const burger = services.menu.createItem({ category_id: category.id, name: 'Burger', price_minor: 1000 });
    const order = await services.orders.create({
      order_type: 'takeout',
      items: [{ menu_item_id: burger.id, quantity: 2 }],
    });
    const totalMinor = Math.round(order.total * 100);
    services.payments.record(order.id, { method: 'cash', amount_minor: totalMinor });

    const round = await syncNow();
    expect(round.pushed).toBeGreaterThanOrEqual(6);
    expect(round.conflicts + round.rejected).toBe(0);
    expect(await cloud.services.sync.row(tenantId, locationId, 'orders', order.id)).toMatchObject({
      fields: { total_minor: totalMinor, status: 'open' },
    });
    expect(await cloud.services.sync.rows(tenantId, locationId, 'payments')).toHaveLength(1);
    const events = await cloud.services.events.list(cloud.store.db, tenantId, { limit: 50 });
    expect(events.map((e) => e.type)).toEqual(
      expect.arrayContaining(['menu.item_updated', 'order.created', 'payment.processed']),
    );
    const status = await app.inject({ method: 'GET', url: '/v1/sync/status' });
    expect(status.statusCode).toBe(401);
    const again = await syncNow();
    expect(again.pushed).toBe(0);
  });

  it('takes a price set in the cloud, and lets the cloud win a price changed on both sides', async () => {
    const category = services.menu.createCategory({ name: 'Mains' });
    const burger = services.menu.createItem({ category_id: category.id, name: 'Burger', price_minor: 1000 });
    await syncNow();
    const cloudRow = await cloud.services.sync.row(tenantId, locationId, 'menu_items', burger.id);
    await cloud.services.sync.writeFromCloud(tenantId, locationId, 'menu_items', burger.id, {
      ...cloudRow!.fields,
      price_minor: 1250,
    });
    await syncNow();
    expect(services.menu.getItem(burger.id).price_minor).toBe(1250);

    // Both sides change it while apart: the store's change conflicts and the cloud's price stands.
    const latest = await cloud.services.sync.row(tenantId, locationId, 'menu_items', burger.id);
    await cloud.services.sync.writeFromCloud(tenantId, locationId, 'menu_items', burger.id, {
      ...latest!.fields,
      price_minor: 1400,
    });
    services.menu.changePrice(burger.id, 1300);
    const round = await syncNow();
    expect(round.conflicts).toBe(1);
    expect(services.menu.getItem(burger.id).price_minor).toBe(1400);
    expect(
      (await cloud.services.sync.row(tenantId, locationId, 'menu_items', burger.id))?.fields,
    ).toMatchObject({
      price_minor: 1400,
    });
    expect((await cloud.services.sync.status(tenantId, locationId)).conflicts_24h).toBe(1);
  });

  it('drops the store’s later edits of a row the cloud won, instead of sending them over its row', async () => {
    const category = services.menu.createCategory({ name: 'Mains' });
    const burger = services.menu.createItem({ category_id: category.id, name: 'Burger', price_minor: 1000 });
    await syncNow();
    const cloudRow = await cloud.services.sync.row(tenantId, locationId, 'menu_items', burger.id);
    await cloud.services.sync.writeFromCloud(tenantId, locationId, 'menu_items', burger.id, {
      ...cloudRow!.fields,
      price_minor: 1400,
    });
    services.menu.changePrice(burger.id, 1300);
    services.menu.changePrice(burger.id, 1350);
    const round = await syncNow();
    expect(round.conflicts).toBeGreaterThanOrEqual(1);
    expect(services.menu.getItem(burger.id).price_minor).toBe(1400);
    expect(
      (await cloud.services.sync.row(tenantId, locationId, 'menu_items', burger.id))?.fields,
    ).toMatchObject({ price_minor: 1400 });
    const outcomes = db
      .prepare("select outcome from outbox where table_name = 'menu_items' and row_id = ? order by seq")
      .all(burger.id)
      .map((row) => (row as { outcome: string }).outcome);
    expect(outcomes.slice(-2)).toEqual(['conflict', 'superseded']);

    // The store's next edit builds on the cloud's row and is taken.
    services.menu.changePrice(burger.id, 1450);
    expect((await syncNow()).conflicts).toBe(0);
    expect(
      (await cloud.services.sync.row(tenantId, locationId, 'menu_items', burger.id))?.fields,
    ).toMatchObject({ price_minor: 1450 });
  });

  it('keeps a much-corrected punch’s document small on both sides, with every field right', async () => {
    const staffId = newId();
    const punch = services.timeclock.punch(staffId, 'clock_in');
    services.timeclock.punch(staffId, 'clock_out');
    const base = Date.parse(punch.at);
    for (let i = 1; i <= 150; i += 1) {
      services.timeclock.correct(punch.id, {
        at: new Date(base - i * 1000).toISOString(),
        managerId: newId(),
        reason: `correction ${i}`,
      });
    }
    await syncNow();
    const local = db.prepare('select doc, reason from time_punches where id = ?').get(punch.id) as {
      doc: string;
      reason: string;
    };
    expect(local.reason).toBe('correction 150');
    expect(Buffer.from(local.doc, 'base64').byteLength).toBeLessThan(8192);
    const row = await cloud.services.sync.row(tenantId, locationId, 'time_punches', punch.id);
    expect(row?.fields).toMatchObject({
      reason: 'correction 150',
      at: new Date(base - 150_000).toISOString(),
    });
    expect(Buffer.from(row!.doc!, 'base64').byteLength).toBeLessThan(8192);
  });

  it('starts a replacement appliance from the cloud’s snapshot: orders with items, stock and punches', async () => {
    const category = services.menu.createCategory({ name: 'Mains' });
    const burger = services.menu.createItem({ category_id: category.id, name: 'Burger', price_minor: 1000 });
    const buns = services.inventory.create({ name: 'Buns', unit: 'each', quantity: 10 });
    services.inventory.setRecipe(burger.id, [{ inventory_item_id: buns.id, quantity: 1 }]);
    const station = services.kitchen.createStation({ name: 'Grill' });
    services.kitchen.routeItem(burger.id, station.id);
    const order = await services.orders.create({
      order_type: 'takeout',
      items: [{ menu_item_id: burger.id, quantity: 2 }],
    });
    services.payments.record(order.id, { method: 'cash', amount_minor: Math.round(order.total * 100) });
    services.inventory.restock(buns.id, 5);
    services.timeclock.punch(newId(), 'clock_in');
    await syncNow();
    await cloud.services.sync.writeFromCloud(tenantId, locationId, 'inventory_movements', 'delivery-1', {
      id: 'delivery-1',
      inventory_item_id: buns.id,
      kind: 'restock',
      delta_milli: 12_000,
      reference: 'head office delivery',
      created_at: new Date().toISOString(),
    });

    const { credential } = await cloud.services.sync.provisionAppliance(tenantId, {
      location_id: locationId,
    });
    const freshDir = mkdtempSync(join(tmpdir(), 'appliance-sync-fresh-'));
    const freshDb = openApplianceDb(freshDir);
    try {
      const config = {
        ...loadApplianceConfig({
          TENANT_ID: tenantId,
          LOCATION_ID: locationId,
          CLOUD_URL: cloudUrl,
          APPLIANCE_CLOUD_CREDENTIAL: credential,
        }),
        logLevel: 'silent' as const,
      };
      const deps = { db: freshDb, clock: systemClock, newId, hasher };
      const fresh = createApplianceServices(config, deps);
      const freshApp = await buildApplianceApp(config, deps, fresh);
      try {
        const round = await freshApp.sync!.syncNow();
        expect(freshDb.prepare('select last_error from sync_state').get()).toEqual({ last_error: null });
        expect(round?.pulled).toBeGreaterThan(8);
        expect(fresh.orders.get(order.id).items).toHaveLength(1);
        expect(fresh.inventory.get(buns.id).current_quantity).toBe(10 + 5 + 12);
        expect(freshDb.prepare('select count(*) as n from payments').get()).toEqual({ n: 1 });
        expect(freshDb.prepare('select count(*) as n from station_items').get()).toEqual({ n: 1 });
        expect(freshDb.prepare('select count(*) as n from time_punches').get()).toEqual({ n: 1 });
        expect(freshDb.pragma('foreign_key_check')).toEqual([]);
      } finally {
        await freshApp.close();
      }
    } finally {
      freshDb.close();
      rmSync(freshDir, { recursive: true, force: true });
    }
  });
});
