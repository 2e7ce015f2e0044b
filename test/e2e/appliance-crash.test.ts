import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createApplianceServices } from '../../appliance/app.ts';
import { loadApplianceConfig } from '../../appliance/config.ts';
import { openApplianceDb } from '../../appliance/db/index.ts';
import { systemClock } from '../../shared/clock.ts';
import { createSecretHasher } from '../../shared/identity/secrets.ts';
import { newId } from '../../shared/ids.ts';
import { entryArgs } from '../support/entries.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const env = (dataDir: string) => ({
  TENANT_ID: '01900000-0000-7000-8000-00000000000a',
  LOCATION_ID: '01900000-0000-7000-8000-00000000000b',
  APPLIANCE_DATA_DIR: dataDir,
  APPLIANCE_PORT: '0',
  APPLIANCE_HOST: '127.0.0.1',
  APPLIANCE_TIMEZONE: 'America/New_York',
  LOG_LEVEL: 'info',
});

/** Staff and a menu item, written the way a seed or sync would, before the appliance starts. */
async function seed(dataDir: string) {
  const db = openApplianceDb(dataDir);
  const services = createApplianceServices(loadApplianceConfig(env(dataDir)), {
    db,
    clock: systemClock,
    newId,
    hasher: createSecretHasher({ memoryCost: 1024, timeCost: 1 }),
  });
  await services.auth.upsertStaff({
    id: newId(),
    email: 'ann@store.test',
    username: 'ann',
    displayName: 'Ann',
    roles: ['staff'],
    pin: '135790',
    version: 1,
  });
  const category = services.menu.createCategory({ name: 'Mains' });
  const item = services.menu.createItem({ category_id: category.id, name: 'Burger', price_minor: 899 });
  db.close();
  return item.id;
}

/** node itself (see entryArgs): SIGKILL must hit the appliance, not a wrapper around it. */
async function startAppliance(dataDir: string) {
  const child = spawn(process.execPath, entryArgs('appliance/main.ts'), {
    cwd: root,
    env: { ...process.env, ...env(dataDir) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`appliance exited with ${code}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      const match = /"port":(\d+)/.exec(chunk.toString());
      if (match) resolve(Number(match[1]));
    });
  });
  return { child, base: `http://127.0.0.1:${port}` };
}

/** Resolves once the process has ended, including when it already has. */
const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

async function pinToken(base: string) {
  const response = await fetch(`${base}/v1/auth/login/pin`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identifier: 'ann', pin: '135790' }),
  });
  return ((await response.json()) as { status: { access_token: string } }).status.access_token;
}

describe('appliance killed mid-burst', () => {
  const children: ChildProcess[] = [];
  let dataDir = '';
  afterEach(() => {
    for (const child of children.splice(0)) child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged order exactly once, reuses no number, and stays consistent', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'appliance-crash-'));
    const burger = await seed(dataDir);
    const first = await startAppliance(dataDir);
    children.push(first.child);
    const token = await pinToken(first.base);
    const acknowledged = new Map<string, string>();
    let killed = false;

    // Eight terminals ring up orders as fast as they can; the power goes after 120 acknowledgements.
    const terminal = async () => {
      while (!killed) {
        try {
          const response = await fetch(`${first.base}/v1/commerce/orders`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify({ order_type: 'takeout', items: [{ menu_item_id: burger, quantity: 2 }] }),
          });
          if (response.status !== 201)
            throw new Error(`order refused: ${response.status} ${await response.text()}`);
          const { data } = (await response.json()) as { data: { id: string; number: string } };
          acknowledged.set(data.id, data.number);
          if (acknowledged.size >= 120 && !killed) {
            killed = true;
            first.child.kill('SIGKILL');
          }
        } catch (error) {
          if (!killed) throw error;
          return; // the connection died with the appliance
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, terminal));
    await exited(first.child);

    const second = await startAppliance(dataDir);
    children.push(second.child);
    const afterToken = await pinToken(second.base);
    for (const id of acknowledged.keys()) {
      const response = await fetch(`${second.base}/v1/commerce/orders/${id}`, {
        headers: { authorization: `Bearer ${afterToken}` },
      });
      expect(response.status).toBe(200);
    }
    const next = await fetch(`${second.base}/v1/commerce/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${afterToken}` },
      body: JSON.stringify({ order_type: 'dine_in', items: [{ menu_item_id: burger, quantity: 1 }] }),
    });
    const nextNumber = Number(((await next.json()) as { data: { number: string } }).data.number);
    second.child.kill('SIGTERM');
    await exited(second.child);

    const db = openApplianceDb(dataDir);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    const orders = db.prepare('select id, number, business_day from orders').all() as Array<{
      id: string;
      number: string;
      business_day: string;
    }>;
    const numbers = orders.map((o) => `${o.business_day}#${o.number}`);
    expect(new Set(numbers).size).toBe(numbers.length);
    expect(nextNumber).toBe(Math.max(...orders.map((o) => Number(o.number))));
    for (const [id, number] of acknowledged) expect(orders.find((o) => o.id === id)?.number).toBe(number);
    // Every order that exists has its items, exactly one insert in the outbox and one order.created.
    const consistency = db
      .prepare(
        `select
           (select count(*) from orders) as orders,
           (select count(*) from orders o where (select count(*) from order_items i where i.order_id = o.id) = 1) as with_item,
           (select count(*) from outbox where table_name = 'orders' and operation = 'insert') as order_inserts,
           (select count(distinct row_id) from outbox where table_name = 'orders' and operation = 'insert') as distinct_inserts,
           (select count(*) from events where type = 'order.created') as created_events`,
      )
      .get();
    expect(consistency).toEqual({
      orders: orders.length,
      with_item: orders.length,
      order_inserts: orders.length,
      distinct_inserts: orders.length,
      created_events: orders.length,
    });
    expect(orders.length).toBeGreaterThanOrEqual(acknowledged.size + 1);
    db.close();
  }, 90_000);
});
