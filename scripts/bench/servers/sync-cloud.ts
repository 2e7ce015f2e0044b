/**
 * The real cloud for the sync benchmark, `startCloud` as cloud/main.ts runs it: SQLite in a fresh
 * temporary DATA_DIR, or PostgreSQL in the schema BENCH_DATABASE_SCHEMA names (dropped again when
 * this process stops), rate limiting off (else the tenant's tier limit is what gets measured), the
 * sync settings at their defaults, and one enterprise tenant whose stores the bench asks for on the
 * control port (see ../sync/control.ts). Prints `{"port":N,"control_port":N,"tenant_id":"..."}`.
 */
import { Kysely, sql } from 'kysely';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { createDialect } from '../../../cloud/db/dialect/pg.ts';
import { openStore } from '../../../cloud/db/index.ts';
import { startCloud } from '../../../cloud/main.ts';
import { startControl } from '../sync/cloud-control.ts';
import { runUntilStopped } from './lifecycle.ts';

// Only these variables: a DATABASE_URL or REDIS_URL in the caller's shell must not change the run.
const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
const schema = process.env.BENCH_DATABASE_SCHEMA || undefined;

async function dropSchema() {
  if (!databaseUrl || !schema) return;
  const admin = new Kysely<unknown>({ dialect: createDialect(databaseUrl) });
  try {
    await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
  } finally {
    await admin.destroy();
  }
}

async function start(dataDir: string) {
  const config = loadCloudConfig({
    CLOUD_PORT: '0',
    CLOUD_HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: schema,
    CLOUD_RATE_LIMIT: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
  });
  const cloud = await startCloud(config);
  const observer = await openStore({ dataDir, databaseUrl, schema });
  const { tenancy } = cloud.services;
  const tenant = await tenancy.createTenant({ slug: 'bench-sync', name: 'Bench sync', tier: 'enterprise' });
  const brand = await tenancy.createGroup('brands', tenant.id, 'Bench brand');
  const region = await tenancy.createGroup('regions', tenant.id, 'Bench region');
  const control = await startControl({
    services: cloud.services,
    observer,
    tenantId: tenant.id,
    brandId: brand.id,
    regionId: region.id,
  });
  return { cloud, observer, control, tenantId: tenant.id };
}

runUntilStopped({
  name: 'bench sync cloud',
  dirPrefix: 'bench-sync-cloud-',
  start,
  async stop({ cloud, observer, control }) {
    await control.close();
    await cloud.stop();
    await observer.close();
    await dropSchema();
  },
  announcement: ({ cloud, control, tenantId }) => ({
    port: cloud.port,
    control_port: control.port,
    tenant_id: tenantId,
  }),
});
