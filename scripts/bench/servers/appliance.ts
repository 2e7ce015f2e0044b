/**
 * The real appliance for the appliance-orders benchmark: a fresh temporary data dir seeded with one
 * staff member (PIN login) and one menu item, then `startAppliance` as appliance/main.ts runs it.
 * Prints `{"port":N,"menu_item_id":"..."}`; stops on SIGTERM, SIGINT or stdin end, removing the dir.
 */
import { createApplianceServices } from '../../../appliance/app.ts';
import { loadApplianceConfig } from '../../../appliance/config.ts';
import { openApplianceDb } from '../../../appliance/db/index.ts';
import { startAppliance } from '../../../appliance/main.ts';
import { systemClock } from '../../../shared/clock.ts';
import { createSecretHasher } from '../../../shared/identity/secrets.ts';
import { newId } from '../../../shared/ids.ts';
import { runUntilStopped } from './lifecycle.ts';

// The bench (appliance-orders.ts) logs in with this PIN.
const BENCH_PIN_LOGIN = { identifier: 'bench', pin: '135790' };

const env = (dataDir: string) => ({
  TENANT_ID: '01900000-0000-7000-8000-00000000000a',
  LOCATION_ID: '01900000-0000-7000-8000-00000000000b',
  APPLIANCE_DATA_DIR: dataDir,
  APPLIANCE_PORT: '0',
  APPLIANCE_HOST: '127.0.0.1',
  APPLIANCE_TIMEZONE: 'America/New_York',
  LOG_LEVEL: process.env.LOG_LEVEL || 'warn',
});

/** Staff and a menu item, written the way a seed or sync would, before the appliance starts. */
async function seed(dataDir: string) {
  const db = openApplianceDb(dataDir);
  try {
    const services = createApplianceServices(loadApplianceConfig(env(dataDir)), {
      db,
      clock: systemClock,
      newId,
      hasher: createSecretHasher({ memoryCost: 1024, timeCost: 1 }),
    });
    await services.auth.upsertStaff({
      id: newId(),
      email: 'bench@store.test',
      username: BENCH_PIN_LOGIN.identifier,
      displayName: 'Bench',
      roles: ['staff'],
      pin: BENCH_PIN_LOGIN.pin,
      version: 1,
    });
    const category = services.menu.createCategory({ name: 'Mains' });
    const item = services.menu.createItem({ category_id: category.id, name: 'Burger', price_minor: 899 });
    return item.id;
  } finally {
    db.close();
  }
}

async function start(dataDir: string) {
  const menuItemId = await seed(dataDir);
  const appliance = await startAppliance(loadApplianceConfig(env(dataDir)));
  return { appliance, menuItemId };
}

runUntilStopped({
  name: 'bench appliance',
  dirPrefix: 'bench-appliance-',
  start,
  stop: ({ appliance }) => appliance.stop(),
  announcement: ({ appliance, menuItemId }) => ({ port: appliance.port, menu_item_id: menuItemId }),
});
