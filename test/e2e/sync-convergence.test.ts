/**
 * Convergence under chaos: random interleavings of edits on two appliances (two stores of one
 * tenant) and on the cloud, with partitions, lost answers, pushes delivered twice or replayed
 * late, rounds running while staff keep selling, and restarts. After the network heals and the
 * stores sync, every replica must equal the cloud for its store, with no record lost or doubled
 * and every merged punch holding each field's newest edit.
 */
import { Buffer } from 'node:buffer';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ApplianceServices, createApplianceServices } from '../../appliance/app.ts';
import { loadApplianceConfig } from '../../appliance/config.ts';
import { type ApplianceDatabase, openApplianceDb } from '../../appliance/db/index.ts';
import { createSyncClient, type SyncClient } from '../../appliance/sync/client.ts';
import { createReplica } from '../../appliance/sync/replica.ts';
import { systemClock } from '../../shared/clock.ts';
import { isEventType } from '../../shared/events.ts';
import { AppError } from '../../shared/http/errors.ts';
import { createSecretHasher } from '../../shared/identity/secrets.ts';
import { newId } from '../../shared/ids.ts';
import { type FieldValue, fieldStamps, loadRowDoc } from '../../shared/sync/merge-doc.ts';
import { SYNC_TABLES, type SyncTableName } from '../../shared/sync/registry.ts';
import { type ChaosProxy, startChaosProxy } from '../support/chaos-proxy.ts';
import { createTestCloud, seedTenant, type TestCloud } from '../support/cloud.ts';
import { backends } from '../support/stores.ts';

const hasher = createSecretHasher({ memoryCost: 1024, timeCost: 1 });
const MENU_SIZE = 3;
const STOCK_SIZE = 2;
const STAFF = ['staff-a', 'staff-b'];
/** Server-wins tables compared row for row (recipes are compared through their components). */
const COMPARED: SyncTableName[] = [
  'orders',
  'order_items',
  'payments',
  'menu_categories',
  'menu_items',
  'location_settings',
  'inventory_items',
];

type Side = 0 | 1;
type Op =
  | { kind: 'order'; side: Side; items: number[]; pay: boolean }
  | { kind: 'advance'; side: Side; pick: number; step: 'add' | 'send' | 'ready' | 'complete' | 'cancel' }
  | { kind: 'price'; side: Side; item: number; price: number }
  | { kind: 'restock'; side: Side; item: number; quantity: number }
  | { kind: 'punch'; side: Side; staff: number }
  | { kind: 'correct'; side: Side; pick: number; back: number; reason: string; note: string | null }
  | { kind: 'cloudPrice'; side: Side; item: number; price: number }
  | { kind: 'cloudCancel'; side: Side; pick: number }
  | { kind: 'cloudPunch'; side: Side; pick: number; field: 'note' | 'reason'; value: string }
  | { kind: 'cloudRestock'; side: Side; item: number; quantity: number }
  | { kind: 'hire'; n: number }
  | { kind: 'sync'; side: Side; wait: boolean }
  | { kind: 'partition'; side: Side; on: boolean }
  | { kind: 'loseAnswers'; side: Side; n: number }
  | { kind: 'duplicate'; side: Side; n: number }
  | { kind: 'replay'; side: Side; pick: number }
  | { kind: 'restart'; side: Side };

const side = fc.constantFrom<Side>(0, 1);
const pick = fc.nat(1000);
const word = fc.constantFrom('late bus', 'training', 'payroll fix', 'swapped shift', 'manager ok');
const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('order'),
      side,
      items: fc.array(fc.nat(MENU_SIZE - 1), { minLength: 1, maxLength: 3 }),
      pay: fc.boolean(),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('advance'),
      side,
      pick,
      step: fc.constantFrom('add', 'send', 'ready', 'complete', 'cancel'),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('price'),
      side,
      item: fc.nat(MENU_SIZE - 1),
      price: fc.integer({ min: 100, max: 2000 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('restock'),
      side,
      item: fc.nat(STOCK_SIZE - 1),
      quantity: fc.integer({ min: 1, max: 40 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('punch'), side, staff: fc.nat(STAFF.length - 1) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('correct'),
      side,
      pick,
      back: fc.integer({ min: 0, max: 5 }),
      reason: word,
      note: fc.option(word, { nil: null }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('cloudPrice'),
      side,
      item: fc.nat(MENU_SIZE - 1),
      price: fc.integer({ min: 100, max: 2000 }),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('cloudCancel'), side, pick }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('cloudPunch'),
      side,
      pick,
      field: fc.constantFrom('note', 'reason'),
      value: word,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('cloudRestock'),
      side,
      item: fc.nat(STOCK_SIZE - 1),
      quantity: fc.integer({ min: 1, max: 40 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('hire'), n: fc.nat(1_000_000) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('sync'), side, wait: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('partition'), side, on: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('loseAnswers'), side, n: fc.integer({ min: 1, max: 2 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('duplicate'), side, n: fc.integer({ min: 1, max: 2 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('replay'), side, pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart'), side }) },
);

/** One field edit of a punch, wherever it was made, with the stamp that orders it. */
interface FieldEdit {
  stamp: string;
  value: FieldValue;
}

/** One store: its appliance, the hop to the cloud, and what the test made happen there. */
interface Store {
  locationId: string;
  credential: string;
  dir: string;
  db: ApplianceDatabase;
  services: ApplianceServices;
  client: SyncClient;
  proxy: ChaosProxy;
  round: Promise<void> | undefined;
  orders: string[];
  punches: string[];
  restocks: number;
  menu: string[];
  stock: string[];
  /** `<punch id>/<field>` → every edit made to it. */
  edits: Map<string, FieldEdit[]>;
}

interface World {
  cloud: TestCloud;
  tenantId: string;
  stores: [Store, Store];
  hires: number;
}

/** Lets rounds in the background move on between steps: a turn of the loop, or a few ms. */
const pause = (ms: number) =>
  new Promise((resolve) => (ms === 0 ? setImmediate(resolve) : setTimeout(resolve, ms)));

function openStoreAppliance(store: Omit<Store, 'db' | 'services' | 'client'>, tenantId: string) {
  const db = openApplianceDb(store.dir);
  const config = {
    ...loadApplianceConfig({ TENANT_ID: tenantId, LOCATION_ID: store.locationId }),
    logLevel: 'silent' as const,
  };
  const services = createApplianceServices(config, { db, clock: systemClock, newId, hasher });
  const replica = createReplica(db, services.changes.docClientId);
  // Small batches and pages: many of them, several in flight, so they interleave.
  const client = createSyncClient(
    db,
    replica,
    { clock: systemClock, observe: (stamp) => services.changes.observe(stamp) },
    {
      cloudUrl: store.proxy.url,
      credential: store.credential,
      batchSize: 5,
      maxInFlight: 3,
      pullLimit: 7,
      requestTimeoutMs: 10_000,
    },
  );
  return { db, services, client };
}

/** The menu and stock head office sets up for a store, before its appliance first syncs. */
async function seedMenu(cloud: TestCloud, tenantId: string, locationId: string) {
  const at = new Date().toISOString();
  const write = (table: SyncTableName, id: string, fields: Record<string, unknown>) =>
    cloud.services.sync.writeFromCloud(tenantId, locationId, table, id, fields);
  const categoryId = newId();
  await write('menu_categories', categoryId, { id: categoryId, name: 'Mains', position: 0, updated_at: at });
  const stock: string[] = [];
  for (let i = 0; i < STOCK_SIZE; i += 1) {
    const id = newId();
    stock.push(id);
    const definition = {
      id,
      name: `Stock ${i}`,
      unit: 'each',
      reorder_level_milli: 5000,
      reorder_quantity_milli: 20_000,
      updated_at: at,
    };
    await write('inventory_items', id, definition);
    const opening = newId();
    await write('inventory_movements', opening, {
      id: opening,
      inventory_item_id: id,
      kind: 'count',
      delta_milli: 50_000,
      reference: null,
      created_at: at,
    });
  }
  const menu: string[] = [];
  for (let i = 0; i < MENU_SIZE; i += 1) {
    const id = newId();
    menu.push(id);
    await write('menu_items', id, {
      id,
      category_id: categoryId,
      name: `Dish ${i}`,
      description: '',
      price_minor: 500 + i * 100,
      available: 1,
      updated_at: at,
    });
    const components = [{ inventory_item_id: stock[i % STOCK_SIZE], quantity_milli: 1000 }];
    await write('recipes', id, { menu_item_id: id, components: JSON.stringify(components) });
  }
  return { menu, stock };
}

async function createWorld(backend: 'sqlite' | 'pg', delays: number[]): Promise<World> {
  const cloud = await createTestCloud(backend);
  const seeded = await seedTenant(cloud.services, `t${newId().slice(-8)}`);
  const tenantId = seeded.tenant.id;
  const cloudUrl = await cloud.app.listen({ host: '127.0.0.1', port: 0 });
  const second = await cloud.services.tenancy.createLocation(tenantId, {
    name: 'Store 2',
    brand_id: seeded.brand.id,
    region_id: seeded.region.id,
  });
  const stores = [] as unknown as [Store, Store];
  for (const locationId of [seeded.location.id, second.id]) {
    const { credential } = await cloud.services.sync.provisionAppliance(tenantId, {
      location_id: locationId,
    });
    const { menu, stock } = await seedMenu(cloud, tenantId, locationId);
    const proxy = await startChaosProxy(cloudUrl);
    proxy.delays = delays;
    const base = {
      locationId,
      credential,
      dir: mkdtempSync(join(tmpdir(), 'sync-convergence-')),
      proxy,
      round: undefined,
      orders: [],
      punches: [],
      restocks: STOCK_SIZE,
      menu,
      stock,
      edits: new Map<string, FieldEdit[]>(),
    };
    stores.push({ ...base, ...openStoreAppliance(base, tenantId) });
  }
  // Each store has been set up once (menu, stock, staff) before the story starts.
  for (const store of stores) await store.client.sync();
  return { cloud, tenantId, stores, hires: 0 };
}

async function destroyWorld(world: World) {
  for (const store of world.stores) {
    await store.round?.catch(() => undefined);
    await store.client.close();
    store.db.close();
    await store.proxy.close();
    rmSync(store.dir, { recursive: true, force: true });
  }
  await world.cloud.close();
}

/** Runs a round in the background (as the worker does); a failed one is simply retried later. */
function startRound(store: Store) {
  store.round ??= store.client
    .sync()
    .then(
      () => undefined,
      () => undefined,
    )
    .finally(() => {
      store.round = undefined;
    });
  return store.round;
}

function recordEdits(store: Store, punchId: string, fields: Record<string, FieldValue>) {
  const row = store.db.prepare('select doc from time_punches where id = ?').get(punchId) as { doc: string };
  const stamps = fieldStamps(loadRowDoc(Buffer.from(row.doc, 'base64'), store.services.changes.docClientId));
  for (const [field, value] of Object.entries(fields)) {
    const key = `${punchId}/${field}`;
    store.edits.set(key, [...(store.edits.get(key) ?? []), { stamp: stamps[field]!, value }]);
  }
}

const at = <T>(list: T[], n: number): T | undefined =>
  list.length === 0 ? undefined : list[n % list.length];

async function advanceOrder(store: Store, orderId: string, step: Extract<Op, { kind: 'advance' }>['step']) {
  const { services } = store;
  if (step === 'add')
    return services.orders.addItems(orderId, [{ menu_item_id: store.menu[0]!, quantity: 1 }]);
  if (step === 'send') return services.sendOrder(orderId);
  if (step === 'cancel') return services.orders.cancel(orderId);
  if (step === 'complete') return services.completeOrder(orderId);
  for (const item of services.orders.get(orderId).items) services.orders.completeItem(orderId, item.id);
}

/** Applies one step; a step the current state forbids (a domain error) simply changes nothing. */
async function perform(world: World, op: Op) {
  const { cloud, tenantId } = world;
  if (op.kind === 'hire') {
    world.hires += 1;
    await cloud.services.tenancy.addUser(tenantId, {
      email: `hire${op.n}-${world.hires}@acme.test`,
      pin: '246810',
      roles: ['staff'],
    });
    return;
  }
  const store = world.stores[op.side];
  const { services } = store;
  try {
    switch (op.kind) {
      case 'order': {
        const order = await services.orders.create({
          order_type: 'takeout',
          items: op.items.map((i) => ({ menu_item_id: store.menu[i]!, quantity: 1 })),
        });
        store.orders.push(order.id);
        if (op.pay)
          services.payments.record(order.id, { method: 'cash', amount_minor: Math.round(order.total * 100) });
        return;
      }
      case 'advance': {
        const orderId = at(store.orders, op.pick);
        if (orderId) await advanceOrder(store, orderId, op.step);
        return;
      }
      case 'price':
        services.menu.changePrice(store.menu[op.item]!, op.price);
        return;
      case 'restock':
        services.inventory.restock(store.stock[op.item]!, op.quantity);
        store.restocks += 1;
        return;
      case 'punch': {
        const staffId = STAFF[op.staff]!;
        const kind = services.timeclock.state(staffId) === 'off' ? 'clock_in' : 'clock_out';
        const punch = services.timeclock.punch(staffId, kind);
        store.punches.push(punch.id);
        const columns = Object.keys(SYNC_TABLES.time_punches.columns).join(', ');
        const row = store.db.prepare(`select ${columns} from time_punches where id = ?`).get(punch.id);
        recordEdits(store, punch.id, row as Record<string, FieldValue>);
        return;
      }
      case 'correct': {
        const punchId = at(store.punches, op.pick);
        if (!punchId) return;
        const current = store.db.prepare('select at from time_punches where id = ?').get(punchId) as {
          at: string;
        };
        const edit = {
          at: new Date(Date.parse(current.at) - op.back * 1000).toISOString(),
          corrected_by: 'manager-m',
          reason: op.reason,
          ...(op.note === null ? {} : { note: op.note }),
        };
        services.timeclock.correct(punchId, {
          at: edit.at,
          managerId: edit.corrected_by,
          reason: edit.reason,
          ...(op.note === null ? {} : { note: op.note }),
        });
        recordEdits(store, punchId, edit);
        return;
      }
      case 'cloudPrice': {
        const row = await cloud.services.sync.row(
          tenantId,
          store.locationId,
          'menu_items',
          store.menu[op.item]!,
        );
        await cloud.services.sync.writeFromCloud(tenantId, store.locationId, 'menu_items', row!.row_id, {
          ...row!.fields,
          price_minor: op.price,
        });
        return;
      }
      case 'cloudCancel': {
        const orders = await cloud.services.sync.rows(tenantId, store.locationId, 'orders');
        const row = at(orders, op.pick);
        if (row && row.fields?.status !== 'completed')
          await cloud.services.sync.writeFromCloud(tenantId, store.locationId, 'orders', row.row_id, {
            ...row.fields,
            status: 'cancelled',
          });
        return;
      }
      case 'cloudPunch': {
        const punches = await cloud.services.sync.rows(tenantId, store.locationId, 'time_punches');
        const row = at(punches, op.pick);
        if (!row) return;
        const written = await cloud.services.sync.writeFromCloud(
          tenantId,
          store.locationId,
          'time_punches',
          row.row_id,
          { [op.field]: op.value },
        );
        expect(written.fields?.[op.field]).toBe(op.value);
        const key = `${row.row_id}/${op.field}`;
        store.edits.set(key, [...(store.edits.get(key) ?? []), { stamp: written.hlc, value: op.value }]);
        return;
      }
      case 'cloudRestock': {
        const id = newId();
        await cloud.services.sync.writeFromCloud(tenantId, store.locationId, 'inventory_movements', id, {
          id,
          inventory_item_id: store.stock[op.item]!,
          kind: 'restock',
          delta_milli: op.quantity * 1000,
          reference: 'delivery',
          created_at: new Date().toISOString(),
        });
        store.restocks += 1;
        return;
      }
      case 'sync': {
        const round = startRound(store);
        if (op.wait) await round;
        return;
      }
      case 'partition':
        store.proxy.partitioned = op.on;
        return;
      case 'loseAnswers':
        store.proxy.loseAnswers += op.n;
        return;
      case 'duplicate':
        store.proxy.duplicatePushes += op.n;
        return;
      case 'replay': {
        const status = await store.proxy.replay(op.pick);
        // A late copy may meet the cloud with eight pushes already in flight (duplicates and
        // both stores' rounds): SYNC_BUSY refuses it whole, which is as harmless as applying it.
        expect([0, 200, 429]).toContain(status);
        return;
      }
      case 'restart': {
        // What a process restart loses: every in-memory state (clock, window, statements).
        await store.round;
        await store.client.close();
        store.db.close();
        Object.assign(store, openStoreAppliance(store, tenantId));
        return;
      }
    }
  } catch (error) {
    if (!(error instanceof AppError) || error.status >= 500) throw error;
  }
}

/** Heals the network and syncs every store until a round moves nothing. */
async function converge(world: World) {
  for (const store of world.stores) {
    Object.assign(store.proxy, { partitioned: false, loseAnswers: 0, duplicatePushes: 0, delays: [] });
    await store.round;
  }
  for (let pass = 0; pass < 8; pass += 1) {
    let moved = 0;
    for (const store of world.stores) {
      const round = await store.client.sync();
      moved += round.pushed + round.pulled;
    }
    if (moved === 0) return;
  }
  throw new Error('sync did not settle in 8 rounds');
}

function localRows(db: ApplianceDatabase, table: SyncTableName) {
  const spec = SYNC_TABLES[table];
  const rows = db
    .prepare(`select ${Object.keys(spec.columns).join(', ')}, version from ${table}`)
    .all() as Array<Record<string, unknown>>;
  return new Map(rows.map(({ version, ...fields }) => [String(fields[spec.key]), { version, fields }]));
}

async function cloudRows(world: World, store: Store, table: SyncTableName) {
  const rows = await world.cloud.services.sync.rows(world.tenantId, store.locationId, table);
  return new Map(rows.map((row) => [row.row_id, row]));
}

async function expectStoreEqualsCloud(world: World, store: Store) {
  const { db } = store;
  expect(db.prepare('select count(*) as n from outbox where pushed_at is null').get()).toEqual({ n: 0 });

  for (const table of COMPARED) {
    const cloud = await cloudRows(world, store, table);
    const local = localRows(db, table);
    expect([...local.keys()].sort(), table).toEqual([...cloud.keys()].sort());
    for (const [id, row] of cloud)
      expect(local.get(id), `${table} ${id}`).toEqual({ version: row.version, fields: row.fields });
  }
  expect([...(await cloudRows(world, store, 'orders')).keys()]).toEqual(expect.arrayContaining(store.orders));

  // Stock: every movement once on both sides, the quantity their sum, every restock there.
  const movements = await cloudRows(world, store, 'inventory_movements');
  const localMovements = db.prepare('select id from inventory_movements').all() as Array<{ id: string }>;
  expect(localMovements.map((m) => m.id).sort()).toEqual([...movements.keys()].sort());
  const restocks = [...movements.values()].filter((m) => m.fields?.kind !== 'sale');
  expect(restocks).toHaveLength(store.restocks);
  for (const itemId of store.stock) {
    const sum = [...movements.values()]
      .filter((m) => m.fields?.inventory_item_id === itemId)
      .reduce((total, m) => total + Number(m.fields?.delta_milli), 0);
    expect(db.prepare('select quantity_milli from inventory_items where id = ?').get(itemId)).toEqual({
      quantity_milli: sum,
    });
  }

  // Events: every catalog event of the store in the cloud exactly once.
  const events = (
    db.prepare('select id, type from events').all() as Array<{ id: string; type: string }>
  ).filter((e) => isEventType(e.type));
  const cloudEvents = await world.cloud.store.db
    .selectFrom('domain_events')
    .select('id')
    .where('tenant_id', '=', world.tenantId)
    .where('location_id', '=', store.locationId)
    .execute();
  expect(cloudEvents.map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort());

  // Punches: the same fields on both sides, each the value of its newest edit.
  const punches = await cloudRows(world, store, 'time_punches');
  const localPunches = db
    .prepare('select id, staff_id, kind, at, note, corrected_by, reason, created_at from time_punches')
    .all() as Array<Record<string, unknown>>;
  expect(localPunches.map((p) => p.id).sort()).toEqual([...punches.keys()].sort());
  for (const local of localPunches) {
    const cloud = punches.get(String(local.id))!;
    expect(local).toEqual(cloud.fields);
    for (const field of Object.keys(local)) {
      const edits = store.edits.get(`${local.id}/${field}`) ?? [];
      const newest = edits.reduce<FieldEdit | undefined>(
        (best, edit) => (best === undefined || edit.stamp > best.stamp ? edit : best),
        undefined,
      );
      expect(newest, `${local.id}/${field} has edits`).toBeDefined();
      expect(local[field], `${local.id}/${field}`).toEqual(newest!.value);
    }
  }

  // People: every member of the tenant, as the cloud has them.
  const staff = await world.cloud.services.tenancy.staffRecords(world.tenantId);
  const localStaff = db.prepare('select id, status from staff').all() as Array<{
    id: string;
    status: string;
  }>;
  expect(localStaff.map((s) => s.id).sort()).toEqual(staff.map((s) => s.id).sort());
}

/** SYNC_CHAOS_RUNS explores longer (e.g. 500) when hunting; CI runs a sample every time. */
const runs = (backend: 'sqlite' | 'pg') =>
  Number(process.env.SYNC_CHAOS_RUNS ?? (backend === 'pg' ? 10 : 25));

describe.each(backends)('sync convergence under chaos (%s)', (backend) => {
  it(
    'ends with every store equal to the cloud, nothing lost or doubled, every punch edit merged',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(opArbitrary, { minLength: 40, maxLength: 120, size: 'max' }),
          fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 5 }),
          fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 8 }),
          async (ops, delays, pauses) => {
            const world = await createWorld(backend, delays);
            try {
              for (const [i, op] of ops.entries()) {
                await perform(world, op);
                await pause(pauses[i % pauses.length]!);
              }
              await converge(world);
              for (const store of world.stores) await expectStoreEqualsCloud(world, store);
            } finally {
              await destroyWorld(world);
            }
          },
        ),
        { numRuns: runs(backend), endOnFailure: true },
      );
    },
    runs(backend) * 12_000,
  );
});
