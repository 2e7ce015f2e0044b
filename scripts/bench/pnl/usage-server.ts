/**
 * The real cloud for the usage benchmark, `startCloud` as cloud/main.ts runs it: SQLite in a fresh
 * DATA_DIR, or PostgreSQL in the schema BENCH_DATABASE_SCHEMA names (dropped when this process
 * stops); rate limiting, the fleet link and the webhook worker off. Seeds one tenant with a
 * billing admin and two subscriptions. Prints `{"port","tenant_id","subscription_ids"}`.
 */
import { Kysely, sql } from 'kysely';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { createDialect } from '../../../cloud/db/dialect/pg.ts';
import { startCloud } from '../../../cloud/main.ts';
import { runUntilStopped } from '../servers/lifecycle.ts';
import { USAGE_BENCH_USER } from './usage-accounts.ts';

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
    CLOUD_FLEET: 'false',
    WEBHOOK_WORKER: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
  });
  const cloud = await startCloud(config);
  const { tenancy, billing } = cloud.services;
  const tenant = await tenancy.createTenant({ slug: 'bench-usage', name: 'Bench usage', tier: 'enterprise' });
  await tenancy.addUser(tenant.id, { ...USAGE_BENCH_USER, roles: ['billing_admin'] });
  const subscription = () =>
    billing.createSubscription(tenant.id, {
      plan_id: '0190c0de-0000-7000-8000-000000000001',
      processor_subscription_id: `sub_bench_${Math.random().toString(36).slice(2)}`,
      current_period_end: '2031-01-01T00:00:00Z',
      status: 'active',
    });
  const subscriptions = [await subscription(), await subscription(), await subscription()];
  return { cloud, tenantId: tenant.id, subscriptionIds: subscriptions.map((s) => s.id) };
}

runUntilStopped({
  name: 'bench usage cloud',
  dirPrefix: 'bench-usage-cloud-',
  start,
  async stop({ cloud }) {
    await cloud.stop();
    await dropSchema();
  },
  announcement: ({ cloud, tenantId, subscriptionIds }) => ({
    port: cloud.port,
    tenant_id: tenantId,
    subscription_ids: subscriptionIds,
  }),
});
