/**
 * Head office's writes for the sync benchmark, made in the cloud child through the sync service
 * (`writeFromCloud`), as the cloud's own modules would: each is one transaction that also queues the
 * change on the store's feed.
 */
import type { CloudServices } from '../../../cloud/services.ts';
import { newId } from '../../../shared/ids.ts';
import type { Fields, SyncTableName } from '../../../shared/sync/registry.ts';
import type { EditsRequest, EditsWritten, FeedWritten } from './control.ts';

type Sync = CloudServices['sync'];

interface Scope {
  tenantId: string;
  locationId: string;
}

// Payroll's corrections carry their own author, as a person in the cloud would.
const PAYROLL_ID = '01900000-0000-7000-8000-0000000000aa';

const now = () => new Date().toISOString();
const secondsSince = (started: number) => (performance.now() - started) / 1000;

function writer(sync: Sync, scope: Scope) {
  let written = 0;
  const write = async (table: SyncTableName, rowId: string, fields: Fields) => {
    await sync.writeFromCloud(scope.tenantId, scope.locationId, table, rowId, fields);
    written += 1;
  };
  return { write, written: () => written };
}

/**
 * How a feed of `count` changes is made up: a category, new menu items (a fifth), stock items, then
 * restocks, punches and price changes of the new items interleaved 5:3:2, as a busy head office
 * would send them.
 */
function feedShares(count: number) {
  const items = Math.max(1, Math.floor(count / 5));
  const stock = Math.max(1, Math.floor(count / 25));
  return { items, stock, rest: Math.max(0, count - 1 - items - stock) };
}

const MIX = [
  'movement',
  'movement',
  'punch',
  'price',
  'movement',
  'punch',
  'movement',
  'price',
  'punch',
  'movement',
] as const;

type Write = ReturnType<typeof writer>['write'];

async function writeMenu(write: Write, count: number) {
  const categoryId = newId();
  await write('menu_categories', categoryId, {
    id: categoryId,
    name: 'Cloud menu',
    position: 0,
    updated_at: now(),
  });
  const items: Fields[] = [];
  for (let i = 0; i < count; i++) {
    const id = newId();
    const fields = {
      id,
      category_id: categoryId,
      name: `Cloud item ${i}`,
      description: '',
      price_minor: 500 + (i % 900),
      available: 1,
      updated_at: now(),
    };
    await write('menu_items', id, fields);
    items.push(fields);
  }
  return items;
}

async function writeStock(write: Write, count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = newId();
    await write('inventory_items', id, {
      id,
      name: `Cloud stock ${i}`,
      unit: 'each',
      reorder_level_milli: 0,
      reorder_quantity_milli: 0,
      updated_at: now(),
    });
    ids.push(id);
  }
  return ids;
}

/** Writes `count` changes for the store's appliance to pull; says what the store should end with. */
export async function writeFeed(sync: Sync, scope: Scope, count: number): Promise<FeedWritten> {
  const started = performance.now();
  const { write, written } = writer(sync, scope);
  const shares = feedShares(count);
  const items = await writeMenu(write, shares.items);
  const stock = await writeStock(write, shares.stock);
  const sums = await writeMix(write, shares.rest, items, stock);
  return {
    written: written(),
    seconds: secondsSince(started),
    rows: {
      menu_categories: 1,
      menu_items: items.length,
      inventory_items: stock.length,
      inventory_movements: sums.movements,
      time_punches: sums.punches,
    },
    price_sum: items.reduce((sum, item) => sum + Number(item.price_minor), 0),
    delta_sum: sums.delta,
  };
}

/** The three kinds of change the mix interleaves, and what they add up to. */
function mixWriters(write: Write, items: Fields[], stock: string[]) {
  const staff = Array.from({ length: 50 }, () => newId());
  const sums = { movements: 0, punches: 0, delta: 0 };
  const kinds = {
    async movement(i: number) {
      const id = newId();
      const delta = 1000 + (i % 7) * 250;
      const inventory_item_id = stock[i % stock.length]!;
      const fields = { id, inventory_item_id, kind: 'restock', delta_milli: delta, reference: null };
      await write('inventory_movements', id, { ...fields, created_at: now() });
      sums.movements += 1;
      sums.delta += delta;
    },
    async punch() {
      const id = newId();
      const at = now();
      // Each of the staff clocks in, then out, in turn.
      const kind = sums.punches % 2 === 0 ? 'clock_in' : 'clock_out';
      const staffId = staff[Math.floor(sums.punches / 2) % staff.length]!;
      const fields = { id, staff_id: staffId, kind, at, note: null, corrected_by: null, reason: null };
      await write('time_punches', id, { ...fields, created_at: at });
      sums.punches += 1;
    },
    async price(i: number) {
      const index = i % items.length;
      const item = items[index]!;
      const next: Fields = { ...item, price_minor: Number(item.price_minor) + 10, updated_at: now() };
      await write('menu_items', String(item.id), next);
      items[index] = next;
    },
  };
  return { kinds, sums };
}

async function writeMix(write: Write, count: number, items: Fields[], stock: string[]) {
  const { kinds, sums } = mixWriters(write, items, stock);
  for (let i = 0; i < count; i++) await kinds[MIX[i % MIX.length]!](i);
  return sums;
}

/**
 * Head office's edits while the store is offline: a price change per named menu item (the store
 * changed many of them too: those conflict), payroll's corrections of punches (merged field by field
 * with the store's) and deliveries booked as restocks (movements both sides add up).
 */
export async function writeEdits(sync: Sync, scope: Scope, request: EditsRequest): Promise<EditsWritten> {
  const started = performance.now();
  const { write, written } = writer(sync, scope);
  for (const id of request.menu_item_ids) {
    const row = await sync.row(scope.tenantId, scope.locationId, 'menu_items', id);
    if (!row?.fields) throw new Error(`menu item ${id} is not in the cloud`);
    await write('menu_items', id, {
      ...row.fields,
      price_minor: Number(row.fields.price_minor) + 25,
      updated_at: now(),
    });
  }
  for (let i = 0; i < request.corrections; i++) {
    const id = request.punch_ids[i % request.punch_ids.length]!;
    await write('time_punches', id, {
      note: `payroll check ${i}`,
      reason: 'payroll review',
      corrected_by: PAYROLL_ID,
    });
  }
  for (let i = 0; i < request.restocks; i++) {
    const id = newId();
    const inventory_item_id = request.inventory_item_ids[i % request.inventory_item_ids.length]!;
    await write('inventory_movements', id, {
      id,
      inventory_item_id,
      kind: 'restock',
      delta_milli: 5000,
      reference: 'delivery',
      created_at: now(),
    });
  }
  return { written: written(), seconds: secondsSince(started) };
}
