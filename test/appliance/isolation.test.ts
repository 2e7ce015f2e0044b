import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApplianceApp, createApplianceServices } from '../../appliance/app.ts';
import { loadApplianceConfig } from '../../appliance/config.ts';
import { openApplianceDb } from '../../appliance/db/index.ts';
import { createManualClock } from '../../shared/clock.ts';
import { createSecretHasher } from '../../shared/identity/secrets.ts';
import { newId } from '../../shared/ids.ts';

const TENANT = '01900000-0000-7000-8000-0000000000a1';
const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });

/** One store's appliance, in-process, with a cashier and a menu item. */
async function store(locationId: string, cleanups: Array<() => unknown>) {
  const dir = mkdtempSync(join(tmpdir(), 'store-'));
  const db = openApplianceDb(dir);
  const config = {
    ...loadApplianceConfig({ TENANT_ID: TENANT, LOCATION_ID: locationId }),
    logLevel: 'silent' as const,
  };
  const deps = { db, clock: createManualClock('2026-06-10T19:00:00.000Z'), newId, hasher };
  const services = createApplianceServices(config, deps);
  const app = await buildApplianceApp(config, deps, services);
  cleanups.push(async () => {
    await app.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  await services.auth.upsertStaff({
    id: newId(),
    email: `cashier@${locationId}.test`,
    username: 'cashier',
    displayName: 'Cashier',
    roles: ['manager'],
    pin: '123456',
    version: 1,
  });
  const mains = services.menu.createCategory({ name: 'Mains' });
  const burger = services.menu.createItem({ category_id: mains.id, name: 'Burger', price_minor: 349 }).id;
  const login = await app.inject({
    method: 'POST',
    url: '/v1/auth/login/pin',
    payload: { identifier: 'cashier', pin: '123456' },
  });
  const token = login.json().status.access_token as string;
  const call = (method: 'GET' | 'POST', url: string, payload?: object, as = token) =>
    app.inject({
      method,
      url: `/v1/commerce${url}`,
      headers: { authorization: `Bearer ${as}` },
      ...(payload ? { payload } : {}),
    });
  const counts = () =>
    db
      .prepare(
        'select (select count(*) from orders) o, (select count(*) from outbox) x, (select count(*) from events) e',
      )
      .get();
  return { burger, token, call, counts };
}

describe('another location’s ids', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  it('are unknown here, and its appliance tokens are refused, changing nothing', async () => {
    const here = await store('01900000-0000-7000-8000-0000000000c1', cleanups);
    const there = await store('01900000-0000-7000-8000-0000000000c2', cleanups);
    const theirs = (
      await there.call('POST', '/orders', {
        order_type: 'takeout',
        items: [{ menu_item_id: there.burger, quantity: 1 }],
      })
    ).json().data;
    const before = here.counts();

    expect((await here.call('GET', `/orders/${theirs.id}`)).statusCode).toBe(404);
    expect((await here.call('POST', `/orders/${theirs.id}/cancel`)).statusCode).toBe(404);
    expect(
      (await here.call('POST', `/orders/${theirs.id}/payments`, { method: 'cash', amount: 1 })).statusCode,
    ).toBe(404);
    const foreignItem = await here.call('POST', '/orders', {
      order_type: 'takeout',
      items: [{ menu_item_id: there.burger, quantity: 1 }],
    });
    expect(foreignItem.statusCode).toBe(400);
    expect(foreignItem.json().error.details[0].field).toBe('body.items.0.menu_item_id');
    // The other store's appliance signs with its own key: its tokens mean nothing here.
    const foreignToken = await here.call('GET', `/orders/${theirs.id}`, undefined, there.token);
    expect(foreignToken.statusCode).toBe(401);
    expect(here.counts()).toEqual(before);
  });
});
