/**
 * The cloud side of the webhook benchmark, in this process: a fresh store (a SQLite file in a
 * temporary dir, or a PostgreSQL schema of its own, dropped afterwards), the cloud's services as
 * cloud/main.ts builds them, one tenant with its endpoints, and the delivery worker started here as
 * the gateway starts it. Events are appended as every writer appends them: inside a transaction,
 * whose event consumer writes the deliveries.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { openStore } from '../../../cloud/db/index.ts';
import type { DomainEventRow } from '../../../cloud/events/index.ts';
import { createCloudServices } from '../../../cloud/services.ts';
import { systemClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';
import { dropSchema } from '../sync/pg.ts';
import { stamp } from './receiver-control.ts';

export type Backend = 'sqlite' | 'pg';
export type Behaviour = 'ok' | 'fail' | 'hang';

export interface EndpointSpec {
  port: number;
  behaviour: Behaviour;
}

export interface BenchCloudOptions {
  backend: Backend;
  databaseUrl: string;
  endpoints: EndpointSpec[];
  /** Every endpoint's timeout_seconds: what ends a hanging request. */
  timeoutSeconds: number;
}

const ORDER_TYPES = ['order.created', 'order.updated', 'order.completed'] as const;

async function freshStore(backend: Backend, databaseUrl: string) {
  if (backend === 'sqlite') {
    const dir = await mkdtemp(join(tmpdir(), 'bench-webhooks-'));
    const env = { DATA_DIR: dir };
    return {
      env,
      store: await openStore({ dataDir: dir }),
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const schema = `bench_webhooks_${randomBytes(5).toString('hex')}`;
  const env = { DATA_DIR: '', DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema };
  const store = await openStore({ dataDir: '', databaseUrl, schema });
  return { env, store, drop: () => dropSchema(databaseUrl, schema) };
}

/** The worker's warnings and errors (lost leases, failed lanes), kept for the report. */
function collectingLog() {
  const lines: string[] = [];
  const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line.trim()) });
  return { log, lines };
}

export async function openBenchCloud(options: BenchCloudOptions) {
  const { env, store, drop } = await freshStore(options.backend, options.databaseUrl);
  const config = loadCloudConfig({ ...env, WEBHOOK_ALLOW_PRIVATE_URLS: 'true', LOG_LEVEL: 'warn' });
  const { log, lines } = collectingLog();
  const services = createCloudServices(config, { store, clock: systemClock, newId, log });
  const tenancy = services.tenancy;
  const tenant = await tenancy.createTenant({ slug: 'bench-webhooks', name: 'Bench', tier: 'enterprise' });
  const brand = await tenancy.createGroup('brands', tenant.id, 'Brand');
  const region = await tenancy.createGroup('regions', tenant.id, 'Region');
  const location = await tenancy.createLocation(tenant.id, {
    name: 'Store',
    brand_id: brand.id,
    region_id: region.id,
  });
  // Half on each interface: both envelopes and both signature forms are made and sent.
  for (const [index, endpoint] of options.endpoints.entries()) {
    await services.webhooks.subscriptions.create(tenant.id, index % 2 === 0 ? 'subscription' : 'admin', {
      url: `http://127.0.0.1:${endpoint.port}/${endpoint.behaviour}/${index}`,
      events: ['order.*'],
      secret: `whsec_bench_${index}_0123456789abcdef`,
      settings: { timeout_seconds: options.timeoutSeconds },
    });
  }

  let number = 0;
  /** An order's event as a store's sync would bring it. */
  const orderEvent = (): DomainEventRow => {
    number += 1;
    const at = new Date().toISOString();
    return {
      id: newId(),
      tenant_id: tenant.id,
      location_id: location.id,
      type: ORDER_TYPES[number % ORDER_TYPES.length]!,
      occurred_at: at,
      received_at: at,
      data: JSON.stringify({
        id: newId(),
        number: String(number),
        order_type: 'dine_in',
        status: 'open',
        items: [
          { id: newId(), menu_item_id: newId(), name: 'Burger', quantity: 2, unit_price: 9.5, total: 19 },
          { id: newId(), menu_item_id: newId(), name: 'Fries', quantity: 1, unit_price: 3.5, total: 3.5 },
        ],
        subtotal: 22.5,
        tax: 1.8,
        total: 24.3,
        created_at: at,
      }),
    };
  };

  return {
    store,
    services,
    /**
     * The tables PostgreSQL has statistics for (analyzed by hand or by autovacuum): none on a
     * server with autovacuum off, so every plan the measure ran on was made without them.
     */
    async tablesAnalyzed() {
      if (options.backend !== 'pg') return [];
      const { rows } = await sql<{ relname: string }>`
        select relname from pg_stat_user_tables
        where schemaname = current_schema()
          and (last_analyze is not null or last_autoanalyze is not null)
        order by relname`.execute(store.db);
      return rows.map((row) => row.relname);
    },
    tenantId: tenant.id,
    warnings: lines,
    orderEvent,
    /** Appends in one transaction; resolves to this process's stamp just after the commit. */
    async append(events: DomainEventRow[]) {
      await store.db.transaction().execute((trx) => services.events.append(trx, events));
      return stamp();
    },
    async close() {
      await services.webhooks.close();
      await store.close();
      await drop();
    },
  };
}

export type BenchCloud = Awaited<ReturnType<typeof openBenchCloud>>;
