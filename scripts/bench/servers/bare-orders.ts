/**
 * The appliance-orders benchmark's baseline: a bare Fastify route that writes, in one transaction,
 * the rows an appliance order create writes (number bump, order, item, one event, and three outbox
 * rows carrying their rows as JSON)
 * with better-sqlite3 on a temporary file, WAL and synchronous=FULL like the appliance's store.
 * Prints `{"port":N}` once listening; stops on SIGTERM, SIGINT or stdin end and removes its dir.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const LOCATION_ID = '01900000-0000-7000-8000-00000000000b';
const MENU_ITEM_ID = '01900000-0000-7000-8000-0000000000c1';

const dataDir = mkdtempSync(join(tmpdir(), 'bench-bare-orders-'));
const db = new Database(join(dataDir, 'bare.sqlite'));
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('foreign_keys = ON');
db.exec(`
  create table order_numbers (business_day text primary key, last_number integer not null);
  create table orders (
    id text primary key, number text not null, business_day text not null, order_type text not null,
    status text not null, table_label text, server_id text, server_name text,
    subtotal_minor integer not null, tax_minor integer not null, total_minor integer not null,
    created_at text not null, updated_at text not null, version integer not null,
    unique (business_day, number)
  );
  create table order_items (
    id text primary key, order_id text not null references orders (id), menu_item_id text not null,
    name text not null, quantity integer not null, unit_price_minor integer not null, modifiers text not null,
    notes text, status text not null, position integer not null, version integer not null, updated_at text not null
  );
  create index order_items_order on order_items (order_id, position);
  create table outbox (
    seq integer primary key autoincrement, change_id text not null unique, table_name text not null,
    row_id text not null, operation text not null, row_version integer not null, occurred_at text not null,
    pushed_at text, base_version integer not null default 0, hlc text, fields text, doc text
  );
  create index outbox_unpushed on outbox (seq) where pushed_at is null;
  create table events (
    seq integer primary key autoincrement, id text not null unique, type text not null,
    location_id text not null, occurred_at text not null, data text not null
  );
`);

const nextNumber = db.prepare(
  `insert into order_numbers (business_day, last_number) values (?, 1)
   on conflict (business_day) do update set last_number = last_number + 1 returning last_number`,
);
const insertOrder = db.prepare(
  `insert into orders (id, number, business_day, order_type, status, table_label, server_id, server_name,
     subtotal_minor, tax_minor, total_minor, created_at, updated_at, version)
   values (?, ?, ?, 'takeout', 'open', null, null, null, ?, ?, ?, ?, ?, 1)`,
);
const insertItem = db.prepare(
  `insert into order_items (id, order_id, menu_item_id, name, quantity, unit_price_minor, modifiers, notes,
     status, position, version, updated_at)
   values (?, ?, ?, 'Burger', 2, 899, '[]', null, 'pending', 0, 1, ?)`,
);
const insertChange = db.prepare(
  `insert into outbox (change_id, table_name, row_id, operation, row_version, occurred_at, hlc, fields)
   values (?, ?, ?, 'insert', 1, ?, ?, ?)`,
);
const insertEvent = db.prepare(
  `insert into events (id, type, location_id, occurred_at, data) values (?, 'order.created', ?, ?, ?)`,
);

const createOrder = db.transaction(() => {
  const now = new Date().toISOString();
  const businessDay = now.slice(0, 10);
  const { last_number } = nextNumber.get(businessDay) as { last_number: number };
  const number = String(last_number);
  const orderId = randomUUID();
  const itemId = randomUUID();
  const subtotal = 2 * 899;
  insertOrder.run(orderId, number, businessDay, subtotal, 0, subtotal, now, now);
  insertItem.run(itemId, orderId, MENU_ITEM_ID, now);
  // As the appliance's outbox: each change carries its row as written and a clock stamp, and the
  // catalog event is queued for the cloud too.
  const stamp = `${Date.now()}-0000-bare`;
  const order = { id: orderId, number, business_day: businessDay, total_minor: subtotal, created_at: now };
  const item = { id: itemId, order_id: orderId, menu_item_id: MENU_ITEM_ID, quantity: 2, updated_at: now };
  insertChange.run(randomUUID(), 'orders', orderId, now, stamp, JSON.stringify(order));
  insertChange.run(randomUUID(), 'order_items', itemId, now, stamp, JSON.stringify(item));
  const eventId = randomUUID();
  const data = JSON.stringify({ order_id: orderId, number });
  insertEvent.run(eventId, LOCATION_ID, now, data);
  insertChange.run(randomUUID(), 'events', eventId, now, stamp, JSON.stringify({ id: eventId, data }));
  return { id: orderId, number, business_day: businessDay, total_minor: subtotal };
});

const app = Fastify({ logger: false });
app.post('/orders', async (_request, reply) => reply.code(201).send({ data: createOrder() }));

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`${JSON.stringify({ port })}\n`);

let stopping = false;
const shutdown = () => {
  if (stopping) return;
  stopping = true;
  app
    .close()
    .finally(() => {
      db.close();
      rmSync(dataDir, { recursive: true, force: true });
    })
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
// The bench closes our stdin by dying: do not outlive it.
process.stdin.once('end', shutdown).resume();
