/**
 * The baseline: the same usage records straight into the store (the ingest's own statement, 1000
 * rows at a time, one after another), and through the billing service's ingest without HTTP, in
 * this process.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Kysely, sql } from 'kysely';
import { usageWriter } from '../../../cloud/billing/usage-store.ts';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { createDialect } from '../../../cloud/db/dialect/pg.ts';
import { openStore } from '../../../cloud/db/index.ts';
import { createCloudServices } from '../../../cloud/services.ts';
import { systemClock } from '../../../shared/clock.ts';
import { newId } from '../../../shared/ids.ts';

export async function measureBaseline(backend: 'sqlite' | 'pg', databaseUrl: string, records: number) {
  const dir = await mkdtemp(join(tmpdir(), 'bench-usage-baseline-'));
  const schema = `bench_usage_base_${randomBytes(4).toString('hex')}`;
  const pg = backend === 'pg';
  const store = await openStore({
    dataDir: dir,
    databaseUrl: pg ? databaseUrl : undefined,
    schema: pg ? schema : undefined,
  });
  try {
    const config = {
      ...loadCloudConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }),
      logLevel: 'silent' as const,
    };
    const services = createCloudServices(config, { store, clock: systemClock, newId });
    const tenant = await services.tenancy.createTenant({
      slug: 'bench-base',
      name: 'Base',
      tier: 'enterprise',
    });
    const subscription = await services.billing.createSubscription(tenant.id, {
      plan_id: '0190c0de-0000-7000-8000-000000000001',
      processor_subscription_id: 'sub_base',
      current_period_end: '2031-01-01T00:00:00Z',
      status: 'active',
    });
    const row = () => ({
      id: newId(),
      tenant_id: tenant.id,
      subscription_id: subscription.id,
      metric_name: 'base',
      quantity: 1,
      recorded_at: '2030-01-01T00:00:00.000Z',
      idempotency_key: randomUUID(),
      created_at: new Date().toISOString(),
    });
    const insert = usageWriter(store);
    let started = performance.now();
    for (let done = 0; done < records; done += 1000) {
      await insert(Array.from({ length: Math.min(1000, records - done) }, row));
    }
    const storeRate = Math.round(records / ((performance.now() - started) / 1000));

    let next = 0;
    started = performance.now();
    const client = async () => {
      while (next < records) {
        next += 1;
        await services.billing.usage.submit(tenant.id, {
          subscription_id: subscription.id,
          metric_name: 'ingest',
          quantity: 1,
          timestamp: '2030-01-01T00:00:00Z',
          idempotency_key: randomUUID(),
        });
      }
    };
    await Promise.all(Array.from({ length: 256 }, client));
    const ingestRate = Math.round(records / ((performance.now() - started) / 1000));
    await services.webhooks.close();
    return {
      records,
      store_multirow_records_per_sec: storeRate,
      ingest_in_process_records_per_sec: ingestRate,
    };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
    if (pg) {
      const admin = new Kysely<unknown>({ dialect: createDialect(databaseUrl) });
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(admin);
      await admin.destroy();
    }
  }
}
