/**
 * Opening a store and running it from head office, as a new restaurant group does: real cloud and
 * appliance processes, nothing seeded in the store. Head office creates the store and its menu
 * through the cloud's API, registers the appliance, and the appliance starts on an empty data
 * directory with its enrolment token; then the store sells, and head office sees, voids, refunds
 * and corrects a punch while the store edits it too. On SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Client, client, createTenantWithAdmin, ok, signIn } from '../support/json-client.ts';
import { kill, type Started, startProcess, waitFor } from '../support/processes.ts';
import { backends, cloudStoreEnv } from '../support/stores.ts';

const PASSWORD = 'head-office-password';
const FIRST_ORDER_DEADLINE_MS = 60_000;

/** Polls `check` until it answers something, failing with `what` after the deadline. */
const eventually = <T>(what: string, check: () => Promise<T | undefined>, ms = 30_000) =>
  waitFor(what, check, ms);

describe.each(backends)('head office opens a store and runs it from the cloud (%s)', (backend) => {
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('opens a store without a seed, sells there, and voids, refunds and corrects from head office', async () => {
    // A tenant and its first admin, as the operator CLI makes them; everything else goes through the API.
    const cloudDir = mkdtempSync(join(tmpdir(), 'head-office-cloud-'));
    cleanups.push(() => rmSync(cloudDir, { recursive: true, force: true }));
    const cloudEnv = {
      ...(await cloudStoreEnv(backend, cloudDir)),
      CLOUD_HOST: '127.0.0.1',
      CLOUD_PORT: '0',
      CLOUD_RATE_LIMIT: 'false',
      LOG_LEVEL: 'info',
    };
    const tenantId = await createTenantWithAdmin(
      cloudEnv,
      { slug: 'newco', name: 'New Co', tier: 'professional' },
      { email: 'owner@newco.test', password: PASSWORD },
    );
    const cloudProcess: Started = await startProcess('cloud/main.ts', cloudEnv, /cloud listening/);
    cleanups.push(() => kill(cloudProcess.child, 'SIGTERM'));
    const cloudUrl = `http://127.0.0.1:${cloudProcess.port}`;
    const cloud: Client = client(cloudUrl, await signIn(cloudUrl, 'owner@newco.test', PASSWORD));

    // The group: a brand, a region, the store, a manager with a PIN, the brand's menu.
    const brand = await ok<{ id: string }>(cloud('POST', '/v1/platform/brands', { name: 'Burgers' }), 201);
    const region = await ok<{ id: string }>(cloud('POST', '/v1/platform/regions', { name: 'North' }), 201);
    const location = await ok<{ id: string }>(
      cloud('POST', '/v1/platform/locations', {
        name: 'High Street',
        brand_id: brand.id,
        region_id: region.id,
      }),
      201,
    );
    await ok(
      cloud('POST', '/v1/platform/users', {
        email: 'manager@newco.test',
        username: 'manager',
        pin: '482913',
        display_name: 'Morgan Manager',
        roles: ['manager'],
      }),
      201,
    );
    const category = await ok<{ id: string }>(
      cloud('POST', '/v1/commerce/menu/categories', { brand_id: brand.id, name: 'Burgers' }),
      201,
    );
    await ok(
      cloud('POST', '/v1/commerce/menu/items', {
        brand_id: brand.id,
        category_id: category.id,
        name: 'Cheeseburger',
        price_minor: 949,
      }),
      201,
    );
    await ok(
      cloud('POST', '/v1/commerce/menu/items', {
        brand_id: brand.id,
        category_id: category.id,
        name: 'Fries',
        price_minor: 349,
      }),
      201,
    );
    const device = await ok<{ enrollment_token: string }>(
      cloud('POST', '/v1/mdm/devices', {
        location_id: location.id,
        device_type: 'appliance',
        name: 'High Street appliance',
        serial_number: 'APL-HIGH-1',
      }),
      201,
    );

    // The appliance on an empty data directory, with its enrolment token.
    const applianceDir = mkdtempSync(join(tmpdir(), 'head-office-appliance-'));
    cleanups.push(() => rmSync(applianceDir, { recursive: true, force: true }));
    const started = performance.now();
    const applianceProcess = await startProcess(
      'appliance/main.ts',
      {
        TENANT_ID: tenantId,
        LOCATION_ID: location.id,
        APPLIANCE_DATA_DIR: applianceDir,
        APPLIANCE_PORT: '0',
        APPLIANCE_HOST: '127.0.0.1',
        APPLIANCE_MQTT_TLS_PORT: '0',
        CLOUD_URL: cloudUrl,
        APPLIANCE_ENROLLMENT_TOKEN: device.enrollment_token,
        LOG_LEVEL: 'info',
      },
      /appliance listening/,
    );
    cleanups.push(() => kill(applianceProcess.child, 'SIGTERM'));
    const storeUrl = `http://127.0.0.1:${applianceProcess.port}`;

    // The manager signs in by PIN once the staff have synced, and sells once the menu has.
    const pin = await eventually('the manager at the store', async () => {
      const reply = await client(storeUrl)('POST', '/v1/auth/login/pin', {
        identifier: 'manager',
        pin: '482913',
      });
      return reply.status === 200
        ? (reply.body as { status: { access_token: string } }).status.access_token
        : undefined;
    });
    const store = client(storeUrl, pin);
    const menu = await eventually('the brand’s menu at the store', async () => {
      const items = await ok<Array<{ id: string; name: string; price_minor: number }>>(
        store('GET', '/v1/commerce/menu/items'),
      );
      return items.length === 2 ? items : undefined;
    });
    const at = (name: string) => menu.find((item) => item.name === name)!;
    expect(at('Cheeseburger').price_minor).toBe(949);
    const sold = await ok<{ id: string; number: string; total: number }>(
      store('POST', '/v1/commerce/orders', {
        order_type: 'takeout',
        items: [
          { menu_item_id: at('Cheeseburger').id, quantity: 1 },
          { menu_item_id: at('Fries').id, quantity: 2 },
        ],
      }),
      201,
    );
    expect(performance.now() - started).toBeLessThan(FIRST_ORDER_DEADLINE_MS);
    const paid = await ok<{ id: string }>(
      store('POST', `/v1/commerce/orders/${sold.id}/payments`, { method: 'cash', amount: sold.total }),
      201,
    );

    // Head office sees the sale within seconds, with the store's own ids and figures.
    const listed = await eventually('the order in the cloud', async () => {
      const page = await ok<{ items: Array<Record<string, unknown>> }>(
        cloud('GET', `/v1/commerce/orders?location_id=${location.id}`),
      );
      return page.items.find((order) => order.id === sold.id);
    });
    expect(listed).toMatchObject({ number: sold.number, location_id: location.id, total: sold.total });

    // A void from head office reaches the store.
    const second = await ok<{ id: string }>(
      store('POST', '/v1/commerce/orders', {
        order_type: 'dine_in',
        items: [{ menu_item_id: at('Cheeseburger').id, quantity: 1 }],
      }),
      201,
    );
    await ok(store('POST', `/v1/commerce/orders/${second.id}/send`));
    await eventually('the second order in the cloud as sent', async () => {
      const reply = await cloud('GET', `/v1/commerce/orders/${second.id}`);
      return reply.status === 200 && (reply.body.data as { status: string }).status === 'sent'
        ? true
        : undefined;
    });
    expect(
      await ok<{ status: string }>(cloud('POST', `/v1/commerce/orders/${second.id}/cancel`)),
    ).toMatchObject({
      status: 'cancelled',
    });
    await eventually('the void at the store', async () => {
      const order = await ok<{ status: string }>(store('GET', `/v1/commerce/orders/${second.id}`));
      return order.status === 'cancelled' ? true : undefined;
    });

    // A refund from head office reaches the store, and never more than was paid.
    const refundUrl = `/v1/commerce/payments/${paid.id}/refund`;
    await eventually('the payment in the cloud', async () =>
      (await cloud('GET', `/v1/commerce/orders/${sold.id}`)).body.data &&
      ((await cloud('GET', `/v1/commerce/orders/${sold.id}`)).body.data as { payments: unknown[] }).payments
        .length === 1
        ? true
        : undefined,
    );
    expect((await cloud('POST', refundUrl, { amount_minor: Math.round(sold.total * 100) + 1 })).status).toBe(
      400,
    );
    expect(await ok<{ refunded: number }>(cloud('POST', refundUrl, { amount_minor: 349 }))).toMatchObject({
      refunded: 3.49,
    });
    await eventually('the refund at the store', async () => {
      const payments = await ok<Array<{ id: string; refunded: number }>>(
        store('GET', `/v1/commerce/orders/${sold.id}/payments`),
      );
      return payments.find((p) => p.id === paid.id)?.refunded === 3.49 ? true : undefined;
    });

    // Payroll corrects a punch's note from head office while the store's manager moves it.
    const punch = await ok<{ id: string; at: string }>(
      store('POST', '/v1/commerce/timeclock/punches', { kind: 'clock_in' }),
      201,
    );
    await eventually('the punch in the cloud', async () => {
      const page = await ok<{ items: Array<{ id: string }> }>(
        cloud('GET', `/v1/commerce/punches?location_id=${location.id}`),
      );
      return page.items.some((p) => p.id === punch.id) ? true : undefined;
    });
    const movedTo = new Date(Date.parse(punch.at) - 10 * 60_000).toISOString();
    await Promise.all([
      ok(
        cloud('PATCH', `/v1/commerce/punches/${punch.id}`, {
          note: 'approved by payroll',
          reason: 'payroll review',
        }),
      ),
      ok(
        store('POST', `/v1/commerce/timeclock/punches/${punch.id}/correct`, {
          at: movedTo,
          reason: 'forgot to clock in',
        }),
      ),
    ]);
    const both = (p: { at: string; note: string | null }) =>
      Date.parse(p.at) === Date.parse(movedTo) && p.note === 'approved by payroll';
    await eventually('both edits in the cloud', async () => {
      const page = await ok<{ items: Array<{ id: string; at: string; note: string | null }> }>(
        cloud('GET', `/v1/commerce/punches?location_id=${location.id}`),
      );
      const found = page.items.find((p) => p.id === punch.id);
      return found && both(found) ? true : undefined;
    });
    await eventually('both edits at the store', async () => {
      const day = await ok<{
        staff: Array<{ punches: Array<{ id: string; at: string; note: string | null }> }>;
      }>(store('GET', '/v1/commerce/timeclock/punches')).catch(() => undefined);
      const found = day?.staff?.flatMap((s) => s.punches).find((p) => p.id === punch.id);
      return found && both(found) ? true : undefined;
    });
  }, 180_000);
});
