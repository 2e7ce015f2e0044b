/**
 * The real cloud for the benchmark: SQLite in a fresh temporary DATA_DIR, rate limiting off (else
 * the tenant's tier limit is what gets measured), one enterprise tenant with one manager.
 */
import { loadCloudConfig } from '../../../cloud/config.ts';
import { startCloud } from '../../../cloud/main.ts';
import { BENCH_STAFF_COUNT, BENCH_USER, benchStaff } from './accounts.ts';
import { runUntilStopped } from './lifecycle.ts';

async function start(dataDir: string) {
  // Only these variables: a DATABASE_URL or REDIS_URL in the caller's shell must not change the run.
  const config = loadCloudConfig({
    CLOUD_PORT: '0',
    CLOUD_HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    CLOUD_RATE_LIMIT: 'false',
    LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
  });
  const cloud = await startCloud(config);
  const { tenancy } = cloud.services;
  const tenant = await tenancy.createTenant({ slug: 'bench', name: 'Bench', tier: 'enterprise' });
  await tenancy.addUser(tenant.id, { ...BENCH_USER, roles: ['manager'] });
  for (let n = 0; n < BENCH_STAFF_COUNT; n++)
    await tenancy.addUser(tenant.id, { ...benchStaff(n), roles: ['staff'] });
  return cloud;
}

// Stops on SIGTERM, SIGINT or stdin end, even while still starting, and always removes the data dir.
runUntilStopped({
  name: 'bench cloud',
  dirPrefix: 'bench-cloud-',
  start,
  stop: (cloud) => cloud.stop(),
  announcement: ({ port }) => ({ port }),
});
