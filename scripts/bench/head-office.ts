/**
 * `npm run bench -- head-office [--quick] [--backend sqlite|pg]`: issue 24's benchmark.
 *
 * Publishing: a brand of 300 items at 200 stores; one request changes every item's price, and the
 * clock runs until every store's pull (200 simulated appliances pulling over HTTP, 16 at a time)
 * holds all 300 new prices. Baseline in the same run: the same 60,000 rows written by
 * `editFromCloud`, one batch per store, without the publication (no catalog read, no events, no
 * progress). Goal: under 30 s.
 *
 * The order list: 2 million orders across 200 stores (a tenth with --quick) in the commerce
 * projection; `GET /v1/commerce/orders` filtered by store and day, by store alone, and the
 * tenant's newest page, sequential requests over HTTP; baseline `GET /v1/auth/me` in the same run.
 * Goal: p95 under 200 ms on PostgreSQL for store and day.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, sql } from 'kysely';
import { buildApp } from '../../cloud/app.ts';
import { storeRowId } from '../../cloud/commerce/catalog.ts';
import { loadCloudConfig } from '../../cloud/config.ts';
import { createDialect } from '../../cloud/db/dialect/pg.ts';
import { openStore, type Store } from '../../cloud/db/index.ts';
import { createCloudServices } from '../../cloud/services.ts';
import { systemClock } from '../../shared/clock.ts';
import { newId } from '../../shared/ids.ts';
import { writeOrders } from './head-office/orders-data.ts';
import { codeVersion, type Goal, goalLine, goalsMetLine, machineSampler } from './lib/report.ts';

export type HeadOfficeBackend = 'sqlite' | 'pg';
const DATABASE_URL = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
export const PUBLISH_GOAL_S = 30;
export const LIST_GOAL_P95_MS = 200;
const PULLERS = 16;

const PLANS = {
  full: { stores: 200, items: 300, orders: 2_000_000, days: 100, requests: 40 },
  quick: { stores: 200, items: 300, orders: 200_000, days: 100, requests: 20 },
};
type Plan = (typeof PLANS)['full'];

async function openBenchStore(backend: HeadOfficeBackend) {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'bench-head-office-'));
    const store = await openStore({ dataDir: dir });
    return { store, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const schema = `bench_ho_${randomBytes(4).toString('hex')}`;
  const store = await openStore({ dataDir: '', databaseUrl: DATABASE_URL, schema });
  const drop = async () => {
    const admin = new Kysely<unknown>({ dialect: createDialect(DATABASE_URL) });
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
    await admin.destroy();
  };
  return { store, drop };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** A fetch that tries once more when the server closed an idle kept-alive connection under it. */
async function fetchAgain(url: string, init: RequestInit) {
  try {
    return await fetch(url, init);
  } catch {
    return fetch(url, init);
  }
}

async function latency(urls: () => string, token: string, requests: number) {
  const samples: number[] = [];
  const call = async () => {
    const started = performance.now();
    const response = await fetchAgain(urls(), { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`GET: ${response.status} ${text}`);
    return { ms: performance.now() - started, body: text };
  };
  for (let i = 0; i < 3; i += 1) await call();
  let items = 0;
  for (let i = 0; i < requests; i += 1) {
    const { ms, body } = await call();
    samples.push(ms);
    items += (JSON.parse(body) as { data: { items?: unknown[] } }).data.items?.length ?? 0;
  }
  samples.sort((a, b) => a - b);
  const round = (ms: number) => Math.round(ms * 10) / 10;
  return {
    requests,
    mean_items: Math.round(items / requests),
    p50_ms: round(percentile(samples, 50)),
    p95_ms: round(percentile(samples, 95)),
    max_ms: round(samples.at(-1)!),
  };
}

async function measure(store: Store, plan: Plan) {
  const config = {
    ...loadCloudConfig({}),
    logLevel: 'warn' as const,
    rateLimit: false,
    hashing: { memoryCost: 1024, timeCost: 1 },
  };
  const services = createCloudServices(config, { store, clock: systemClock, newId });
  const app = await buildApp(config, { store, clock: systemClock, newId, services });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { tenancy, sync, menu } = services;
    const tenant = await tenancy.createTenant({ slug: 'bench-ho', name: 'Bench Group', tier: 'enterprise' });
    const brand = await tenancy.createGroup('brands', tenant.id, 'Burgers');
    const region = await tenancy.createGroup('regions', tenant.id, 'All');
    const email = 'admin@bench-ho.test';
    await tenancy.addUser(tenant.id, { email, password: 'bench-password-1', roles: ['tenant_admin'] });
    const login = (await (
      await fetch(`${address}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: 'bench-password-1' }),
      })
    ).json()) as { status: { access_token: string } };
    const token = login.status.access_token;
    const call = async (method: string, path: string, body?: unknown) => {
      const response = await fetchAgain(`${address}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const json = (await response.json()) as { data: Record<string, unknown> };
      if (response.status >= 300)
        throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
      return json.data;
    };

    // The brand's menu exists before its stores do; each store takes it in on its first snapshot.
    const category = await call('POST', '/v1/commerce/menu/categories', { brand_id: brand.id, name: 'Menu' });
    const items: string[] = [];
    for (let i = 0; i < plan.items; i += 1)
      items.push(
        String(
          (
            await call('POST', '/v1/commerce/menu/items', {
              brand_id: brand.id,
              category_id: category.id,
              name: `Item ${i}`,
              price_minor: 500 + i,
            })
          ).id,
        ),
      );
    const stores: Array<{ id: string; credential: string; cursor: number }> = [];
    for (let i = 0; i < plan.stores; i += 1) {
      const location = await tenancy.createLocation(tenant.id, {
        name: `Store ${i}`,
        brand_id: brand.id,
        region_id: region.id,
      });
      const appliance = await sync.provisionAppliance(tenant.id, {
        location_id: location.id,
        name: `Store ${i}`,
      });
      stores.push({ id: location.id, credential: appliance.credential, cursor: 0 });
    }
    const fillStarted = performance.now();
    await Promise.all(
      stores.map(async (s) => {
        const page = await fetch(`${address}/v1/sync/snapshot?limit=1000`, {
          headers: { authorization: `Appliance ${s.credential}` },
        });
        s.cursor = ((await page.json()) as { data: { cursor: number } }).data.cursor;
      }),
    );
    const fill_s = seconds(performance.now() - fillStarted);

    /** Every store pulls until it holds every item at `price(i)`; answers when the last one does. */
    async function pullUntilHeld(price: (i: number) => number) {
      const wanted = new Map(items.map((id, i) => [id, price(i)]));
      const queue = [...stores];
      const worker = async () => {
        for (let s = queue.shift(); s; s = queue.shift()) {
          const held = new Map<string, number>();
          const rowIds = new Map(items.map((id) => [storeRowId(id, s!.id), id]));
          while (held.size < wanted.size) {
            const response = await fetch(`${address}/v1/sync/pull?cursor=${s.cursor}&limit=1000`, {
              headers: { authorization: `Appliance ${s.credential}` },
            });
            const page = (await response.json()) as {
              data: { changes: Array<{ row_id: string; fields: { price_minor: number } }>; cursor: number };
            };
            for (const change of page.data.changes) {
              const item = rowIds.get(change.row_id);
              if (item && change.fields.price_minor === wanted.get(item))
                held.set(item, change.fields.price_minor);
            }
            s.cursor = page.data.cursor;
            if (page.data.changes.length === 0) await new Promise((r) => setTimeout(r, 50));
          }
        }
      };
      await Promise.all(Array.from({ length: PULLERS }, worker));
    }

    // Publication: one request changes all 300 prices for every store of the brand.
    const started = performance.now();
    const changed = await call('PUT', '/v1/commerce/menu/prices', {
      brand_id: brand.id,
      prices: items.map((id, i) => ({ item_id: id, price_minor: 700 + i })),
    });
    const accepted_ms = Math.round(performance.now() - started);
    const publicationId = String((changed.publication as { id: string }).id);
    let written_s = 0;
    const written = (async () => {
      for (;;) {
        const progress = await call('GET', `/v1/commerce/menu/publications/${publicationId}`);
        if (progress.state !== 'publishing') {
          written_s = seconds(performance.now() - started);
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await pullUntilHeld((i) => 700 + i);
    const held_s = seconds(performance.now() - started);
    await written;
    const progress = await call('GET', `/v1/commerce/menu/publications/${publicationId}`);

    // Baseline: the same rows, one editFromCloud batch per store, nothing else.
    const rowsOf = (locationId: string) =>
      items.map((id, i) => ({
        table: 'menu_items' as const,
        rowId: storeRowId(id, locationId),
        fields: {
          id: storeRowId(id, locationId),
          category_id: storeRowId(String(category.id), locationId),
          name: `Item ${i}`,
          description: '',
          price_minor: 900 + i,
          available: 1,
          updated_at: new Date().toISOString(),
        },
      }));
    const baselineStarted = performance.now();
    for (const s of stores) await sync.editFromCloud(tenant.id, s.id, rowsOf(s.id));
    const baseline_s = seconds(performance.now() - baselineStarted);
    await menu.settle();

    // The order list.
    const generationStarted = performance.now();
    const { lastDay } = await writeOrders(
      store,
      tenant.id,
      stores.map((s) => s.id),
      { orders: plan.orders, days: plan.days },
    );
    const generation_s = seconds(performance.now() - generationStarted);
    const pick = () => stores[Math.floor(Math.random() * stores.length)]!.id;
    const day = (offset: number) => {
      const date = new Date(`${lastDay}T00:00:00Z`);
      date.setUTCDate(date.getUTCDate() - offset);
      return date.toISOString().slice(0, 10);
    };
    const list = {
      'auth/me (baseline)': await latency(() => `${address}/v1/auth/me`, token, plan.requests),
      'store and day': await latency(
        () =>
          `${address}/v1/commerce/orders?location_id=${pick()}&business_day=${day(Math.floor(Math.random() * plan.days))}`,
        token,
        plan.requests,
      ),
      store: await latency(() => `${address}/v1/commerce/orders?location_id=${pick()}`, token, plan.requests),
      'tenant newest': await latency(() => `${address}/v1/commerce/orders`, token, plan.requests),
      'store, day range, status': await latency(
        () =>
          `${address}/v1/commerce/orders?location_id=${pick()}&business_day_from=${day(30)}&business_day_to=${day(0)}&status=cancelled`,
        token,
        plan.requests,
      ),
    };
    return {
      publish: {
        stores: plan.stores,
        items: plan.items,
        rows: plan.stores * plan.items,
        first_fill_s: fill_s,
        accepted_ms,
        written_to_every_store_s: written_s,
        held_by_every_store_s: held_s,
        stores_applied: progress.stores_applied,
        baseline_edit_batches_s: baseline_s,
      },
      orders: { orders: plan.orders, stores: plan.stores, days: plan.days, generation_s, list },
    };
  } finally {
    await app.close();
    await services.webhooks.close();
  }
}

export async function runHeadOfficeBench(
  options: { backend?: HeadOfficeBackend | undefined; quick?: boolean | undefined } = {},
) {
  const plan = options.quick ? PLANS.quick : PLANS.full;
  const machine = machineSampler();
  const backends: HeadOfficeBackend[] = options.backend ? [options.backend] : ['sqlite', 'pg'];
  const results: Partial<Record<HeadOfficeBackend, Awaited<ReturnType<typeof measure>>>> = {};
  for (const backend of backends) {
    const { store, drop } = await openBenchStore(backend);
    try {
      results[backend] = await measure(store, plan);
    } finally {
      await store.close();
      await drop();
    }
  }
  const goals: Goal[] = Object.entries(results).flatMap(([backend, r]) => [
    {
      subject: backend,
      measure: `publish ${r.publish.items} items to ${r.publish.stores} stores, held by every store (s)`,
      target: `< ${PUBLISH_GOAL_S}`,
      value: r.publish.held_by_every_store_s,
      met: r.publish.held_by_every_store_s < PUBLISH_GOAL_S,
    },
    ...(backend === 'pg'
      ? [
          {
            subject: backend,
            measure: `order list by store and day at ${r.orders.orders.toLocaleString('en')} orders, p95_ms`,
            target: `< ${LIST_GOAL_P95_MS}`,
            value: r.orders.list['store and day'].p95_ms,
            met: r.orders.list['store and day'].p95_ms < LIST_GOAL_P95_MS,
          },
        ]
      : []),
  ]);
  return {
    name: 'head-office',
    at: new Date().toISOString(),
    quick: Boolean(options.quick),
    plan,
    machine: machine(),
    code: codeVersion(),
    results,
    goals,
    valid: Object.keys(results).length === backends.length,
  };
}

export type HeadOfficeReport = Awaited<ReturnType<typeof runHeadOfficeBench>>;

export function summarizeHeadOffice(report: HeadOfficeReport) {
  const lines: string[] = [];
  for (const [backend, r] of Object.entries(report.results)) {
    const p = r.publish;
    lines.push(
      `${backend}: ${p.items} prices to ${p.stores} stores: written ${p.written_to_every_store_s} s, held by every store ${p.held_by_every_store_s} s (baseline: the same ${p.rows} rows as plain edit batches ${p.baseline_edit_batches_s} s; first fill by snapshot ${p.first_fill_s} s)`,
    );
    for (const [name, figures] of Object.entries(r.orders.list))
      lines.push(
        `${backend}: orders ${name}: p50 ${figures.p50_ms} ms, p95 ${figures.p95_ms} ms (${figures.mean_items} per page)`,
      );
  }
  return [...lines, ...report.goals.map(goalLine), goalsMetLine(report.goals)];
}
