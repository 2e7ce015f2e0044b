/**
 * The real cloud for the benchmark: SQLite in a fresh temporary DATA_DIR, rate limiting off (else
 * the tenant's tier limit is what gets measured), one enterprise tenant with one manager.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCloudConfig } from '../../../cloud/config.ts';
import { startCloud } from '../../../cloud/main.ts';
import { BENCH_STAFF_COUNT, BENCH_USER, benchStaff } from './accounts.ts';

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

/**
 * Stops on SIGTERM, SIGINT (a Ctrl-C reaches this process too) or when the bench closes our stdin
 * (it died), including while still starting, and always removes the data dir.
 */
function main() {
  const dataDir = mkdtemp(join(tmpdir(), 'bench-cloud-'));
  const cloud = dataDir.then(start);
  let stopping = false;
  const shutdown = (code: number) => {
    if (stopping) return;
    stopping = true;
    cloud
      .then(
        (running) => running.stop(),
        () => undefined,
      )
      .finally(() => dataDir.then((dir) => rm(dir, { recursive: true, force: true })))
      .then(
        () => process.exit(code),
        () => process.exit(1),
      );
  };
  process.on('SIGTERM', () => shutdown(0));
  process.on('SIGINT', () => shutdown(0));
  process.stdin.on('end', () => shutdown(0)).resume();
  cloud.then(
    ({ port }) => {
      if (!stopping) process.stdout.write(`${JSON.stringify({ port })}\n`);
    },
    (error: unknown) => {
      process.stderr.write(`bench cloud: failed to start: ${(error as Error).stack ?? String(error)}\n`);
      shutdown(1);
    },
  );
}

main();
