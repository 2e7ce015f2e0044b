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
import { createSecretHasher } from '../../../cloud/identity/secrets.ts';
import { createManualClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const LOCATION = '01900000-0000-7000-8000-0000000000c3';
const MANAGER = '01900000-0000-7000-8000-000000000001';
const CASHIER = '01900000-0000-7000-8000-000000000002';
const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

describe('inventory routes', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let app: FastifyInstance;
  let services: ApplianceServices;
  let manager: string;
  let cashier: string;
  let burger: string;

  const call = (token: string | undefined, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    app.inject({
      method,
      url: `/v1/commerce${url}`,
      ...(payload ? { payload } : {}),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const login = async (identifier: string) => {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/auth/login/pin',
      payload: { identifier, pin: '123456' },
    });
    expect(response.statusCode).toBe(200);
    return response.json().status.access_token as string;
  };
  const events = () =>
    (
      db.prepare('select type, data from events order by seq').all() as Array<{ type: string; data: string }>
    ).map((row) => ({ type: row.type, data: JSON.parse(row.data) }));

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'inventory-routes-'));
    db = openApplianceDb(dir);
    const config = {
      ...loadApplianceConfig({
        TENANT_ID: TENANT,
        LOCATION_ID: LOCATION,
        APPLIANCE_TIMEZONE: 'America/New_York',
      }),
      logLevel: 'silent' as const,
    };
    const deps = { db, clock: createManualClock('2026-06-10T19:00:00.000Z'), newId, hasher };
    services = createApplianceServices(config, deps);
    app = await buildApplianceApp(config, deps, services);
    const mains = services.menu.createCategory({ name: 'Mains' });
    burger = services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 349 }).id;
    const staff = { email: '', pin: '123456', version: 1 };
    await services.auth.upsertStaff({
      ...staff,
      id: MANAGER,
      email: 'ann@acme.test',
      username: 'ann',
      displayName: 'Ann',
      roles: ['manager'],
    });
    await services.auth.upsertStaff({
      ...staff,
      id: CASHIER,
      email: 'bob@acme.test',
      username: 'bob',
      displayName: 'Bob',
      roles: ['staff'],
    });
    manager = await login('ann');
    cashier = await login('bob');
    db.exec('delete from events');
  });
  afterEach(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const createItem = async (body: object) => {
    const response = await call(manager, 'POST', '/inventory/items', body);
    expect(response.statusCode).toBe(201);
    return response.json().data.id as string;
  };
  const stock = async () =>
    Object.fromEntries(
      (await call(cashier, 'GET', '/inventory/items'))
        .json()
        .data.map((i: { name: string; current_quantity: number }) => [i.name, i.current_quantity]),
    );

  it('deducts a completed order’s recipe once, and says when stock runs low', async () => {
    const bun = await createItem({ name: 'Bun', unit: 'each', quantity: 10, reorder_level: 9 });
    const patty = await createItem({ name: 'Beef', unit: 'kg', quantity: 5 });
    const recipe = await call(manager, 'PUT', `/menu/items/${burger}/recipe`, {
      components: [
        { inventory_item_id: bun, quantity: 1 },
        { inventory_item_id: patty, quantity: 0.15 },
      ],
    });
    expect(recipe.statusCode).toBe(200);
    expect(recipe.json().data.components).toHaveLength(2);

    const created = await call(cashier, 'POST', '/orders', {
      order_type: 'takeout',
      items: [{ menu_item_id: burger, quantity: 2 }],
    });
    const order = created.json().data as { id: string; items: Array<{ id: string }> };
    await call(cashier, 'POST', `/orders/${order.id}/send`);
    await call(cashier, 'POST', `/orders/${order.id}/items/${order.items[0]?.id}/complete`);
    db.exec('delete from events');
    expect((await call(cashier, 'POST', `/orders/${order.id}/complete`)).statusCode).toBe(200);
    expect(await stock()).toEqual({ Bun: 8, Beef: 4.7 });
    expect(events().map((e) => e.type)).toEqual([
      'order.completed',
      'inventory.updated',
      'inventory.low_stock',
      'inventory.updated',
    ]);
    expect(events()[2]?.data).toMatchObject({ item_id: bun, name: 'Bun', current_quantity: 8 });

    expect((await call(cashier, 'POST', `/orders/${order.id}/complete`)).statusCode).toBe(409);
    expect(await stock()).toEqual({ Bun: 8, Beef: 4.7 });
  });

  it('restocks and counts for staff, and keeps items and recipes to managers', async () => {
    expect((await call(cashier, 'POST', '/inventory/items', { name: 'Bun', unit: 'each' })).statusCode).toBe(
      403,
    );
    const bun = await createItem({ name: 'Bun', unit: 'each', quantity: 2 });
    expect((await call(cashier, 'PUT', `/menu/items/${burger}/recipe`, { components: [] })).statusCode).toBe(
      403,
    );
    const restocked = await call(cashier, 'POST', `/inventory/items/${bun}/restock`, { quantity: 10 });
    expect(restocked.json().data.current_quantity).toBe(12);
    const counted = await call(cashier, 'POST', `/inventory/items/${bun}/count`, { quantity: 11 });
    expect(counted.json().data.current_quantity).toBe(11);
    const zero = await call(cashier, 'POST', `/inventory/items/${bun}/restock`, { quantity: 0 });
    expect(zero.statusCode).toBe(400);
    expect(zero.json().error.details[0].field).toBe('body.quantity');
  });

  it('answers 404 for an unknown stock item or menu item, and 409 for a taken name', async () => {
    const unknown = '01900000-0000-7000-8000-0000000000ff';
    const bun = await createItem({ name: 'Bun', unit: 'each' });
    const missing = await call(cashier, 'POST', `/inventory/items/${unknown}/restock`, { quantity: 1 });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('INVENTORY_ITEM_NOT_FOUND');
    const noMenuItem = await call(manager, 'PUT', `/menu/items/${unknown}/recipe`, {
      components: [{ inventory_item_id: bun, quantity: 1 }],
    });
    expect(noMenuItem.statusCode).toBe(404);
    const taken = await call(manager, 'POST', '/inventory/items', { name: 'Bun', unit: 'each' });
    expect(taken.statusCode).toBe(409);
  });
});
