/**
 * `npm start`: the whole system on one machine with embedded defaults. Today that is the cloud on
 * SQLite with a demo tenant; the appliance joins it in a later step.
 */
import { createServer } from 'node:net';
import { type CloudConfig, ConfigError, loadCloudConfig } from '../cloud/config.ts';
import { startCloud } from '../cloud/main.ts';
import type { CloudServices } from '../cloud/services.ts';

export const DEMO = {
  tenant: { slug: 'demo', name: 'Demo Restaurants', tier: 'professional' as const },
  admin: {
    email: 'admin@demo.test',
    password: 'demo-admin-password',
    roles: ['tenant_admin', 'platform_admin'],
  },
  staff: {
    email: 'staff@demo.test',
    username: 'staff',
    pin: '123456',
    password: 'demo-staff-password',
    roles: ['manager'],
  },
};

function portIsFree(port: number, host: string) {
  return new Promise<boolean>((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, host, () => probe.close(() => resolve(true)));
  });
}

/** Creates the demo tenant, its store and its two users once; later starts find them in place. */
async function seedDemo(services: CloudServices) {
  const existing = await services.tenancy.tenantBySlug(DEMO.tenant.slug);
  if (existing) return existing.id;
  const tenant = await services.tenancy.createTenant(DEMO.tenant);
  const brand = await services.tenancy.createGroup('brands', tenant.id, 'Demo Burgers');
  const region = await services.tenancy.createGroup('regions', tenant.id, 'Downtown');
  await services.tenancy.createLocation(tenant.id, {
    name: 'Demo Store 1',
    brand_id: brand.id,
    region_id: region.id,
    timezone: 'America/New_York',
  });
  await services.tenancy.addUser(tenant.id, { ...DEMO.admin, first_name: 'Demo', last_name: 'Admin' });
  await services.tenancy.addUser(tenant.id, { ...DEMO.staff, first_name: 'Demo', last_name: 'Staff' });
  return tenant.id;
}

function banner(url: string, chosenPort: string) {
  const login = JSON.stringify({ email: DEMO.admin.email, password: DEMO.admin.password });
  const pin = JSON.stringify({ identifier: DEMO.staff.username, pin: DEMO.staff.pin });
  return [
    '',
    `Cloud gateway   ${url}${chosenPort}`,
    `API docs        ${url}/docs`,
    `Health          ${url}/health`,
    '',
    `Demo admin      ${DEMO.admin.email} / ${DEMO.admin.password} (tenant "${DEMO.tenant.slug}")`,
    `Demo staff PIN  ${DEMO.staff.username} / ${DEMO.staff.pin}`,
    '',
    'Try:',
    `  curl -s ${url}/v1/auth/login -H 'content-type: application/json' -d '${login}'`,
    `  curl -s ${url}/v1/auth/login/pin -H 'content-type: application/json' -d '${pin}'`,
    '',
  ].join('\n');
}

async function main() {
  let config: CloudConfig;
  try {
    config = loadCloudConfig({ LOG_LEVEL: 'warn', ...process.env });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`start: ${error.message}\n`);
    process.exit(2);
  }
  const requested = config.port;
  const fallback = process.env.CLOUD_PORT === undefined && !(await portIsFree(requested, config.host));
  const cloud = await startCloud({ ...config, port: fallback ? 0 : requested }, { beforeListen: seedDemo });
  const url = `http://${config.host}:${cloud.port}`;
  const note = fallback ? `   (port ${requested} was taken; chose ${cloud.port})` : '';
  process.stdout.write(banner(url, note));
  const stop = () => cloud.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`start: ${(error as Error).message}\n`);
  process.exit(1);
});
