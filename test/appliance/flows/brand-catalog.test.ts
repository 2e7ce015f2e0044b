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
import { storeRowId } from '../../../cloud/commerce/catalog.ts';
import { systemClock } from '../../../shared/clock.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';
import { createTestCloud, seedTenant, type TestCloud } from '../../support/cloud.ts';
import { backends } from '../../support/stores.ts';

const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

/** Head office defines a brand's menu, stock and kitchen; a real appliance of the brand pulls them. */
describe.each(backends)('a brand’s catalog at a real store (%s)', (backend) => {
  let cloud: TestCloud;
  let dir: string;
  let db: ApplianceDatabase;
  let app: FastifyInstance;
  let services: ApplianceServices;
  let tenantId: string;
  let brandId: string;
  let locationId: string;

  beforeEach(async () => {
    cloud = await createTestCloud(backend);
    const seeded = await seedTenant(cloud.services, `brand-${newId().slice(0, 8)}`);
    tenantId = seeded.tenant.id;
    brandId = seeded.brand.id;
    locationId = seeded.location.id;
    const cloudUrl = await cloud.app.listen({ host: '127.0.0.1', port: 0 });
    const { credential } = await cloud.services.sync.provisionAppliance(tenantId, {
      location_id: locationId,
    });
    dir = mkdtempSync(join(tmpdir(), 'appliance-brand-catalog-'));
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

  async function brandCatalog() {
    const menu = cloud.services.menu;
    const category = await menu.createCategory(tenantId, { brand_id: brandId, name: 'Mains' });
    const burger = await menu.createItem(tenantId, {
      brand_id: brandId,
      category_id: category.id,
      name: 'Burger',
      price_minor: 1000,
    });
    const buns = await menu.stock.createItem(tenantId, {
      brand_id: brandId,
      name: 'Buns',
      unit: 'each',
      reorder_level_milli: 5000,
    });
    const beef = await menu.stock.createItem(tenantId, { brand_id: brandId, name: 'Beef', unit: 'kg' });
    await menu.stock.setRecipe(tenantId, burger.id, [
      { stock_item_id: buns.id, quantity_milli: 1000 },
      { stock_item_id: beef.id, quantity_milli: 150 },
    ]);
    const cold = await menu.kitchen.createStation(tenantId, { brand_id: brandId, name: 'Cold', position: 0 });
    const grill = await menu.kitchen.createStation(tenantId, {
      brand_id: brandId,
      name: 'Grill',
      position: 1,
    });
    await menu.kitchen.route(tenantId, burger.id, grill.id);
    await menu.settle();
    return { burger, buns, beef, cold, grill };
  }

  it('sells the brand’s item, tickets it at the brand’s station and deducts the brand’s recipe', async () => {
    const { burger, buns, beef, grill } = await brandCatalog();
    await syncNow();
    const at = (id: string) => storeRowId(id, locationId);
    services.inventory.restock(at(buns.id), 10);
    services.inventory.restock(at(beef.id), 2);
    expect(services.inventory.get(at(buns.id))).toMatchObject({ name: 'Buns', reorder_level: 5 });

    const order = await services.orders.create({
      order_type: 'takeout',
      items: [{ menu_item_id: at(burger.id), quantity: 2 }],
    });
    const sent = services.sendOrder(order.id);
    expect(services.kitchen.board(at(grill.id))).toHaveLength(1);
    services.orders.completeItem(order.id, sent.items[0]!.id);
    services.completeOrder(order.id);
    expect(services.inventory.get(at(buns.id)).current_quantity).toBe(8);
    expect(services.inventory.get(at(beef.id)).current_quantity).toBeCloseTo(1.7);

    // The store's movements reach head office's stock levels.
    await syncNow();
    const levels = await cloud.services.menu.stock.levels({ tenantId }, locationId, { limit: 50 });
    expect(Object.fromEntries(levels.items.map((l) => [l.name, l.quantity_milli]))).toEqual({
      Buns: 8000,
      Beef: 1700,
    });
  });
});
