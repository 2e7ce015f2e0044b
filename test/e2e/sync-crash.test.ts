/**
 * Sync survives SIGKILL at its worst moments: the appliance killed in the middle of pushing its
 * backlog and in the middle of applying pulled pages, the cloud killed in the middle of applying
 * batches. Real processes, real stores on disk (and PostgreSQL when configured), real HTTP.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { createApplianceServices } from '../../appliance/app.ts';
import { loadApplianceConfig } from '../../appliance/config.ts';
import { openApplianceDb } from '../../appliance/db/index.ts';
import { type CloudConfig, loadCloudConfig } from '../../cloud/config.ts';
import { openStore, type Store } from '../../cloud/db/index.ts';
import { createCloudServices } from '../../cloud/services.ts';
import { systemClock } from '../../shared/clock.ts';
import { isEventType } from '../../shared/events.ts';
import { createSecretHasher } from '../../shared/identity/secrets.ts';
import { newId } from '../../shared/ids.ts';
import { kill, type Started, startProcess, waitFor } from '../support/processes.ts';
import { backends, cloudStoreEnv } from '../support/stores.ts';

const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });
const BACKLOG_ORDERS = 1000;
const CLOUD_EDITS = 4000;
/** Head office's writes go ten at a time, as several of the cloud's modules would make them. */
const WRITERS = 10;

interface Rig {
  backend: 'sqlite' | 'pg';
  cloudEnv: Record<string, string>;
  cloudConfig: CloudConfig;
  tenantId: string;
  locationId: string;
  credential: string;
  menu: string[];
  stock: string;
  applianceDir: string;
  dirs: string[];
}

/** The cloud's store, set up as provisioning would: a tenant, a store, its appliance's credential. */
async function createRig(backend: 'sqlite' | 'pg'): Promise<Rig> {
  const cloudDir = mkdtempSync(join(tmpdir(), 'sync-crash-cloud-'));
  const cloudEnv: Record<string, string> = {
    ...(await cloudStoreEnv(backend, cloudDir)),
    CLOUD_HOST: '127.0.0.1',
    CLOUD_RATE_LIMIT: 'false',
    LOG_LEVEL: 'info',
  };
  const cloudConfig = { ...loadCloudConfig(cloudEnv), hashing: { memoryCost: 1024, timeCost: 1 } };
  const store = await openCloudStore(cloudConfig);
  try {
    const services = createCloudServices(cloudConfig, { store, clock: systemClock, newId });
    const tenant = await services.tenancy.createTenant({ slug: 'crash', name: 'Crash', tier: 'enterprise' });
    const brand = await services.tenancy.createGroup('brands', tenant.id, 'Brand');
    const region = await services.tenancy.createGroup('regions', tenant.id, 'Region');
    const location = await services.tenancy.createLocation(tenant.id, {
      name: 'Store',
      brand_id: brand.id,
      region_id: region.id,
    });
    const { credential } = await services.sync.provisionAppliance(tenant.id, { location_id: location.id });
    const write = (
      table: 'menu_categories' | 'menu_items' | 'inventory_items' | 'recipes',
      id: string,
      fields: object,
    ) => services.sync.writeFromCloud(tenant.id, location.id, table, id, fields as Record<string, unknown>);
    const at = new Date().toISOString();
    const categoryId = newId();
    await write('menu_categories', categoryId, {
      id: categoryId,
      name: 'Mains',
      position: 0,
      updated_at: at,
    });
    const stock = newId();
    await write('inventory_items', stock, {
      id: stock,
      name: 'Buns',
      unit: 'each',
      reorder_level_milli: 0,
      reorder_quantity_milli: 0,
      updated_at: at,
    });
    const menu = [newId(), newId()];
    for (const [i, id] of menu.entries()) {
      await write('menu_items', id, {
        id,
        category_id: categoryId,
        name: `Dish ${i}`,
        description: '',
        price_minor: 700 + i,
        available: 1,
        updated_at: at,
      });
      await write('recipes', id, {
        menu_item_id: id,
        components: JSON.stringify([{ inventory_item_id: stock, quantity_milli: 1000 }]),
      });
    }
    return {
      backend,
      cloudEnv,
      cloudConfig,
      tenantId: tenant.id,
      locationId: location.id,
      credential,
      menu,
      stock,
      applianceDir: mkdtempSync(join(tmpdir(), 'sync-crash-appliance-')),
      dirs: [cloudDir],
    };
  } finally {
    await store.close();
  }
}

const openCloudStore = (config: CloudConfig): Promise<Store> =>
  openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, schema: config.databaseSchema });

async function destroyRig(rig: Rig) {
  for (const dir of [...rig.dirs, rig.applianceDir]) rmSync(dir, { recursive: true, force: true });
}

const startCloud = (rig: Rig, port = 0) =>
  startProcess('cloud/main.ts', { ...rig.cloudEnv, CLOUD_PORT: String(port) }, /cloud listening/);

const applianceEnv = (rig: Rig, cloudPort: number) => ({
  TENANT_ID: rig.tenantId,
  LOCATION_ID: rig.locationId,
  APPLIANCE_DATA_DIR: rig.applianceDir,
  APPLIANCE_PORT: '0',
  APPLIANCE_HOST: '127.0.0.1',
  CLOUD_URL: `http://127.0.0.1:${cloudPort}`,
  APPLIANCE_CLOUD_CREDENTIAL: rig.credential,
  LOG_LEVEL: 'info',
});

const startAppliance = (rig: Rig, cloudPort: number) =>
  startProcess('appliance/main.ts', applianceEnv(rig, cloudPort), /"port":\d+/);

/** Reads the appliance's store beside the running process (WAL lets a reader in at any time). */
function peek<T>(rig: Rig, query: string): T {
  const db = new Database(join(rig.applianceDir, 'appliance.sqlite'), { readonly: true });
  try {
    db.pragma('busy_timeout = 5000');
    return db.prepare(query).get() as T;
  } finally {
    db.close();
  }
}

/** Orders rung up while the store was offline: each with two items and a cash payment. */
async function sellOffline(rig: Rig, count: number) {
  const db = openApplianceDb(rig.applianceDir);
  try {
    const config = loadApplianceConfig({ TENANT_ID: rig.tenantId, LOCATION_ID: rig.locationId });
    const services = createApplianceServices(config, { db, clock: systemClock, newId, hasher });
    for (let i = 0; i < count; i += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, count - i) }, async (_, n) => {
          const order = await services.orders.create({
            order_type: 'takeout',
            items: rig.menu.map((id) => ({ menu_item_id: id, quantity: 1 + ((i + n) % 2) })),
          });
          services.payments.record(order.id, { method: 'cash', amount_minor: Math.round(order.total * 100) });
        }),
      );
    }
  } finally {
    db.close();
  }
}

const answered = (rig: Rig) =>
  peek<{ done: number; total: number }>(
    rig,
    'select count(pushed_at) as done, count(*) as total from outbox',
  );

/**
 * After everything settled: every change answered and none refused; the cloud holds every row of
 * the store exactly as the store does, and every catalog event once.
 */
async function expectConverged(rig: Rig) {
  const db = openApplianceDb(rig.applianceDir);
  const store = await openCloudStore(rig.cloudConfig);
  try {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(
      db.prepare("select count(*) as n from outbox where pushed_at is null or outcome = 'rejected'").get(),
    ).toEqual({ n: 0 });
    for (const table of ['orders', 'order_items', 'payments', 'menu_items', 'inventory_movements'] as const) {
      const local = db.prepare(`select id from ${table}`).all() as Array<{ id: string }>;
      const cloud = await store.db
        .selectFrom('sync_rows')
        .select(['row_id', 'fields'])
        .where('tenant_id', '=', rig.tenantId)
        .where('location_id', '=', rig.locationId)
        .where('table_name', '=', table)
        .where('deleted', '=', 0)
        .execute();
      expect(cloud.map((r) => r.row_id).sort(), table).toEqual(local.map((r) => r.id).sort());
    }
    const changes = await store.db
      .selectFrom('sync_changes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', rig.tenantId)
      .where('location_id', '=', rig.locationId)
      .executeTakeFirstOrThrow();
    expect(Number(changes.n)).toBe(
      (db.prepare("select count(*) as n from outbox where outcome <> 'superseded'").get() as { n: number }).n,
    );
    const events = (
      db.prepare('select id, type from events').all() as Array<{ id: string; type: string }>
    ).filter((e) => isEventType(e.type));
    const cloudEvents = await store.db
      .selectFrom('domain_events')
      .select('id')
      .where('location_id', '=', rig.locationId)
      .execute();
    expect(cloudEvents.map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort());
  } finally {
    db.close();
    await store.close();
  }
}

describe.each(backends)('sync survives SIGKILL (%s)', (backend) => {
  const children: Started[] = [];
  let rig: Rig | undefined;
  afterEach(async () => {
    for (const { child } of children.splice(0)) await kill(child);
    if (rig) await destroyRig(rig);
    rig = undefined;
  });
  const track = (started: Started) => {
    children.push(started);
    return started;
  };

  it('resumes a push killed mid-backlog without losing or doubling a record', async () => {
    rig = await createRig(backend);
    const cloud = track(await startCloud(rig));
    // The menu first, as a store gets it on first contact; then a long offline spell.
    const first = track(await startAppliance(rig, cloud.port));
    await waitFor('the first snapshot', () =>
      peek<{ n: number }>(rig!, 'select initialized as n from sync_state').n === 1 ? true : undefined,
    );
    await kill(first.child, 'SIGTERM');
    await sellOffline(rig, BACKLOG_ORDERS);

    const pushing = track(await startAppliance(rig, cloud.port));
    const atKill = await waitFor('a push under way', () => {
      const { done, total } = answered(rig!);
      return done > total * 0.2 && done < total * 0.7 ? done : undefined;
    });
    await kill(pushing.child);
    expect(answered(rig).done).toBeLessThan(answered(rig).total);

    track(await startAppliance(rig, cloud.port));
    await waitFor('the backlog answered', () => {
      const { done, total } = answered(rig!);
      return done === total ? true : undefined;
    });
    expect(atKill).toBeGreaterThan(0);
    await expectConverged(rig);
  }, 180_000);

  it('resumes pulls killed while applying pages, each page landing whole with its cursor', async () => {
    rig = await createRig(backend);
    const cloud = track(await startCloud(rig));
    const first = track(await startAppliance(rig, cloud.port));
    await waitFor('the first snapshot', () =>
      peek<{ n: number }>(rig!, 'select initialized as n from sync_state').n === 1 ? true : undefined,
    );
    await kill(first.child, 'SIGTERM');

    // Head office reprices and restocks many times while the store is away.
    const store = await openCloudStore(rig.cloudConfig);
    const services = createCloudServices(rig.cloudConfig, { store, clock: systemClock, newId });
    const startCursor = peek<{ cursor: number }>(rig, 'select cursor from sync_state').cursor;
    const restock = (i: number) => {
      const id = newId();
      return services.sync.writeFromCloud(rig!.tenantId, rig!.locationId, 'inventory_movements', id, {
        id,
        inventory_item_id: rig!.stock,
        kind: 'restock',
        delta_milli: 1000 + (i % 7),
        reference: `delivery ${i}`,
        created_at: new Date().toISOString(),
      });
    };
    for (let i = 0; i < CLOUD_EDITS; i += WRITERS)
      await Promise.all(Array.from({ length: WRITERS }, (_, n) => restock(i + n)));
    const row = await services.sync.row(rig.tenantId, rig.locationId, 'menu_items', rig.menu[0]!);
    await services.sync.writeFromCloud(rig.tenantId, rig.locationId, 'menu_items', rig.menu[0]!, {
      ...row!.fields,
      price_minor: 999,
    });
    await store.close();
    const endCursor = startCursor + CLOUD_EDITS + 1;

    // Killed three times while pages land; each restart carries on from its cursor.
    const cursors: number[] = [];
    for (let kill_ = 0; kill_ < 3; kill_ += 1) {
      const pulling = track(await startAppliance(rig, cloud.port));
      const before = peek<{ cursor: number }>(rig, 'select cursor from sync_state').cursor;
      const seen = await waitFor('a pull under way', () => {
        const { cursor } = peek<{ cursor: number }>(rig!, 'select cursor from sync_state');
        return cursor > before || cursor === endCursor ? cursor : undefined;
      });
      await kill(pulling.child);
      cursors.push(seen);
      if (seen === endCursor) break;
    }
    track(await startAppliance(rig, cloud.port));
    await waitFor('the feed pulled', () =>
      peek<{ cursor: number }>(rig!, 'select cursor from sync_state').cursor === endCursor ? true : undefined,
    );
    expect(cursors[0]).toBeLessThan(endCursor);

    const movements = peek<{ n: number; total: number }>(
      rig,
      "select count(*) as n, sum(delta_milli) as total from inventory_movements where kind = 'restock'",
    );
    expect(movements.n).toBe(CLOUD_EDITS);
    const expectedTotal = Array.from({ length: CLOUD_EDITS }, (_, i) => 1000 + (i % 7)).reduce(
      (a, b) => a + b,
      0,
    );
    expect(movements.total).toBe(expectedTotal);
    expect(peek(rig, `select quantity_milli as q from inventory_items where id = '${rig.stock}'`)).toEqual({
      q: expectedTotal,
    });
    expect(peek(rig, `select price_minor as p from menu_items where id = '${rig.menu[0]}'`)).toEqual({
      p: 999,
    });
  }, 240_000);

  it('loses and doubles nothing when the cloud is killed while applying batches', async () => {
    rig = await createRig(backend);
    let cloud = track(await startCloud(rig));
    const port = cloud.port;
    const first = track(await startAppliance(rig, port));
    await waitFor('the first snapshot', () =>
      peek<{ n: number }>(rig!, 'select initialized as n from sync_state').n === 1 ? true : undefined,
    );
    await kill(first.child, 'SIGTERM');
    await sellOffline(rig, BACKLOG_ORDERS);

    track(await startAppliance(rig, port));
    await waitFor('pushes being applied', () => {
      const { done, total } = answered(rig!);
      return done > total * 0.2 && done < total * 0.7 ? true : undefined;
    });
    await kill(cloud.child);
    const { done, total } = answered(rig);
    expect(done).toBeLessThan(total);

    // The cloud comes back on its address; the appliance reconnects by itself and finishes.
    cloud = track(await startCloud(rig, port));
    await waitFor(
      'the backlog answered',
      () => {
        const now = answered(rig!);
        return now.done === now.total ? true : undefined;
      },
      120_000,
    );
    await expectConverged(rig);
  }, 240_000);
});
