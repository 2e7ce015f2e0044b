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
import { createManualClock } from '../../../shared/clock.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const LOCATION = '01900000-0000-7000-8000-0000000000c3';
const UNKNOWN = '01900000-0000-7000-8000-0000000000ff';
const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

describe('menu routes', () => {
  let dir: string;
  let db: ApplianceDatabase;
  let app: FastifyInstance;
  let services: ApplianceServices;
  let mains: string;
  let manager: string;
  let cashier: string;

  const call = (
    token: string | undefined,
    method: 'GET' | 'POST' | 'PUT' | 'PATCH',
    url: string,
    payload?: object,
  ) =>
    app.inject({
      method,
      url: `/v1/commerce${url}`,
      ...(payload ? { payload } : {}),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  const addStaff = async (id: string, username: string, roles: string[]) => {
    await services.auth.upsertStaff({
      id,
      email: `${username}@acme.test`,
      username,
      displayName: username,
      roles,
      pin: '123456',
      version: 1,
    });
    const response = await app.inject({
      method: 'POST',
      url: '/v1/auth/login/pin',
      payload: { identifier: username, pin: '123456' },
    });
    return response.json().status.access_token as string;
  };
  const eventTypes = () =>
    (db.prepare('select type from events order by seq').all() as Array<{ type: string }>).map((e) => e.type);

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'menu-routes-'));
    db = openApplianceDb(dir);
    const config = {
      ...loadApplianceConfig({ TENANT_ID: TENANT, LOCATION_ID: LOCATION }),
      logLevel: 'silent' as const,
    };
    const deps = { db, clock: createManualClock('2026-06-10T19:00:00.000Z'), newId, hasher };
    services = createApplianceServices(config, deps);
    app = await buildApplianceApp(config, deps, services);
    mains = services.menu.createCategory({ name: 'Mains' }).id;
    manager = await addStaff('01900000-0000-7000-8000-000000000001', 'ann', ['manager']);
    cashier = await addStaff('01900000-0000-7000-8000-000000000002', 'bob', ['staff']);
    db.exec('delete from events');
  });
  afterEach(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets a manager add and price items, and any staff list them and mark them sold out', async () => {
    const created = await call(manager, 'POST', '/menu/items', {
      category_id: mains,
      name: 'Burger',
      price_minor: 349,
    });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id as string;
    expect(created.json().data).toMatchObject({
      name: 'Burger',
      price_minor: 349,
      available: true,
      version: 1,
    });

    const priced = await call(manager, 'PUT', `/menu/items/${id}/price`, { price_minor: 399 });
    expect(priced.json().data).toMatchObject({ price_minor: 399, version: 2 });
    const soldOut = await call(cashier, 'PUT', `/menu/items/${id}/availability`, { available: false });
    expect(soldOut.json().data).toMatchObject({ available: false, version: 3 });

    const categories = await call(cashier, 'GET', '/menu/categories');
    expect(categories.json().data.map((c: { name: string }) => c.name)).toEqual(['Mains']);
    const items = await call(cashier, 'GET', `/menu/items?category_id=${mains}`);
    expect(items.json().data).toEqual([expect.objectContaining({ id, price_minor: 399, available: false })]);
    expect(eventTypes()).toEqual(['menu.item_updated', 'menu.price_changed', 'menu.item_availability']);
  });

  it('keeps adding items and changing prices to managers', async () => {
    const item = services.menu.createItem({ category_id: mains, name: 'Fries', price_minor: 199 });
    const add = await call(cashier, 'POST', '/menu/items', {
      category_id: mains,
      name: 'Shake',
      price_minor: 450,
    });
    expect(add.statusCode).toBe(403);
    expect((await call(cashier, 'PUT', `/menu/items/${item.id}/price`, { price_minor: 1 })).statusCode).toBe(
      403,
    );
    expect(services.menu.getItem(item.id).price_minor).toBe(199);
    expect((await call(undefined, 'GET', '/menu/items')).statusCode).toBe(401);
  });

  it('answers 400 for bad bodies and ids, and 404 for an unknown item', async () => {
    const negative = await call(manager, 'POST', '/menu/items', {
      category_id: mains,
      name: 'X',
      price_minor: -1,
    });
    expect(negative.statusCode).toBe(400);
    expect(negative.json().error.details[0].field).toBe('body.price_minor');
    const extra = await call(manager, 'PUT', `/menu/items/${UNKNOWN}/price`, { price_minor: 1, price: 1 });
    expect(extra.statusCode).toBe(400);
    const noCategory = await call(manager, 'POST', '/menu/items', {
      category_id: UNKNOWN,
      name: 'X',
      price_minor: 1,
    });
    expect(noCategory.json().error.details).toEqual([
      { field: 'body.category_id', message: expect.any(String) },
    ]);
    expect((await call(manager, 'PUT', '/menu/items/nope/price', { price_minor: 1 })).statusCode).toBe(400);
    const missing = await call(cashier, 'PUT', `/menu/items/${UNKNOWN}/availability`, { available: true });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('MENU_ITEM_NOT_FOUND');
  });

  it('lets a manager add, rename and move categories, each change queued for the cloud', async () => {
    const drinks = await call(manager, 'POST', '/menu/categories', { name: 'Drinks' });
    expect(drinks.statusCode, drinks.body).toBe(201);
    expect(drinks.json().data).toMatchObject({ name: 'Drinks', position: 1, version: 1 });
    const id = drinks.json().data.id as string;
    const sides = await call(manager, 'POST', '/menu/categories', { name: 'Sides', position: 0 });
    expect(sides.json().data).toMatchObject({ name: 'Sides', position: 0 });

    const renamed = await call(manager, 'PATCH', `/menu/categories/${id}`, {
      name: 'Cold drinks',
      position: 5,
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(renamed.json().data).toMatchObject({ id, name: 'Cold drinks', position: 5, version: 2 });
    const listed = await call(cashier, 'GET', '/menu/categories');
    expect(listed.json().data.map((c: { name: string }) => c.name)).toEqual([
      'Mains',
      'Sides',
      'Cold drinks',
    ]);
    // A new store builds its menu this way: items go into the category it just made.
    const item = await call(manager, 'POST', '/menu/items', {
      category_id: id,
      name: 'Cola',
      price_minor: 250,
    });
    expect(item.statusCode, item.body).toBe(201);

    const queued = db
      .prepare(
        "select operation, row_version as version from outbox where table_name = 'menu_categories' and row_id = ? order by seq",
      )
      .all(id);
    expect(queued).toEqual([
      { operation: 'insert', version: 1 },
      { operation: 'update', version: 2 },
    ]);
  });

  it('keeps categories to managers, and answers 400, 404 and 409 in the envelope', async () => {
    const byCashier = await call(cashier, 'POST', '/menu/categories', { name: 'Desserts' });
    expect(byCashier.statusCode).toBe(403);
    expect((await call(cashier, 'PATCH', `/menu/categories/${mains}`, { name: 'X' })).statusCode).toBe(403);
    expect((await call(undefined, 'POST', '/menu/categories', { name: 'X' })).statusCode).toBe(401);

    const taken = await call(manager, 'POST', '/menu/categories', { name: 'Mains' });
    expect(taken.statusCode).toBe(409);
    expect(taken.json().error.code).toBe('MENU_CATEGORY_NAME_TAKEN');
    for (const body of [
      {},
      { name: '' },
      { name: 'X', position: -1 },
      { name: 'X', position: '2' },
      { name: 'X', extra: 1 },
    ]) {
      const refused = await call(manager, 'POST', '/menu/categories', body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json().error.code).toBe('INVALID_REQUEST');
    }
    const emptyPatch = await call(manager, 'PATCH', `/menu/categories/${mains}`, {});
    expect(emptyPatch.statusCode).toBe(400);
    expect((await call(manager, 'PATCH', '/menu/categories/nope', { name: 'X' })).statusCode).toBe(400);
    const unknown = await call(manager, 'PATCH', `/menu/categories/${UNKNOWN}`, { name: 'X' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().error.code).toBe('MENU_CATEGORY_NOT_FOUND');
    expect(services.menu.listCategories().map((c) => c.name)).toEqual(['Mains']);
  });
});
